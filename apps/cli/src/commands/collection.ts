import { resolve } from "node:path";
import { type CollectionInfo, DocDBError, echo } from "@docdb/core";
import { Command } from "commander";
import { confirm } from "../confirm.js";
import { action, CREATE_FLAG, printJson, writableDatabase } from "../context.js";
import { printTable } from "./db.js";

interface NameOptions {
  name?: string;
  db: string;
  json?: boolean;
}

/** The collection name from `-n NAME` or the first argument, whichever was given. */
function nameOf(positional: string | undefined, options: NameOptions): string {
  const name = options.name ?? positional;
  if (!name) throw new DocDBError("INVALID_REQUEST", "which collection? pass -n NAME");
  if (options.name && positional && options.name !== positional) {
    throw new DocDBError("INVALID_REQUEST", `two names given ("${echo(positional)}" and -n "${echo(options.name)}"): pass one`);
  }
  return name;
}

function show(info: CollectionInfo, verb: string, json?: boolean): void {
  if (json) printJson(info);
  else process.stdout.write(`${verb} collection ${info.name} (${info.enabled ? "enabled" : "disabled"}): ${info.source}\n`);
}

function named(command: Command): Command {
  return command
    .argument("[name]", "collection name (or -n)")
    .option("-n, --name <name>", "collection name")
    .option("--db <name>", "database", "vectors")
    .option("--json", "print JSON");
}

/** `docdb collection …` (alias `docdb tool …`): the named folders that become MCP search tools. */
export function collectionCommand(): Command {
  const collection = new Command("collection")
    .alias("tool")
    .description("manage collections: named folders of documents, each an MCP search tool for agents");

  collection
    .command("add")
    .description("create a collection from a folder (then fill it with `docdb import -n NAME`)")
    .requiredOption("-n, --name <name>", "lowercase letters, digits, _ and - (becomes the MCP tool search_<name>)")
    .requiredOption("-d, --description <text>", 'what it holds, written for an AI agent: "API documentation for user authentication"')
    .requiredOption("-s, --source <dir>", "the folder to import from")
    .option("--disabled", "create it disabled (no MCP tool until enabled)")
    .option("--db <name>", "database", "vectors")
    .option(...CREATE_FLAG)
    .option("--json", "print JSON")
    .addHelpText("after", '\nExample:\n  docdb collection add -n api_docs -d "API documentation for user authentication" -s ./docs/api')
    .action(
      action(
        async (
          docdb,
          options: { name: string; description: string; source: string; disabled?: boolean; db: string; create?: boolean; json?: boolean },
          command: Command,
        ) => {
          const db = await writableDatabase(docdb, command, options);
          const info = await db.collections.add({
            name: options.name,
            description: options.description,
            source: resolve(options.source),
            enabled: !options.disabled,
          });
          show(info, "added", options.json);
          if (!options.json)
            process.stdout.write(`next: docdb import -n ${info.name}${options.db !== "vectors" ? ` --db ${options.db}` : ""}\n`);
        },
      ),
    );

  named(collection.command("update"))
    .description("change a collection's description or source folder")
    .option("-d, --description <text>", "new description")
    .option("-s, --source <dir>", "new source folder")
    .action(
      action(async (docdb, positional: string | undefined, options: NameOptions & { description?: string; source?: string }) => {
        const info = await (await docdb.database(options.db)).collections.update(nameOf(positional, options), {
          description: options.description,
          source: options.source !== undefined ? resolve(options.source) : undefined,
        });
        show(info, "updated", options.json);
      }),
    );

  for (const [verb, enabled] of [
    ["enable", true],
    ["disable", false],
  ] as const) {
    named(collection.command(verb))
      .description(
        enabled
          ? "offer the collection to agents again (and watch it)"
          : "hide the collection from agents and the watcher; keeps its documents",
      )
      .action(
        action(async (docdb, positional: string | undefined, options: NameOptions) => {
          const info = await (await docdb.database(options.db)).collections.setEnabled(nameOf(positional, options), enabled);
          show(info, `${verb}d`, options.json);
        }),
      );
  }

  named(collection.command("delete"))
    .alias("rm")
    .description("delete a collection and all its documents (asks first on a terminal)")
    .option("-y, --yes", "do not ask")
    .action(
      action(async (docdb, positional: string | undefined, options: NameOptions & { yes?: boolean }) => {
        const db = await docdb.database(options.db);
        const name = nameOf(positional, options);
        const [status] = await db.collections.status(name);
        if (!options.yes) {
          const ok = await confirm(`delete collection ${name} and its ${status?.documents ?? 0} document(s) from "${options.db}"?`);
          if (!ok) {
            process.stderr.write("nothing deleted\n");
            process.exitCode = 1;
            return;
          }
        }
        const removed = await db.collections.delete(name);
        if (options.json) printJson({ deleted: name, ...removed });
        else process.stdout.write(`deleted collection ${name}: ${removed.documents} document(s), ${removed.chunks} chunk(s)\n`);
      }),
    );

  collection
    .command("ls")
    .alias("list")
    .description("list enabled collections (--all: disabled ones too)")
    .option("--all", "include disabled collections")
    .option("--db <name>", "database", "vectors")
    .option("--json", "print JSON")
    .action(
      action(async (docdb, options: { all?: boolean; db: string; json?: boolean }) => {
        if (!(await docdb.exists(options.db))) {
          if (options.json) return printJson([]);
          process.stdout.write(`no collections: database "${options.db}" does not exist yet (docdb collection add creates it)\n`);
          return;
        }
        const list = (await (await docdb.database(options.db)).collections.status()).filter((c) => options.all || c.enabled);
        if (options.json) return printJson(list);
        if (list.length === 0) {
          process.stdout.write(options.all ? "no collections yet\n" : "no enabled collections (--all shows disabled ones)\n");
          return;
        }
        printTable(
          ["NAME", "ENABLED", "DOCUMENTS", "CHUNKS", "LAST IMPORT", "SOURCE", "DESCRIPTION"],
          list.map((c) => [
            c.name,
            c.enabled ? "yes" : "no",
            String(c.documents),
            String(c.chunks),
            c.last_import_at ?? "never",
            c.source,
            c.description.length > 60 ? `${c.description.slice(0, 59)}…` : c.description,
          ]),
        );
      }),
    );
  return collection;
}
