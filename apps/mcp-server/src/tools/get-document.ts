import { z } from "zod/v4";
import { defineTool } from "../tool.js";
import { dbNameArgument, docIdArgument, plural, type ToolsContext } from "./context.js";

const chunkSchema = z.object({
  chunk_id: z.string(),
  index: z.number().int(),
  start: z.number().int().describe("Character offset in the document"),
  end: z.number().int(),
  embedded: z.boolean(),
  line_start: z.number().int().optional(),
  line_end: z.number().int().optional(),
});

export function getDocumentTool({ docdb, defaultDb }: ToolsContext) {
  return defineTool({
    name: "get_document",
    title: "Get a document",
    description: "Return one document: its full text, title, metadata and the character offsets of its chunks.",
    input: z.strictObject({ doc_id: docIdArgument, db_name: dbNameArgument(defaultDb) }),
    output: z.object({
      doc_id: z.string(),
      title: z.string().nullable(),
      source: z.string().nullable(),
      text: z.string(),
      metadata: z.record(z.string(), z.unknown()),
      collection: z.string().nullable(),
      created_at: z.string(),
      updated_at: z.string(),
      chunks: z.array(chunkSchema),
    }),
    annotations: { readOnlyHint: true, openWorldHint: false },
    run: async ({ doc_id, db_name }) => (await docdb.database(db_name ?? defaultDb)).getDocument(doc_id),
    render: (doc) =>
      [
        `Document ${doc.doc_id}${doc.title ? ` "${doc.title}"` : ""}${doc.source ? ` from ${doc.source}` : ""}`,
        `${plural(doc.chunks.length, "chunk")}, ${doc.text.length} characters, created ${doc.created_at}, metadata ${JSON.stringify(doc.metadata)}`,
        "",
        doc.text,
      ].join("\n"),
  });
}
