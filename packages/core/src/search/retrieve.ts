// Candidates for a query: keyword search (definitions of a named symbol first) and vector
// search over what the filter allows, fused by mode; and reading the chunks of candidates.
import { buildKeywordQuery } from "@docdb/analyzer";
import { allOf, type ChunkHit, type EmbeddingInfo, type Filter, type VectorHit } from "@docdb/store";
import { type DatabaseContext, describeEmbeddingFailure } from "../database/context.js";
import { assertSameModel } from "../embedding-guard.js";
import { DocDBError } from "../errors.js";
import type { SearchMode } from "../types.js";
import { DEFINITION_CANDIDATES, definedSymbol, definitionsFirst, namedSymbol } from "./definitions.js";
import { type Candidate, rank } from "./fusion.js";

/** What a find's retrievals share. */
export interface RetrieveMemo {
  queryVector?: Float32Array;
  /** The database's model record, read once per find (see modelRecord). */
  model?: { info: EmbeddingInfo | undefined };
}

/**
 * The database's model record, read once per find into `memo`. A find asks for it in the same
 * synchronous stretch as its memory check reads the change token (see find.ts): an engine that
 * keeps values while that token holds (SQLite) then reads the token once for both.
 */
export async function modelRecord(ctx: DatabaseContext, memo: RetrieveMemo | undefined): Promise<EmbeddingInfo | undefined> {
  if (memo?.model) return memo.model.info;
  const info = await ctx.store.getEmbeddingInfo();
  if (memo) memo.model = { info };
  return info;
}

/** What to retrieve: the mode, how many candidates, over what, and whether approximation is allowed. */
export interface RetrieveOptions {
  mode: SearchMode;
  fetch: number;
  filter?: Filter;
  exact?: boolean;
  /** In vector and keyword mode, how many of the first candidates the caller reads the chunks of (all when absent). */
  reads?: number;
  /** Kept between retrievals of one find: the query's vector, embedded once. */
  memo?: RetrieveMemo;
  /** Told how many keyword and vector hits came back (fewer than `fetch` each: nothing more to find). */
  onCounts?: (counts: { keyword: number; vector: number }) => void;
}

/** The best keyword hits among chunks of code whose own symbol is `name` (see definitions.ts). */
async function definitions(
  ctx: DatabaseContext,
  query: NonNullable<ReturnType<typeof buildKeywordQuery>>,
  name: string,
  filter: Filter | undefined,
  prefetched: Map<string, ChunkHit> | undefined,
): Promise<{ chunkId: string; score: number }[]> {
  const withSymbol = allOf([filter, { op: "exists", field: { chunk: "symbol" }, value: true }]);
  // Every hit's chunk is read (its symbol decides): with the search where the engine can.
  const hits = await ctx.store.keywordSearch(query, { limit: DEFINITION_CANDIDATES, filter: withSymbol, withChunks: true });
  if (hits.length === 0) return [];
  const attached = new Map(hits.flatMap((h): [string, ChunkHit][] => (h.chunk ? [[h.chunkId, h.chunk]] : [])));
  const chunks = await chunkHitsOf(
    ctx,
    hits.map((h) => h.chunkId),
    attached,
  );
  return hits.flatMap(({ chunkId, score }) => {
    const chunk = chunks.get(chunkId);
    if (!chunk || !definedSymbol(chunk, name)) return [];
    prefetched?.set(chunkId, chunk);
    return [{ chunkId, score }];
  });
}

/**
 * The keyword leg: keyword hits (definitions of a named symbol first). With `prefetched`, the
 * chunks of the first `options.reads` hits are read with the search where the engine can (kept there).
 */
async function keywordLeg(
  ctx: DatabaseContext,
  query: string,
  options: RetrieveOptions,
  prefetched: Map<string, ChunkHit> | undefined,
): Promise<{ chunkId: string; score: number }[]> {
  const keywordQuery = buildKeywordQuery(query);
  if (!keywordQuery) return [];
  const withChunks = prefetched ? (options.reads ?? true) : false;
  const found = await ctx.store.keywordSearch(keywordQuery, { limit: options.fetch, filter: options.filter, withChunks });
  const hits = found.map(({ chunkId, score, chunk }) => {
    if (chunk && prefetched) prefetched.set(chunkId, chunk);
    return { chunkId, score };
  });
  // A query that is one identifier puts the chunks defining it first (definitions.ts).
  const name = namedSymbol(query);
  return name === undefined ? hits : definitionsFirst(hits, await definitions(ctx, keywordQuery, name, options.filter, prefetched));
}

