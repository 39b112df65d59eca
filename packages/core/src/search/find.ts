// Finding passages for a query (findSimilar): input checks, retrieval, optional reranking,
// passages merged per document, stale marks and the character budget; and the plain chunk
// search agent memory uses.
import type { ChunkHit, Filter } from "@docdb/store";
import { markStale } from "../collections/stale.js";
import type { DatabaseContext } from "../database/context.js";
import { DocDBError, echo } from "../errors.js";
import { RERANK_CANDIDATES } from "../reranker.js";
import type { FindInput, FindResult, SearchMode, SearchResult } from "../types.js";
import { SEARCH_MODES } from "../types.js";
import { MAX_QUERY_LENGTH, validateText, validateTopK } from "../validate.js";
import { namedSymbol } from "./definitions.js";
import { searchFilter } from "./filters.js";
import type { Candidate } from "./fusion.js";
import { describeBudget, firstPassages, fitBudget, groupPassages, type RankedHit, toPassage, validateMaxChars } from "./passages.js";
import { requireReranker, rerank } from "./rerank.js";
import { chunkHitsOf, modelRecord, type RetrieveMemo, retrieve } from "./retrieve.js";

/** The scored hits of candidates kept in their order (those whose chunk is gone are left out). */
function scoredHits(kept: Candidate[], hits: Map<string, ChunkHit>): RankedHit[] {
  const scored: RankedHit[] = [];
  for (const r of kept) {
    const hit = hits.get(r.chunkId);
    if (hit) scored.push(r.distance !== undefined ? { hit, score: r.score, distance: r.distance } : { hit, score: r.score });
  }
  return scored;
}

/** Retrievals of one find at most (each asks for 4 times as many candidates as the last), besides a first narrow one. */
const MAX_RETRIEVE_ROUNDS = 3;

type FirstPassages = ReturnType<typeof firstPassages>;

/**
 * The hits of the first `count` passages among ranked candidates (see firstPassages), reading
 * the chunks as far down the ranking as needed (a batch at a time, into `prefetched`). When the
 * search read them all (a vector find's usual case), the answer comes without a pause.
 */
function firstPassagesOf(
  ctx: DatabaseContext,
  ranked: Candidate[],
  count: number,
  merge: boolean,
  prefetched: Map<string, ChunkHit>,
): FirstPassages | Promise<FirstPassages> {
  const read = Math.min(ranked.length, count);
  const head = read === ranked.length ? ranked : ranked.slice(0, read);
  if (!head.every((r) => prefetched.has(r.chunkId))) return readPassages(ctx, ranked, count, merge, prefetched, read);
  const first = firstPassages(scoredHits(head, prefetched), count, merge);
  if (first.complete || read >= ranked.length) return first;
  return readPassages(ctx, ranked, count, merge, prefetched, Math.min(ranked.length, read + Math.max(count, 10)));
}

/** firstPassagesOf from the first `read` candidates on, reading chunks the search did not. */
async function readPassages(
  ctx: DatabaseContext,
  ranked: Candidate[],
  count: number,
  merge: boolean,
  prefetched: Map<string, ChunkHit>,
  from: number,
): Promise<FirstPassages> {
  let read = from;
  for (;;) {
    const head = read === ranked.length ? ranked : ranked.slice(0, read);
    // Read with the search (a vector find's usual case): no call, no wait.
    const hits = head.every((r) => prefetched.has(r.chunkId))
      ? prefetched
      : await chunkHitsOf(
          ctx,
          head.map((r) => r.chunkId),
          prefetched,
        );
    if (hits !== prefetched) for (const [id, hit] of hits) prefetched.set(id, hit);
    const first = firstPassages(scoredHits(head, hits), count, merge);
    if (first.complete || read >= ranked.length) return first;
    read = Math.min(ranked.length, read + Math.max(count, 10));
  }
}

