import { SEARCH_MODES } from "@docdb/core";
import { z } from "zod/v4";
import { defineTool } from "../tool.js";
import { dbNameArgument, plural, type ToolsContext } from "./context.js";

export const MAX_TOP_K = 100;

const resultSchema = z.object({
  chunk_id: z.string(),
  doc_id: z.string(),
  text: z.string().describe("The passage"),
  score: z.number().describe("Higher is better"),
  distance: z.number().optional().describe("Cosine distance, when vector search produced the result"),
  start: z.number().int().describe("Character offset of the passage in the document"),
  end: z.number().int(),
  metadata: z.record(z.string(), z.unknown()),
  title: z.string().optional(),
  source: z.string().optional(),
  heading: z.string().optional(),
  line_start: z.number().int().optional(),
  line_end: z.number().int().optional(),
});

export function findSimilarDocumentsTool({ docdb, defaultDb }: ToolsContext) {
  return defineTool({
    name: "find_similar_documents",
    title: "Find passages",
    description:
      "Find the passages that best answer a query, in any language. mode hybrid (default) fuses meaning and keywords; " +
      "vector uses meaning only (needs an embedding model); keyword uses words only. " +
      "Returns chunks with their doc_id, score (higher is better), character offsets and metadata.",
    input: z.strictObject({
      text: z.string().describe("The query: a question or a few words"),
      top_k: z.number().int().min(1).max(MAX_TOP_K).optional().describe(`How many passages, 1-${MAX_TOP_K}. Default 10`),
      db_name: dbNameArgument(defaultDb),
      mode: z
        .enum(SEARCH_MODES as [string, ...string[]])
        .optional()
        .describe("hybrid (default), vector or keyword"),
      filter: z
        .record(z.string(), z.unknown())
        .optional()
        .describe(
          "Filter on metadata (dots reach nested keys) and document fields (title, source, collection, created_at, updated_at), MongoDB-style: " +
            '{"lang":"ja","year":{"$gte":2020},"tags":{"$in":["a","b"]},"created_at":{"$gte":"2026-11-01"},"source":{"$prefix":"docs/"}}. ' +
            "Operators: $eq $ne $gt $gte $lt $lte $in $nin $exists $prefix, combined with $and $or $not. A plain value means equal; an array means any of",
        ),
      threshold: z
        .number()
        .min(0)
        .max(1)
        .optional()
        .describe("Drop results scoring below this; scores are 0-1 in every mode, higher is better"),
      exact: z
        .boolean()
        .optional()
        .describe("Exact vector search even where an approximate index answers (slower on large databases). Default false"),
    }),
    output: z.object({
      results: z.array(resultSchema),
      mode: z.enum(SEARCH_MODES as [string, ...string[]]),
      warnings: z.array(z.string()).describe("E.g. keyword results only, because no embedding model is configured"),
    }),
    annotations: { readOnlyHint: true, openWorldHint: false },
    run: async ({ text, top_k, db_name, mode, filter, threshold, exact }) =>
      (await docdb.database(db_name ?? defaultDb)).findSimilar({
        query: text,
        top_k,
        mode: mode as (typeof SEARCH_MODES)[number] | undefined,
        filter,
        threshold,
        exact,
      }),
    render: ({ results, mode, warnings }, { text, db_name }) => {
      const header = `${plural(results.length, "result")} for ${JSON.stringify(text)} (${mode}, database "${db_name ?? defaultDb}")`;
      const lines = results.map((r, i) => {
        const where = [r.title ? `"${r.title}"` : "", r.source ?? "", r.heading ? `§ ${r.heading}` : ""].filter(Boolean).join(" ");
        const distance = r.distance !== undefined ? ` distance ${r.distance.toPrecision(4)}` : "";
        return `${i + 1}. score ${r.score.toPrecision(4)}${distance}  doc ${r.doc_id}  chars ${r.start}-${r.end}${where ? `  ${where}` : ""}\n${r.text}`;
      });
      return [header, ...warnings.map((w) => `Warning: ${w}`), ...lines].join("\n\n");
    },
  });
}