/** The query's vector: the memo's, else the provider's (undefined, with a warning, when hybrid cannot embed it). */
async function queryVectorOf(
  ctx: DatabaseContext,
  model: NonNullable<DatabaseContext["embedding"]>,
  query: string,
  options: RetrieveOptions,
  warnings: string[],
): Promise<Float32Array | undefined> {
  const memo = options.memo?.queryVector;
  if (memo) return memo;
  try {
    const [vector] = await ctx.embed(model, [query], "query", { deadlineMs: ctx.services.embedDeadlineMs });
    if (options.memo && vector) options.memo.queryVector = vector;
    return vector;
  } catch (error) {
    if (options.mode === "vector" || DocDBError.isInstance(error)) {
      throw DocDBError.isInstance(error)
        ? error
        : new DocDBError("EMBEDDING_UNAVAILABLE", `could not embed the query: ${describeEmbeddingFailure(error)}`, { cause: error });
    }
    warnings.push(`keyword results only: could not embed the query (${describeEmbeddingFailure(error)})`);
    return undefined;
  }
}

/**
 * Candidates for a query, best first with 0–1 scores: keyword and vector search over what
 * `filter` allows, fused by mode. Warnings (keyword-only fallbacks) are added to `warnings`.
 * In vector mode every hit is a candidate, so an engine that can read the chunks with the
 * search does, into `prefetched` (one round trip less on PostgreSQL).
 *
 * The legs overlap: the query's embedding (a provider call, off this thread) is started first
 * and the keyword search runs while it is under way; the vector search starts when the
 * embedding is done, whether or not the keyword search is. Fusion is on chunk ids: chunks are
 * read afterwards, for the candidates that make the answer (see find.ts).
 */
export async function retrieve(
  ctx: DatabaseContext,
  query: string,
  options: RetrieveOptions,
  warnings: string[],
  prefetched?: Map<string, ChunkHit>,
): Promise<Candidate[]> {
  const { mode, filter } = options;
  const { store } = ctx;
  let embedding: Promise<Float32Array | undefined> | undefined;
  if (mode !== "keyword") {
    const model = ctx.embedding;
    // Read once per find (see modelRecord); a later round takes it without a pause.
    const info = options.memo?.model ? options.memo.model.info : await modelRecord(ctx, options.memo);
    if (!model) {
      const why = ctx.services.embeddingProblem ?? "no embedding provider is configured";
      if (mode === "vector") {
        throw new DocDBError(
          "EMBEDDING_UNAVAILABLE",
          `vector search needs an embedding model (${why}): configure one, or use --mode keyword`,
        );
      }
      warnings.push(`keyword results only: ${why}`);
    } else if (!info) {
      warnings.push(`database "${ctx.name}" has no vectors yet; ${mode === "hybrid" ? "keyword results only" : "nothing to compare with"}`);
    } else {
      assertSameModel(info, model, ctx.name);
      embedding = queryVectorOf(ctx, model, query, options, warnings);
      // Settled below (through the vector leg), even when the keyword leg throws first.
      embedding.catch(() => {});
      // One turn of the event loop, so the provider call is under way (sent to its threads or
      // over the network) before a synchronous engine's keyword search holds this thread.
      if (mode === "hybrid" && !options.memo?.queryVector) await new Promise((resolve) => setImmediate(resolve));
    }
  }
  // The vector leg starts as soon as the query's vector is there, while the keyword leg may still
  // be under way: an engine with a pool of connections runs both at once (SQLite's legs are
  // synchronous calls, so there they run one after the other on this thread).
  // In keyword mode every hit is a candidate, as in vector mode: the chunks read with the search.
  const keywordDone = mode !== "vector" ? keywordLeg(ctx, query, options, mode === "keyword" ? prefetched : undefined) : undefined;
  const vectorDone = embedding?.then(async (queryVector) => {
    if (!queryVector) return undefined;
    const withChunks = mode === "vector" && prefetched !== undefined ? (options.reads ?? true) : false;
    const hits = await store.vectorSearch(queryVector, { limit: options.fetch, filter, exact: options.exact, withChunks });
    if (withChunks && prefetched) for (const hit of hits) if (hit.chunk) prefetched.set(hit.chunkId, hit.chunk);
    return hits;
  });
  // Settled below; a keyword leg that throws first must not leave its rejection unhandled.
  if (keywordDone) vectorDone?.catch(() => {});
  const keyword = keywordDone ? await keywordDone : [];
  const found = await vectorDone;
  const vector: VectorHit[] = found ?? [];
  const searchedVectors = found !== undefined;

  options.onCounts?.({ keyword: keyword.length, vector: vector.length });
  // Hybrid with no vector search to fuse (no model, no vectors yet, the query not embedded)
  // ranks by keywords alone, with keyword scores: fusing one list would score its best hit 0.5.
  return rank(mode === "hybrid" && !searchedVectors ? "keyword" : mode, keyword, vector);
}

/** The chunks of `ids` (unknown ids left out): those `prefetched` with the search, the others read now. */
export async function chunkHitsOf(ctx: DatabaseContext, ids: string[], prefetched: Map<string, ChunkHit>): Promise<Map<string, ChunkHit>> {
  const hits = new Map<string, ChunkHit>();
  const missing: string[] = [];
  for (const id of ids) {
    const hit = prefetched.get(id);
    if (hit) hits.set(id, hit);
    else missing.push(id);
  }
  if (missing.length > 0) for (const hit of await ctx.store.chunkHits(missing)) hits.set(hit.id, hit);
  return hits;
}
