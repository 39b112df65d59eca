// The page's search: core's find, plus why each passage ranked where it did (its keyword rank,
// vector rank and fused score), the words to highlight, and the time the query took.
import { performance } from "node:perf_hooks";
import { type Database, DocDBError, type FindInput, MAX_TOP_K, SEARCH_MODES, type SearchMode, type SearchResult } from "@docdb/core";
import { objectBody, optionalString } from "./input.js";

/** The words of a query the page marks in passages: runs of letters/digits, CJK runs also as pairs. */
export function queryTerms(query: string): string[] {
  const terms = new Set<string>();
  for (const word of query
    .normalize("NFKC")
    .toLowerCase()
    .split(/[^\p{L}\p{N}_]+/u)) {
    if (!word) continue;
    terms.add(word);
    if (/^[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]{3,}$/u.test(word)) {
      for (let i = 0; i + 2 <= word.length; i++) terms.add(word.slice(i, i + 2));
    }
  }
  return [...terms].slice(0, 64);
}

function parseFilterText(value: unknown): Record<string, unknown> | undefined {
  if (value === undefined || value === null || value === "") return undefined;
  if (typeof value === "string") {
    try {
      return objectBody(JSON.parse(value));
    } catch (error) {
      throw new DocDBError("INVALID_REQUEST", `filter is not a JSON object: ${(error as Error).message.slice(0, 200)}`);
    }
  }
  return objectBody(value);
}

/** Rank (1-based) of each chunk in one retrieval mode, or undefined when that mode cannot run. */
async function ranksOf(db: Database, input: FindInput, mode: SearchMode): Promise<Map<string, number> | undefined> {
  try {
    const found = await db.findSimilar({ ...input, mode, top_k: MAX_TOP_K, merge: false, include_text: false, rerank: false });
    return new Map(found.results.map((r, i) => [r.chunk_id, i + 1]));
  } catch {
    return undefined;
  }
}

function bestRank(ranks: Map<string, number> | undefined, result: SearchResult): number | null {
  if (!ranks) return null;
  let best: number | null = null;
  for (const id of result.chunk_ids.length > 0 ? result.chunk_ids : [result.chunk_id]) {
    const rank = ranks.get(id);
    if (rank !== undefined && (best === null || rank < best)) best = rank;
  }
  return best;
}

/** Body: query, mode, top_k, collection, filter (object or JSON text), explain (default true). */
export async function searchExplained(db: Database, body: Record<string, unknown>): Promise<unknown> {
  const query = optionalString(body.query, "query");
  if (query === undefined) throw new DocDBError("INVALID_REQUEST", "query is required");
  const mode = (optionalString(body.mode, "mode") ?? "hybrid") as SearchMode;
  if (!SEARCH_MODES.includes(mode)) throw new DocDBError("INVALID_REQUEST", `mode must be one of ${SEARCH_MODES.join(", ")}`);
  const input: FindInput = { query, mode };
  if (body.top_k !== undefined && body.top_k !== null && body.top_k !== "") input.top_k = Number(body.top_k);
  const collection = optionalString(body.collection, "collection");
  if (collection !== undefined) input.collection = collection;
  const filter = parseFilterText(body.filter);
  if (filter !== undefined) input.filter = filter;

  const started = performance.now();
  const found = await db.findSimilar(input);
  const tookMs = performance.now() - started;

  let keyword: Map<string, number> | undefined;
  let vector: Map<string, number> | undefined;
  if (mode === "hybrid" && body.explain !== false) {
    [keyword, vector] = await Promise.all([ranksOf(db, input, "keyword"), ranksOf(db, input, "vector")]);
  }
  const own = new Map(found.results.map((r, i) => [r.chunk_id, i + 1]));
  const results = found.results.map((r) => ({
    ...r,
    why: {
      keyword_rank: mode === "keyword" ? bestRank(own, r) : bestRank(keyword, r),
      vector_rank: mode === "vector" ? bestRank(own, r) : bestRank(vector, r),
      fused: mode === "hybrid" ? r.score : null,
    },
  }));
  return {
    query,
    mode: found.mode,
    results,
    terms: queryTerms(query),
    warnings: found.warnings,
    took_ms: Math.round(tookMs * 10) / 10,
    budget: found.budget,
  };
}
