import { DEFAULT_MAX_CHARS, describeLocator, MAX_MAX_CHARS, SEARCH_MODES } from "@docdb/core";
import { z } from "zod/v4";
import { defineTool } from "../tool.js";
import { databaseFor, dbNameArgument, plural, type ToolsContext } from "./context.js";

export const MAX_TOP_K = 100;

/** Where an extracted chunk or passage starts in its file. */
export const locatorSchema = z
  .object({
    page: z.number().int().optional(),
    slide: z.number().int().optional(),
    sheet: z.string().optional(),
    row: z.number().int().optional(),
    section: z.string().optional(),
  })
  .describe("Extracted documents: where it starts in the original file (PDF page, slide, sheet and row, section)");

export const passageSchema = z.object({
  chunk_id: z.string().describe("The passage's best-scoring chunk"),
  chunk_ids: z.array(z.string()).describe("Every chunk the passage covers (neighbouring hits of one document are merged)"),
  doc_id: z.string(),
  text: z.string().optional().describe("The passage; absent with include_text false or when the budget ran out"),
  truncated: z.boolean().optional().describe("The text was cut or left out to fit max_chars: get_document with start/end reads it"),
  score: z.number().describe("0-1, higher is better (with rerank: the reranker's relevance)"),
  retrieval_score: z.number().optional().describe("With rerank: the search's own score before reranking"),
  distance: z.number().optional().describe("Cosine distance, when vector search produced the result"),
  start: z.number().int().describe("Character offset of the passage in the document (get_document start)"),
  end: z.number().int().describe("End offset, exclusive (get_document end)"),
  metadata: z.record(z.string(), z.unknown()),
  title: z.string().optional(),
  source: z.string().optional(),
  heading: z.string().optional(),
  line_start: z.number().int().optional(),
  line_end: z.number().int().optional(),
  language: z.string().optional().describe("Code: the language of the passage"),
  symbol: z.string().optional().describe("Code: the declaration the passage holds, as a path (PaymentService.retryCharge)"),
  symbol_kind: z.string().optional().describe("Code: what the symbol is (function, class, method, interface, type…)"),
  locator: locatorSchema.optional(),
  collection: z.string().optional(),
  stale: z.boolean().optional(),
  note: z.string().optional(),
});

export const budgetSchema = z.object({
  max_chars: z.number().int(),
  chars: z.number().int().describe("Characters of passage text in this answer"),
  cut: z.number().int().describe("Passages cut to fit"),
  omitted: z.number().int().describe("Passages returned without text to fit"),
});

export const budgetArguments = {
  max_chars: z
    .number()
    .int()
    .min(0)
    .max(MAX_MAX_CHARS)
    .optional()
    .describe(
      `Budget: total characters of passage text in the answer (default ${DEFAULT_MAX_CHARS}); passages beyond it are cut or returned as references`,
    ),
  include_text: z
    .boolean()
    .optional()
    .describe("false: references only (doc_id, offsets, lines, score), no text; expand one with get_document. Default true"),
};

/** Human lines for passages, shared by the search tools. */
export function renderPassages(results: z.input<typeof passageSchema>[]): string[] {
  return results.map((r, i) => {
    const about = r.symbol ? `${r.symbol}${r.symbol_kind ? ` (${r.symbol_kind})` : ""}` : r.heading ? `§ ${r.heading}` : "";
    const where = [r.title ? `"${r.title}"` : "", r.source ?? "", about].filter(Boolean).join(" ");
    const distance = r.distance !== undefined ? ` distance ${r.distance.toPrecision(4)}` : "";
    const lines = r.locator ? ` ${describeLocator(r.locator)}` : r.line_start !== undefined ? ` lines ${r.line_start}-${r.line_end}` : "";
    const merged = r.chunk_ids.length > 1 ? ` (${r.chunk_ids.length} chunks merged)` : "";
    const text = r.text === undefined ? (r.truncated ? "[text left out to fit the budget]" : "") : `${r.text}${r.truncated ? " […]" : ""}`;
    return `${i + 1}. score ${r.score.toFixed(3)}${distance}  doc ${r.doc_id}  chars ${r.start}-${r.end}${lines}${merged}${where ? `  ${where}` : ""}${r.stale ? `  stale: ${r.note}` : ""}${text ? `\n${text}` : ""}`;
  });
}

export function findSimilarDocumentsTool(context: ToolsContext) {
  const { defaultDb } = context;
  return defineTool({
    name: "find_similar_documents",
    title: "Find passages",
    description:
      "Find the passages that best answer a query, in any language. mode hybrid (default) fuses meaning and keywords; " +
      "vector uses meaning only (needs an embedding model); keyword uses words only. " +
      "Returns passages (overlapping or neighbouring chunks of one document merged into one) with doc_id, score (0-1, higher is better), " +
      `character offsets and lines, within a budget of max_chars characters of text (default ${DEFAULT_MAX_CHARS}). ` +
      "With include_text false only references come back; read a passage with get_document and its start/end.",
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
          "Filter on metadata (dots reach nested keys), document fields (title, source, collection, created_at, updated_at), code chunk fields (language, symbol, symbol_kind) and where an extracted chunk starts (locator.page, locator.slide, locator.sheet, locator.row, locator.section), MongoDB-style: " +
            '{"lang":"ja","year":{"$gte":2020},"tags":{"$in":["a","b"]},"created_at":{"$gte":"2026-11-01"},"source":{"$prefix":"docs/"}}. ' +
            "Operators: $eq $ne $gt $gte $lt $lte $in $nin $exists $prefix, combined with $and $or $not. A plain value means equal; an array means any of",
        ),
      threshold: z
        .number()
        .min(0)
        .max(1)
        .optional()
        .describe("Drop results scoring below this; scores are 0-1 in every mode, higher is better"),
      rerank: z
        .boolean()
        .optional()
        .describe(
          "Reorder the best 50 candidates with a cross-encoder reranker (slower, usually more precise); its 0-1 relevance becomes the score. Fails with RERANKER_UNAVAILABLE when none is set up",
        ),
      exact: z
        .boolean()
        .optional()
        .describe("Exact vector search even where an approximate index answers (slower on large databases). Default false"),
      ...budgetArguments,
    }),
    output: z.object({
      results: z.array(passageSchema),
      mode: z.enum(SEARCH_MODES as [string, ...string[]]),
      warnings: z.array(z.string()).describe("E.g. keyword results only, because no embedding model is configured"),
      reranked_by: z.string().optional().describe("With rerank: provider/model of the reranker"),
      budget: budgetSchema,
      note: z.string().optional().describe("What the budget left out, when it did"),
    }),
    annotations: { readOnlyHint: true, openWorldHint: false },
    run: async ({ text, top_k, db_name, mode, filter, threshold, rerank, max_chars, include_text, exact }) =>
      (await databaseFor(context, db_name)).findSimilar({
        query: text,
        top_k,
        mode: mode as (typeof SEARCH_MODES)[number] | undefined,
        filter,
        threshold,
        ...(rerank ? { rerank: true } : {}),
        max_chars,
        include_text,
        exact,
      }),
    render: ({ results, mode, warnings, note, reranked_by }, { text, db_name }) => {
      const how = reranked_by ? `${mode}, reranked by ${reranked_by}` : mode;
      const header = `${plural(results.length, "passage")} for ${JSON.stringify(text)} (${how}, database "${db_name ?? defaultDb}")`;
      return [header, ...warnings.map((w) => `Warning: ${w}`), ...(note ? [`Note: ${note}`] : []), ...renderPassages(results)].join("\n\n");
    },
  });
}
