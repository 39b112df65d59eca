import type { CollectionInfo, DocDB } from "@docdb/core";
import { z } from "zod/v4";
import { currentCaller } from "../auth/current.js";
import { scopedDocDB } from "../auth/scope.js";
import { defineTool } from "../tool.js";
import { plural } from "../tools/context.js";
import { budgetArguments, budgetSchema } from "../tools/find-similar-documents.js";
import { collectionToolName } from "./names.js";

export const MAX_COLLECTION_TOP_K = 50;

const passageSchema = z.object({
  path: z.string().describe("File path relative to the collection's folder"),
  line_start: z.number().int().optional().describe("First line of the passage in the file (1-based)"),
  line_end: z.number().int().optional().describe("Last line of the passage in the file"),
  heading: z.string().optional().describe("Markdown headings or code declarations the passage sits under"),
  language: z.string().optional().describe("Code: the language of the passage"),
  symbol: z.string().optional().describe("Code: the declaration the passage holds, as a path (PaymentService.retryCharge)"),
  symbol_kind: z.string().optional().describe("Code: what the symbol is (function, class, method, interface, type…)"),
  text: z.string().optional().describe("The passage; absent with include_text false or when the budget ran out"),
  truncated: z.boolean().optional().describe("The text was cut or left out to fit max_chars: get_document with start/end reads it"),
  score: z.number().describe("0-1, higher is better"),
  doc_id: z.string(),
  chunk_id: z.string(),
  chunk_ids: z.array(z.string()).describe("Every chunk the passage covers (neighbouring hits are merged)"),
  start: z.number().int().describe("Character offset of the passage in the file (get_document start)"),
  end: z.number().int().describe("End offset, exclusive (get_document end)"),
  stale: z.boolean().optional().describe("True when the file changed after it was imported: re-read the file to be sure"),
  note: z.string().optional(),
});

/**
 * `search_<name>`: searches one collection. Its description is the collection's own, written
 * by whoever added it for exactly this purpose: telling an agent when this tool is the one.
 */
export function collectionSearchTool(docdb: DocDB, dbName: string, collection: CollectionInfo) {
  const name = collection.name;
  return defineTool({
    name: collectionToolName(name),
    title: `Search ${name}`,
    description: collection.description,
    input: z.strictObject({
      query: z.string().describe("What to look for: a question or a few words, in any language"),
      top_k: z
        .number()
        .int()
        .min(1)
        .max(MAX_COLLECTION_TOP_K)
        .optional()
        .describe(`How many passages, 1-${MAX_COLLECTION_TOP_K}. Default 5`),
      path: z.string().optional().describe('Only files whose path starts with this, e.g. "src/auth/" or "guide/"'),
      language: z.string().optional().describe('Only code in this language, e.g. "python", "typescript", "go"'),
      symbol_kind: z
        .array(z.string())
        .optional()
        .describe('Only code passages holding these kinds of declarations, e.g. ["function", "method"] or ["class", "interface"]'),
      ...budgetArguments,
    }),
    output: z.object({
      collection: z.string(),
      results: z.array(passageSchema),
      warnings: z.array(z.string()),
      budget: budgetSchema,
      note: z.string().optional(),
    }),
    annotations: { readOnlyHint: true, openWorldHint: false },
    run: async ({ query, top_k, path, language, symbol_kind, max_chars, include_text }) => {
      const db = await scopedDocDB(docdb, currentCaller()).database(dbName);
      const filter = {
        ...(language !== undefined ? { language } : {}),
        ...(symbol_kind !== undefined ? { symbol_kind: { $in: symbol_kind } } : {}),
      };
      // A disabled collection is refused by core (NOT_FOUND), as everywhere else.
      const found = await db.findSimilar({
        query,
        top_k: top_k ?? 5,
        path_prefix: path,
        collection: name,
        filter: Object.keys(filter).length > 0 ? filter : undefined,
        max_chars,
        include_text,
      });
      return {
        collection: name,
        results: found.results.map((r) => ({
          path: r.source ?? "",
          ...(r.line_start !== undefined ? { line_start: r.line_start } : {}),
          ...(r.line_end !== undefined ? { line_end: r.line_end } : {}),
          ...(r.heading ? { heading: r.heading } : {}),
          ...(r.language ? { language: r.language } : {}),
          ...(r.symbol ? { symbol: r.symbol } : {}),
          ...(r.symbol_kind ? { symbol_kind: r.symbol_kind } : {}),
          ...(r.text !== undefined ? { text: r.text } : {}),
          ...(r.truncated ? { truncated: true } : {}),
          score: r.score,
          doc_id: r.doc_id,
          chunk_id: r.chunk_id,
          chunk_ids: r.chunk_ids,
          start: r.start,
          end: r.end,
          ...(r.stale ? { stale: true, note: r.note } : {}),
        })),
        warnings: found.warnings,
        budget: found.budget,
        ...(found.note ? { note: found.note } : {}),
      };
    },
    render: ({ results, warnings, note }, { query }) => {
      const header = `${plural(results.length, "passage")} in ${name} for ${JSON.stringify(query)}`;
      const lines = results.map((r, i) => {
        const where = r.line_start !== undefined ? `${r.path}:${r.line_start}-${r.line_end}` : r.path;
        const stale = r.stale ? `\n(stale: ${r.note})` : "";
        const about = r.symbol ? `  ${r.symbol}${r.symbol_kind ? ` (${r.symbol_kind})` : ""}` : r.heading ? `  § ${r.heading}` : "";
        return `${i + 1}. ${where}${about}  score ${r.score.toFixed(3)}${stale}${r.text !== undefined ? `\n${r.text}${r.truncated ? " […]" : ""}` : ""}`;
      });
      return [header, ...warnings.map((w) => `Warning: ${w}`), ...(note ? [`Note: ${note}`] : []), ...lines].join("\n\n");
    },
  });
}
