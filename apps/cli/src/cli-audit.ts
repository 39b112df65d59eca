// The CLI's writes in the audit trail: which commands write, and the entry each successful one
// records (who: the local user; from where: "cli"). Reads are not recorded.
import { userInfo } from "node:os";
import type { Actor, DocDB } from "@docdb/core";
import type { Command } from "commander";

/** Command path → audit action, for every command that changes data. */
const WRITES: Record<string, string> = {
  insert: "insert",
  delete: "delete",
  import: "import",
  copy: "copy",
  "db create": "create_database",
  "db drop": "drop_database",
  "collection add": "collection_add",
  "collection update": "collection_update",
  "collection enable": "collection_update",
  "collection disable": "collection_update",
  "collection delete": "collection_delete",
  "collection clear": "collection_clear",
  "qa add": "store_qa",
  "qa merge": "merge",
  "qa knowledge": "store_knowledge",
  reembed: "reembed",
};

function commandPath(command: Command): string {
  const names: string[] = [];
  for (let c: Command | null = command; c?.parent; c = c.parent) names.unshift(c.name());
  return names.join(" ");
}

/** The local user, as the audit trail names a person at a terminal. */
export function cliActor(): Actor {
  let name = "local";
  try {
    name = userInfo().username || name;
  } catch {
    // No user entry (some containers): "local".
  }
  return { name, origin: "cli" };
}

/** Records a successful write command; a failure to record is a warning, never a lost write. */
export async function recordCliWrite(docdb: DocDB, command: Command, args: unknown[]): Promise<void> {
  const path = commandPath(command);
  const action = WRITES[path];
  if (action === undefined) return;
  const options = command.opts<{ db?: string; dryRun?: boolean }>();
  if (options.dryRun) return;
  const positional = args.slice(0, -2).filter((a): a is string => typeof a === "string");
  const database = path.startsWith("db ") ? (positional[0] ?? "") : (options.db ?? "");
  try {
    await docdb.access().record(cliActor(), { action, database, detail: `docdb ${path} ${positional.join(" ")}`.trim().slice(0, 300) });
  } catch (error) {
    process.stderr.write(`warning: the write succeeded but could not be added to the audit trail: ${(error as Error).message}\n`);
  }
}
