import { Command } from "commander";
import { action, printJson } from "../context.js";

export function deleteCommand(): Command {
  return new Command("delete")
    .alias("rm")
    .description("delete a document with its chunks, vectors and keyword index")
    .argument("<doc_id>")
    .option("--db <name>", "database", "vectors")
    .option("--json", "print JSON")
    .action(
      action(async (docdb, docId: string, options: { db: string; json?: boolean }) => {
        const result = await (await docdb.database(options.db)).deleteDocument(docId);
        if (options.json) printJson(result);
        else process.stdout.write(`deleted ${docId} (${result.deleted_chunks} chunk(s))\n`);
      }),
    );
}
