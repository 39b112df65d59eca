import { z } from "zod/v4";
import { defineTool } from "../tool.js";
import { databaseFor, dbNameArgument, docIdArgument, plural, type ToolsContext } from "./context.js";
import { locatorSchema } from "./find-similar-documents.js";

const chunkSchema = z.object({
  chunk_id: z.string(),
  index: z.number().int(),
  start: z.number().int().describe("Character offset in the document"),
  end: z.number().int(),
  embedded: z.boolean(),
  line_start: z.number().int().optional(),
  line_end: z.number().int().optional(),
  locator: locatorSchema.optional(),
});

export function getDocumentTool(context: ToolsContext) {
  const { defaultDb } = context;
  return defineTool({
    name: "get_document",
    title: "Get a document",
    description:
      "Return one document: its text, title, metadata and the offsets of its chunks. To read only part of it (e.g. around a " +
      "search hit), give start/end (character offsets, end exclusive) or line_start/line_end (1-based, inclusive); for a PDF " +
      "(or slide deck), page reads one page (slide).",
    input: z.strictObject({
      doc_id: docIdArgument,
      db_name: dbNameArgument(defaultDb),
      start: z.number().int().min(0).optional().describe("First character to return (a passage's start)"),
      end: z.number().int().min(0).optional().describe("Character after the last one to return (a passage's end); clamped to the length"),
      line_start: z.number().int().min(1).optional().describe("First line to return, 1-based (instead of start/end)"),
      line_end: z.number().int().min(1).optional().describe("Last line to return, inclusive; clamped to the last line"),
      page: z
        .number()
        .int()
        .min(1)
        .optional()
        .describe("A PDF's page (a deck's slide), 1-based: the chunks holding its text (instead of a range)"),
    }),
    output: z.object({
      doc_id: z.string(),
      title: z.string().nullable(),
      source: z.string().nullable(),
      text: z.string().describe("The whole text, or just the requested range"),
      length: z.number().int().describe("Characters in the whole document"),
      lines: z.number().int().describe("Lines in the whole document"),
      range: z
        .object({ start: z.number().int(), end: z.number().int(), line_start: z.number().int(), line_end: z.number().int() })
        .optional()
        .describe("The part returned, when a range was asked for"),
      page: z
        .object({ number: z.number().int(), of: z.number().int() })
        .optional()
        .describe("The page returned and the document's page count"),
      metadata: z.record(z.string(), z.unknown()),
      collection: z.string().nullable(),
      created_at: z.string(),
      updated_at: z.string(),
      chunks: z.array(chunkSchema),
    }),
    annotations: { readOnlyHint: true, openWorldHint: false },
    run: async ({ doc_id, db_name, start, end, line_start, line_end, page }) =>
      (await databaseFor(context, db_name)).getDocument(doc_id, { start, end, line_start, line_end, page }),
    render: (doc) =>
      [
        `Document ${doc.doc_id}${doc.title ? ` "${doc.title}"` : ""}${doc.source ? ` from ${doc.source}` : ""}`,
        `${plural(doc.chunks.length, "chunk")}, ${doc.length} characters, ${plural(doc.lines, "line")}, created ${doc.created_at}, metadata ${JSON.stringify(doc.metadata)}`,
        ...(doc.page ? [`Showing page ${doc.page.number} of ${doc.page.of}`] : []),
        ...(doc.range && !doc.page
          ? [`Showing characters ${doc.range.start}-${doc.range.end} (lines ${doc.range.line_start}-${doc.range.line_end})`]
          : []),
        "",
        doc.text,
      ].join("\n"),
  });
}
