import { Command } from "commander";
import { action, printJson } from "../context.js";

export function getCommand(): Command {
  return new Command("get")
    .description("show a stored document with its metadata and chunk offsets")
    .argument("<doc_id>")
    .option("--db <name>", "database", "vectors")
    .option("--json", "print JSON")
    .action(
      action(async (docdb, docId: string, options: { db: string; json?: boolean }) => {
        const doc = await (await docdb.database(options.db)).getDocument(docId);
        if (options.json) return printJson(doc);
        const pending = doc.chunks.filter((c) => !c.embedded).length;
        process.stdout.write(
          [
            `id:        ${doc.doc_id}`,
            ...(doc.key ? [`key:       ${doc.key}`] : []),
            ...(doc.title ? [`title:     ${doc.title}`] : []),
            ...(doc.source ? [`source:    ${doc.source}`] : []),
            `metadata:  ${JSON.stringify(doc.metadata)}`,
            `chunks:    ${doc.chunks.length}${pending > 0 ? ` (${pending} pending embedding)` : ""}`,
            `created:   ${doc.created_at}`,
            "",
            doc.text,
            "",
          ].join("\n"),
        );
      }),
    );
}
