import { Command } from "commander";
import { action, parseInteger, parseJsonOption, printJson } from "../context.js";
import { printTable } from "./db.js";

export function listCommand(): Command {
  return new Command("list")
    .alias("ls")
    .description("list the documents in a database")
    .option("--db <name>", "database", "vectors")
    .option("--limit <n>", "at most this many", "100")
    .option("--offset <n>", "skip this many", "0")
    .option(
      "--filter <json>",
      'only documents matching, as in find; code chunk fields match when any chunk does, e.g. \'{"symbol_kind":"class"}\'',
    )
    .option("--collection <name>", "only documents of this collection")
    .option("--json", "print JSON")
    .action(
      action(
        async (docdb, options: { db: string; limit: string; offset: string; filter?: string; collection?: string; json?: boolean }) => {
          const docs = await (await docdb.database(options.db)).listDocuments({
            limit: parseInteger(options.limit, "--limit"),
            offset: parseInteger(options.offset, "--offset"),
            filter: parseJsonOption(options.filter, "--filter"),
            collection: options.collection,
          });
          if (options.json) return printJson(docs);
          printTable(
            ["DOC_ID", "CHUNKS", "CHARS", "TITLE/SOURCE"],
            docs.map((d) => [d.doc_id, String(d.chunk_count), String(d.length), d.title ?? d.source ?? ""]),
          );
        },
      ),
    );
}
