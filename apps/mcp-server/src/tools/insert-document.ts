import { z } from "zod/v4";
import { defineTool } from "../tool.js";
import { databaseFor, dbNameArgument, plural, type ToolsContext } from "./context.js";

export function insertDocumentTool(context: ToolsContext) {
  const { defaultDb } = context;
  return defineTool({
    name: "insert_document",
    title: "Insert a document",
    description:
      "Store a document: docdb splits it into chunks, indexes its words and embeds it when a model is configured. " +
      "Japanese, English, Markdown and code all work. Text up to 100,000 characters; split longer texts. " +
      "The default database is created when missing; another db_name must exist (create_database). Returns the doc_id to get or delete it later.",
    input: z.strictObject({
      text: z.string().describe("The document's text (non-empty, at most 100,000 characters)"),
      metadata: z
        .record(z.string(), z.unknown())
        .optional()
        .describe('A JSON object stored with the document and usable as a search filter, e.g. {"lang":"ja","team":"search"}'),
      db_name: dbNameArgument(defaultDb),
      title: z.string().optional().describe("A title (at most 1000 characters); keyword search weighs it higher"),
      key: z
        .string()
        .optional()
        .describe(
          'Your own unique key, e.g. "notes/2026-11-22-standup": storing again under the same key replaces that document (same doc_id)',
        ),
    }),
    output: z.object({
      doc_id: z.string(),
      chunk_count: z.number().int(),
      replaced: z.boolean().describe("True when a document with the same key was replaced"),
      reused_vectors: z.number().int().describe("Chunks of the replaced document whose vectors were kept (their text did not change)"),
      embedded: z.boolean().describe("False when the chunks wait for an embedding model; keyword search finds them meanwhile"),
      warnings: z.array(z.string()),
    }),
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    run: async ({ text, metadata, db_name, title, key }) =>
      (await databaseFor(context, db_name, { write: true })).insertDocument({ text, metadata, title, key }),
    render: (result, { db_name }) =>
      [
        `${result.replaced ? "Replaced" : "Stored"} document ${result.doc_id} in "${db_name ?? defaultDb}" as ${plural(result.chunk_count, "chunk")}, ${
          result.embedded ? "embedded" : "pending embedding"
        }.`,
        ...result.warnings.map((w) => `Warning: ${w}`),
      ].join("\n"),
  });
}
