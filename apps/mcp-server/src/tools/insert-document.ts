import { z } from "zod/v4";
import { defineTool } from "../tool.js";
import { dbNameArgument, plural, type ToolsContext } from "./context.js";

export function insertDocumentTool({ docdb, defaultDb }: ToolsContext) {
  return defineTool({
    name: "insert_document",
    title: "Insert a document",
    description:
      "Store a document: docdb splits it into chunks, indexes its words and embeds it when a model is configured. " +
      "Japanese, English, Markdown and code all work. Text up to 100,000 characters; split longer texts. " +
      "The database is created when missing. Returns the doc_id to get or delete it later.",
    input: z.strictObject({
      text: z.string().describe("The document's text (non-empty, at most 100,000 characters)"),
      metadata: z
        .record(z.string(), z.unknown())
        .optional()
        .describe('A JSON object stored with the document and usable as a search filter, e.g. {"lang":"ja","team":"search"}'),
      db_name: dbNameArgument(defaultDb),
      title: z.string().optional().describe("A title (at most 1000 characters); keyword search weighs it higher"),
    }),
    output: z.object({
      doc_id: z.string(),
      chunk_count: z.number().int(),
      embedded: z.boolean().describe("False when the chunks wait for an embedding model; keyword search finds them meanwhile"),
      warnings: z.array(z.string()),
    }),
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    run: ({ text, metadata, db_name, title }) =>
      docdb.database(db_name ?? defaultDb, { create: true }).insertDocument({ text, metadata, title }),
    render: (result, { db_name }) =>
      [
        `Stored document ${result.doc_id} in "${db_name ?? defaultDb}" as ${plural(result.chunk_count, "chunk")}, ${
          result.embedded ? "embedded" : "pending embedding"
        }.`,
        ...result.warnings.map((w) => `Warning: ${w}`),
      ].join("\n"),
  });
}
