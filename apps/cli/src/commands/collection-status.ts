import type { CollectionStatus, DocDB } from "@docdb/core";
import { printJson } from "../context.js";
import { printTable } from "./db.js";

function modelName(model: CollectionStatus["model"]): string {
  return model ? `${model.provider}/${model.model}` : "-";
}

/** Collections of the given databases, each tagged with its database (for `docdb status`). */
export async function collectionsOf(docdb: DocDB, databases: string[]): Promise<(CollectionStatus & { db: string })[]> {
  const all: (CollectionStatus & { db: string })[] = [];
  for (const db of databases) {
    for (const c of await (await docdb.database(db)).collections.status()) all.push({ db, ...c });
  }
  return all;
}

export function printCollectionsTable(list: (CollectionStatus & { db: string })[]): void {
  if (list.length === 0) return;
  process.stdout.write("\ncollections:\n");
  printTable(
    ["DB", "NAME", "ENABLED", "DOCUMENTS", "CHUNKS", "PENDING", "UNPARSED", "MODEL", "LAST IMPORT"],
    list.map((c) => [
      c.db,
      c.name,
      c.enabled ? "yes" : "no",
      String(c.documents),
      String(c.chunks),
      String(c.pending),
      String(c.code_fallback_files),
      modelName(c.model),
      c.last_import_at ?? "never",
    ]),
  );
}

/** `docdb status -n NAME`: one collection and its files with their chunk counts. */
export async function printCollectionStatus(docdb: DocDB, dbName: string, name: string, json?: boolean): Promise<void> {
  const collections = (await docdb.database(dbName)).collections;
  const [status] = await collections.status(name);
  const files = await collections.files(name);
  if (json) {
    printJson({ db: dbName, collection: status, files });
    return;
  }
  if (!status) return;
  process.stdout.write(
    [
      `collection:   ${status.name} (${status.enabled ? "enabled" : "disabled"}) in database "${dbName}"`,
      `description:  ${status.description}`,
      `source:       ${status.source}`,
      `documents:    ${status.documents}`,
      `chunks:       ${status.chunks} (${status.pending} pending embedding)`,
      `unparsed:     ${status.code_fallback_files} code file${status.code_fallback_files === 1 ? "" : "s"} cut by lines (${status.code_fallback_chunks} chunks): syntax errors, or no grammar for the language`,
      `model:        ${modelName(status.model)}`,
      `last import:  ${status.last_import_at ?? "never"}`,
      "",
      "",
    ].join("\n"),
  );
  if (files.length === 0) {
    process.stdout.write(`no files imported yet: docdb import -n ${status.name}\n`);
    return;
  }
  printTable(
    ["PATH", "CHUNKS", "BYTES", "IMPORTED"],
    files.map((f) => [f.path, String(f.chunks), String(f.size), f.imported_at]),
  );
}