/** The options of a find, validated. */
function validateFind(ctx: DatabaseContext, input: FindInput, maxTopK: number | undefined) {
  if (typeof input !== "object" || input === null) throw new DocDBError("INVALID_REQUEST", "find needs an object with a query");
  const query = validateText(input.query, MAX_QUERY_LENGTH, "query");
  const topK = validateTopK(input.top_k, maxTopK);
  const mode: SearchMode = input.mode ?? "hybrid";
  if (!SEARCH_MODES.includes(mode))
    throw new DocDBError("INVALID_REQUEST", `mode must be one of ${SEARCH_MODES.join(", ")}, got "${echo(mode)}"`);
  if (input.threshold !== undefined && (typeof input.threshold !== "number" || !(input.threshold >= 0 && input.threshold <= 1))) {
    throw new DocDBError("INVALID_REQUEST", "threshold must be a number from 0 to 1 (scores are 0–1, higher is better)");
  }
  if (input.rerank !== undefined && typeof input.rerank !== "boolean")
    throw new DocDBError("INVALID_REQUEST", "rerank must be true or false");
  const reranker = input.rerank === true ? requireReranker(ctx) : undefined;
  const maxChars = validateMaxChars(input.max_chars);
  if (input.include_text !== undefined && typeof input.include_text !== "boolean") {
    throw new DocDBError("INVALID_REQUEST", "include_text must be true or false");
  }
  if (input.merge !== undefined && typeof input.merge !== "boolean") throw new DocDBError("INVALID_REQUEST", "merge must be true or false");
  return { query, topK, mode, reranker, maxChars, includeText: input.include_text !== false, merge: input.merge !== false };
}

/**
 * Finds the passages that answer a query: by keywords, by meaning (vectors), or both fused
 * (`hybrid`, the default). Filters apply before `top_k` is cut; scores are 0–1 in every mode.
 * Without a usable model, hybrid falls back to keywords with a warning; vector mode fails.
 */
