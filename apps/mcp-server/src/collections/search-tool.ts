import type { CollectionInfo, DocDB } from "@docdb/core";
import { z } from "zod/v4";
import { defineTool } from "../tool.js";
import { plural } from "../tools/context.js";

export const COLLECTION_TOOL_PREFIX = "search_";
export const MAX_COLLECTION_TOP_K = 50;

export function collectionToolName(collection: string): string {
  return `${COLLECTION_TOOL_PREFIX}${collection}`;
}

const passageSchema = z.object({
  path: z.string().describe("File path relative to the collection's folder"),
  line_start: z.number().int().optional().describe("First line of the passage in the file (1-based)"),
  line_end: z.number().int().optional().describe("Last line of the passage in the file"),
  heading: z.string().optional().describe("Markdown headings or code declarations the passage sits under"),
  text: z.string().describe("The passage"),
  score: z.number().describe("Higher is better"),
  doc_id: z.string(),
  chunk_id: z.string(),
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
    }),
    output: z.object({
      collection: z.string(),
      results: z.array(passageSchema),
      warnings: z.array(z.string()),
    }),
    annotations: { readOnlyHint: true, openWorldHint: false },
    run: async ({ query, top_k, path }) => {
      const db = await docdb.database(dbName);
      // A disabled collection is refused by core (NOT_FOUND), as everywhere else.
      const found = await db.findSimilar({ query, top_k: top_k ?? 5, path_prefix: path, collection: name });
      return {
        collection: name,
        results: found.results.map((r) => ({
          path: r.source ?? "",
          ...(r.line_start !== undefined ? { line_start: r.line_start } : {}),
          ...(r.line_end !== undefined ? { line_end: r.line_end } : {}),
          ...(r.heading ? { heading: r.heading } : {}),
          text: r.text,
          score: r.score,
          doc_id: r.doc_id,
          chunk_id: r.chunk_id,
          ...(r.stale ? { stale: true, note: r.note } : {}),
        })),
        warnings: found.warnings,
      };
    },
    render: ({ results, warnings }, { query }) => {
      const header = `${plural(results.length, "passage")} in ${name} for ${JSON.stringify(query)}`;
      const lines = results.map((r, i) => {
        const where = r.line_start !== undefined ? `${r.path}:${r.line_start}-${r.line_end}` : r.path;
        const stale = r.stale ? `\n(stale: ${r.note})` : "";
        return `${i + 1}. ${where}${r.heading ? `  § ${r.heading}` : ""}  score ${r.score.toPrecision(4)}${stale}\n${r.text}`;
      });
      return [header, ...warnings.map((w) => `Warning: ${w}`), ...lines].join("\n\n");
    },
  });
}