export async function findSimilar(ctx: DatabaseContext, input: FindInput, limits?: { maxTopK: number }): Promise<FindResult> {
  const started = performance.now();
  const { query, topK, mode, reranker, maxChars, includeText, merge } = validateFind(ctx, input, limits?.maxTopK);
  const memo: RetrieveMemo = {};
  // The model record in the same synchronous stretch as the memory check's change token (modelRecord).
  const [filter] = await Promise.all([searchFilter(ctx, input), mode !== "keyword" ? modelRecord(ctx, memo) : undefined]);
  let warnings: string[] = [];
  // Fetch more than top_k when fusion or a threshold may drop some, merging may join some, or a
  // reranker reorders them.
  const candidates = Math.max(topK, RERANK_CANDIDATES);
  let fetch = mode === "hybrid" || input.threshold !== undefined ? Math.max(topK * 4, 50) : merge ? topK * 2 : topK;
  if (reranker) fetch = Math.max(fetch, candidates);
  // An unfiltered vector find asks for top_k first: unless neighbours merge, those are the
  // answer, and the store checks and reads top_k hits, not twice as many. Otherwise it asks for
  // top_k × 2 next (an engine may keep the graph's answer to the same query: see LastSearch in
  // store-sqlite), then 4 times more each round. A filtered approximate search is left as it was:
  // an engine may over-fetch by `limit`, so its first hits could depend on it.
  const narrowFirst = mode === "vector" && merge && !reranker && input.threshold === undefined && filter === undefined;
  if (narrowFirst) fetch = topK;
  const rounds = MAX_RETRIEVE_ROUNDS + (narrowFirst ? 1 : 0);

  const prefetched = new Map<string, ChunkHit>();
  let more = false;
  const retrieveAll = async () => {
    warnings = [];
    return retrieve(
      ctx,
      query,
      {
        mode,
        fetch,
        filter,
        exact: input.exact === true,
        memo,
        // The chunks read first: the reranker's pool, or top_k (merging neighbours may read more).
        reads: reranker ? candidates : topK,
        onCounts: (n) => (more = n.keyword >= fetch || n.vector >= fetch),
      },
      warnings,
      prefetched,
    );
  };
  let ranked = await retrieveAll();
  let scored: RankedHit[];
  let groups: ReturnType<typeof firstPassages>["groups"];
  let retrievalScores: Map<string, number> | undefined;
  if (reranker) {
    const pool = ranked.slice(0, candidates);
    const hits = await chunkHitsOf(
      ctx,
      pool.map((r) => r.chunkId),
      prefetched,
    );
    const found = pool.flatMap((r) => {
      const hit = hits.get(r.chunkId);
      return hit ? [{ hit, retrieval: r }] : [];
    });
    const scores = await rerank(
      ctx,
      reranker,
      query,
      found.map((f) => f.hit),
    );
    retrievalScores = new Map(found.map((f) => [f.hit.id, f.retrieval.score]));
    scored = found
      .map((f, i) => ({
        hit: f.hit,
        score: scores[i] as number,
        ...(f.retrieval.distance !== undefined ? { distance: f.retrieval.distance } : {}),
        at: i,
      }))
      // Ties keep the retrieval order.
      .sort((a, b) => b.score - a.score || a.at - b.at)
      .filter((r) => input.threshold === undefined || r.score >= input.threshold)
      .map(({ at: _at, ...r }) => r);
    ({ hits: scored, groups } = firstPassages(scored, topK, merge));
  } else {
    // top_k counts passages: take chunks until top_k passages, retrieving more while the
    // candidates run out before the store does.
    for (let round = 0; ; round++) {
      const { threshold } = input;
      const passing = threshold === undefined ? ranked : ranked.filter((r) => r.score >= threshold);
      const found = firstPassagesOf(ctx, passing, topK, merge, prefetched);
      const first = found instanceof Promise ? await found : found;
      scored = first.hits;
      groups = first.groups;
      if (first.complete || !more || round === rounds - 1) break;
      fetch = narrowFirst && round === 0 ? topK * 2 : fetch * 4;
      ranked = await retrieveAll();
    }
  }
  // Merged passages are re-sliced from their document's text, so overlaps are not repeated.
  const contents = new Map<string, string>();
  if (includeText) {
    for (const { group, single } of groups) {
      if (single || contents.has(group.docId)) continue;
      const doc = await ctx.store.getDocument(group.docId);
      if (doc) contents.set(group.docId, doc.content);
    }
  }
  const named = namedSymbol(query);
  const shaped = groups.map(({ group }) => {
    const passage = toPassage(group, contents.get(group.docId), named);
    const retrieval = retrievalScores?.get(passage.chunk_id);
    return retrieval !== undefined ? { ...passage, retrieval_score: retrieval } : passage;
  });
  // Only passages of imported collections can be stale.
  const passages = shaped.some((p) => p.collection !== undefined) ? await markStale(ctx.store, shaped) : shaped;
  const { results, budget } = fitBudget(passages, maxChars, includeText);
  const note = describeBudget(budget);
  ctx.logger.info(
    {
      db: ctx.name,
      mode,
      top_k: topK,
      rerank: reranker !== undefined,
      results: results.length,
      chars: budget.chars,
      ms: Math.round(performance.now() - started),
    },
    "find",
  );
  return {
    results,
    mode,
    warnings,
    budget,
    ...(note ? { note } : {}),
    ...(reranker ? { reranked_by: `${reranker.provider}/${reranker.modelId}` } : {}),
  };
}

/** What `searchChunks` takes: already validated. */
export interface ChunkSearchOptions {
  topK: number;
  mode: SearchMode;
  threshold?: number;
  filter?: Filter;
  exact?: boolean;
}

/**
 * Search for agent memory: chunks (not merged into passages, no budget, no reranking) over
 * whatever `filter` allows, one result per chunk with its text. Arguments are already validated.
 */
export async function searchChunks(
  ctx: DatabaseContext,
  query: string,
  options: ChunkSearchOptions,
): Promise<{ results: SearchResult[]; warnings: string[] }> {
  const { topK, mode, threshold } = options;
  const warnings: string[] = [];
  // Fetch more than top_k when fusion or a threshold may drop some.
  const fetch = mode === "hybrid" || threshold !== undefined ? Math.max(topK * 4, 50) : topK;
  const prefetched = new Map<string, ChunkHit>();
  const ranked = await retrieve(
    ctx,
    query,
    { mode, fetch, filter: options.filter, exact: options.exact, reads: topK },
    warnings,
    prefetched,
  );
  const kept = ranked.filter((r) => threshold === undefined || r.score >= threshold).slice(0, topK);
  const hits = await chunkHitsOf(
    ctx,
    kept.map((r) => r.chunkId),
    prefetched,
  );
  return { results: groupPassages(scoredHits(kept, hits), false).map(({ group }) => toPassage(group, undefined)), warnings };
}
