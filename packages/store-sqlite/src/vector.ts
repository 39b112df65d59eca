// Vectors: writing them, the chunks still waiting for one, and vector search — sqlite-vec below
// the index threshold, the HNSW index (./hnsw/) above it, exact scans for selective filters.
import { type PendingChunk, type SearchOptions, StoreError, type VectorIndexSettings, type VectorSearchOptions } from "@docdb/store";
import type { Connection } from "./connection.js";
import { filterToScanSql, filterToSql } from "./filter.js";
import { sameVector } from "./hnsw/delta.js";
import { DEFAULT_VECTOR_INDEX_SETTINGS } from "./hnsw/settings.js";
import { type SeqHit, VectorIndex } from "./hnsw/vector-index.js";
import { changeToken, embeddingInfo, hasVectorTable, metaValue } from "./meta.js";
import { chunkReads, embeddedHits } from "./read.js";
import { DOCUMENTS, type Row, toPendingChunk } from "./rows.js";

/** Filtered vector search computes exact distances when at most this many chunks match. */
const EXACT_FILTER_LIMIT = 5000;
/**
 * Filtered approximate search scans exactly when fewer than this share of the vectors match:
 * the graph would have to be walked too far to find `limit` of them.
 */
const MIN_FILTER_SHARE = 0.02;
/** The most candidates a filtered approximate search asks the graph for before scanning exactly. */
const MAX_OVERFETCH = 8192;
/** The largest `k` sqlite-vec's KNN takes. */
const SQLITE_VEC_MAX_K = 4096;
/** Distinct filters whose match counts are kept between writes. */
const MATCHING_CACHE_SIZE = 64;
/**
 * Below the index threshold, unfiltered queries scan an in-memory copy of the vectors (SIMD)
 * instead of sqlite-vec while it holds at most this many floats (128 MB): 20,000 × 1,536.
 */
const IN_MEMORY_SCAN_FLOATS = 32 * 1024 * 1024;
/**
 * How far past the `limit`-th SIMD distance a candidate of the in-memory scan is still computed
 * again by sqlite-vec: f32 sums of a few thousand terms in another order differ by ~1e-5 at most.
 */
const RESCORE_MARGIN = 1e-3;

export function toVectorBlob(vector: Float32Array): Buffer {
  return Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength);
}

export function checkVector(vector: Float32Array, dimensions: number, what: string): void {
  if (!(vector instanceof Float32Array) || vector.length !== dimensions) {
    throw new StoreError("INVALID_REQUEST", `vector for ${what} has ${vector?.length} dimensions, the database holds ${dimensions}`);
  }
}

/** The vectors of one database: writes, pending chunks, search, and the HNSW index beside the file. */
export class Vectors {
  private matching: { token: string; counts: Map<string, number> } = { token: "", counts: new Map() };
  /** Unfiltered vector queries answered below the threshold (the first scans with sqlite-vec). */
  private scansBelow = 0;
  /** The approximate index beside the database file. */
  readonly ann: VectorIndex;

  constructor(
    private readonly conn: Connection,
    defaults: Partial<VectorIndexSettings> | undefined,
  ) {
    this.ann = new VectorIndex({
      db: conn.db,
      path: conn.location,
      write: (work) => conn.write(work),
      tryWrite: (work) => conn.tryWrite(work),
      changeToken: () => changeToken(conn),
      kept: (key, read) => conn.kept(key, read),
      fingerprint: () =>
        conn.kept("index.fingerprint", () => {
          const info = embeddingInfo(conn);
          if (!info || !hasVectorTable(conn)) return undefined;
          return `${info.provider}|${info.model}|${info.dimensions}|${metaValue(conn, "embedded_at") ?? ""}`;
        }),
      dimensions: () => embeddingInfo(conn)?.dimensions,
      defaults: { ...DEFAULT_VECTOR_INDEX_SETTINGS, ...defaults },
    });
  }

  async write(items: { chunkId: string; vector: Float32Array }[]): Promise<number> {
    if (items.length === 0) return 0;
    const conn = this.conn;
    return conn.write(() => {
      const info = embeddingInfo(conn);
      if (!info || !hasVectorTable(conn)) {
        throw new StoreError("INVALID_REQUEST", "no embedding model recorded: call setEmbeddingInfo before writing vectors");
      }
      let written = 0;
      for (const { chunkId, vector } of items) {
        checkVector(vector, info.dimensions, `chunk ${chunkId}`);
        const seq = conn.statement("SELECT seq FROM chunks WHERE id = ?").pluck().get(chunkId) as number | undefined;
        // A chunk deleted while its batch was being embedded is skipped, not resurrected.
        if (seq === undefined) continue;
        conn.statement("DELETE FROM chunks_vec WHERE rowid = ?").run(BigInt(seq));
        conn.statement("INSERT INTO chunks_vec (rowid, embedding) VALUES (?, ?)").run(BigInt(seq), toVectorBlob(vector));
        conn.statement("UPDATE chunks SET embedded = 1 WHERE seq = ?").run(seq);
        written++;
      }
      return written;
    });
  }

  pending(limit: number, afterChunkId: string): PendingChunk[] {
    const rows = this.conn
      .statement(
        `SELECT c.id, c.text, c.heading, d.title FROM chunks c JOIN ${DOCUMENTS} ON d.id = c.doc_id
       WHERE c.embedded = 0 AND c.id > ? ORDER BY c.id LIMIT ?`,
      )
      .all(afterChunkId, limit) as Row[];
    return rows.map(toPendingChunk);
  }

  /**
   * `search` without a pause, in the common case: unfiltered and approximate, with the index
   * loaded and current (nothing to open, build or merge first). Undefined when `search` must run.
   */
  searchNow(vector: Float32Array, options: VectorSearchOptions): SeqHit[] | undefined {
    const { limit } = options;
    if (limit < 1 || options.exact || (options.filter !== undefined && filterToSql(options.filter).sql !== "1")) return undefined;
    const info = embeddingInfo(this.conn);
    if (!info || !hasVectorTable(this.conn)) return undefined;
    checkVector(vector, info.dimensions, "the query");
    // Below the threshold, once usearch is imported: the in-memory scan, or sqlite-vec's (see exactBelow).
    if (!this.ann.active()) return this.keptExact(vector, limit) ?? (this.ann.ready ? this.exactBelow(vector, options) : undefined);
    const total = this.ann.vectorCount();
    // The rows the caller reads are read by the same check (kept for store.vectorSearch).
    const reads = chunkReads(options.withChunks, limit);
    for (let k = limit; ; k *= 2) {
      const candidates = this.ann.candidatesNow(vector, k);
      if (!candidates) return undefined;
      // Hits whose chunk was deleted meanwhile are dropped: ask for more until `limit` remain.
      const hits = embeddedHits(this.conn, candidates, reads);
      if (hits.length >= limit || candidates.length < k || k >= total) return hits.slice(0, limit);
    }
  }

  /** The nearest chunks (by seq) to `vector`; none before a model is recorded. */
  async search(vector: Float32Array, options: VectorSearchOptions): Promise<SeqHit[]> {
    const info = embeddingInfo(this.conn);
    if (!info || !hasVectorTable(this.conn)) return [];
    checkVector(vector, info.dimensions, "the query");
    return this.nearestChunks(vector, options);
  }

  /**
   * Below the index threshold: an exact scan, sqlite-vec's or in memory (scanInMemory). Above it: the HNSW
   * index, or with `exact` an in-memory SIMD scan. Filtered: exact when the filter is selective,
   * otherwise the index with an over-fetch sized by the filter's share, growing until enough pass.
   */
  private async nearestChunks(vector: Float32Array, options: VectorSearchOptions): Promise<SeqHit[]> {
    const { limit } = options;
    const blob = toVectorBlob(vector);
    if (limit < 1) return [];
    if (!this.ann.active()) {
      const unfiltered = filterToSql(options.filter).sql === "1";
      const kept = unfiltered ? this.keptExact(vector, limit) : undefined;
      if (kept) return kept;
      // usearch imported first (a connection's second query below the threshold), unless sqlite-vec scans anyway.
      if (this.scansBelow > 0) await this.ann.prepare();
      return this.exactBelow(vector, options);
    }
    const { sql } = filterToSql(options.filter);
    if (sql === "1") {
      if (options.exact) return (await this.ann.exactSearch(vector, limit)) ?? this.nearest(blob, options);
      const total = this.ann.vectorCount();
      const reads = chunkReads(options.withChunks, limit);
      for (let k = limit; ; k *= 2) {
        const candidates = await this.ann.candidates(vector, k);
        if (!candidates) return this.nearest(blob, options);
        // Hits whose chunk was deleted meanwhile are dropped: ask for more until `limit` remain.
        // The rows the caller reads are read by the same check (kept for store.vectorSearch).
        const hits = embeddedHits(this.conn, candidates, reads);
        if (hits.length >= limit || candidates.length < k || k >= total) return hits.slice(0, limit);
      }
    }
    const matching = this.countMatching(options.filter);
    const total = this.ann.vectorCount();
    if (matching === 0) return [];
    if (matching <= EXACT_FILTER_LIMIT || matching < total * MIN_FILTER_SHARE) return this.nearest(blob, options, matching);
    const passing = this.passingFilter(options.filter);
    const first = Math.ceil((limit * total * 2) / matching) + limit;
    if (options.exact) {
      // The in-memory scan, over-fetched until enough pass: exact, since it ends at every vector.
      for (let k = first; ; k *= 4) {
        const candidates = await this.ann.exactSearch(vector, Math.min(k, total));
        if (!candidates) return this.nearest(blob, options, matching);
        const hits = passing(candidates);
        if (hits.length >= limit || k >= total) return hits.slice(0, limit);
      }
    }
    for (let k = first; ; k *= 4) {
      const candidates = await this.ann.candidates(vector, Math.min(k, MAX_OVERFETCH));
      if (!candidates) return this.nearest(blob, options, matching);
      const hits = passing(candidates);
      if (hits.length >= limit) return hits.slice(0, limit);
      if (k >= MAX_OVERFETCH || candidates.length < Math.min(k, MAX_OVERFETCH)) return this.nearest(blob, options, matching);
    }
  }

  /**
   * Below the threshold: the exact nearest chunks (the in-memory scan, or sqlite-vec's). Unfiltered,
   * enough for twice `limit` is found and kept until the database changes (sqlite-vec's hits in
   * `keptExact`, the in-memory scan's candidates in `scanCandidates`): a find that asks for more
   * after merging neighbours takes them from there instead of scanning again (for a connection's
   * first query, instead of loading every vector for the in-memory scan).
   */
  private exactBelow(vector: Float32Array, options: VectorSearchOptions): SeqHit[] {
    const inMemory = this.scanInMemory(vector, options);
    if (inMemory || filterToSql(options.filter).sql !== "1") return inMemory ?? this.nearest(toVectorBlob(vector), options);
    // sqlite-vec's scan: twice as many, within its largest k (the in-memory scan keeps its candidates itself).
    const asked = { ...options, limit: Math.max(options.limit, Math.min(options.limit * 2, SQLITE_VEC_MAX_K)) };
    const hits = this.nearest(toVectorBlob(vector), asked);
    this.lastExact().last = { query: vector.slice(), hits, complete: hits.length < asked.limit };
    return hits.slice(0, options.limit);
  }

  /** The last unfiltered exact answer below the threshold, while the database has not changed since. */
  private lastExact(): { last?: { query: Float32Array; hits: SeqHit[]; complete: boolean } } {
    return this.conn.kept("vector.lastExact", () => ({}));
  }

  /** The first `limit` of the kept exact answer when it was for the same query and holds them. */
  private keptExact(vector: Float32Array, limit: number): SeqHit[] | undefined {
    const last = this.lastExact().last;
    if (!last || (!last.complete && last.hits.length < limit) || !sameVector(last.query, vector)) return undefined;
    return last.hits.slice(0, limit);
  }

  /**
   * Below the threshold, a query after the first: the exact nearest chunks from the in-memory
   * copy of the vectors (usearch's SIMD scan, the copy kept in step with the vector log; with a
   * filter, see scanFiltered). The first query of a connection — a one-shot CLI find — scans with
   * sqlite-vec instead of loading usearch and every vector; so does any query when the copy would
   * be too large.
   */
  private scanInMemory(vector: Float32Array, options: SearchOptions): SeqHit[] | undefined {
    if (this.scansBelow++ === 0) return undefined;
    const dimensions = embeddingInfo(this.conn)?.dimensions ?? 0;
    if (this.ann.vectorCount() * dimensions > IN_MEMORY_SCAN_FLOATS) {
      this.ann.exact = undefined;
      return undefined;
    }
    const { limit } = options;
    if (filterToSql(options.filter).sql !== "1") return this.scanFiltered(vector, options);
    // A few more than asked, their distances computed again by sqlite-vec from the same
    // vectors: the same scores and order as its own scan (SIMD sums round differently, enough
    // to swap near ties).
    const candidates = this.scanCandidates(vector, limit * 2 + 16, limit * 4 + 16);
    // Only candidates that could reach the first `limit` are computed again: the two sums of one
    // distance differ by far less than RESCORE_MARGIN.
    return (
      candidates && this.rescored(vector, candidates, (candidates[limit - 1]?.distance ?? Number.POSITIVE_INFINITY) + RESCORE_MARGIN, limit)
    );
  }

  /**
   * scanInMemory for a filter many chunks pass (a few are scanned in SQL: EXACT_FILTER_LIMIT):
   * the scan's candidates, four times more each round, checked against the filter in SQLite
   * until `limit` pass and the scan reached past the `limit`-th by RESCORE_MARGIN, then computed
   * again by sqlite-vec as unfiltered ones are: the answer of its filtered scan.
   */
  private scanFiltered(vector: Float32Array, options: SearchOptions): SeqHit[] | undefined {
    const matching = this.countMatching(options.filter);
    if (matching === 0) return [];
    if (matching <= EXACT_FILTER_LIMIT) return undefined;
    const { limit } = options;
    const total = this.ann.vectorCount();
    const passingOf = this.passingFilter(options.filter);
    for (let k = Math.ceil((limit * total * 2) / matching) + 2 * limit + 16; ; k *= 4) {
      const ask = Math.min(k, total);
      const candidates = this.scanCandidates(vector, ask, ask);
      if (!candidates) return undefined;
      const passing = passingOf(candidates);
      const cut = (passing[limit - 1]?.distance ?? Number.POSITIVE_INFINITY) + RESCORE_MARGIN;
      const reached = candidates[candidates.length - 1]?.distance ?? Number.POSITIVE_INFINITY;
      if (candidates.length < ask || ask >= total || reached > cut) return this.rescored(vector, passing, cut, limit);
    }
  }

  /** The candidates that pass `filter`, in order (the check in SQLite also wants each chunk still there with its vector). */
  private passingFilter(filter: SearchOptions["filter"]): (candidates: SeqHit[]) => SeqHit[] {
    const { sql, params } = filterToSql(filter);
    const allowed = this.conn.db
      .prepare(
        `SELECT c.seq FROM chunks c JOIN ${DOCUMENTS} ON d.id = c.doc_id
         WHERE c.seq IN (SELECT value FROM json_each(?)) AND c.embedded = 1 AND ${sql}`,
      )
      .pluck();
    return (candidates) => {
      const pass = new Set(allowed.all(JSON.stringify(candidates.map((c) => c.seq)), ...params) as number[]);
      return candidates.filter((c) => pass.has(c.seq));
    };
  }

  /** The candidates up to `cut` (SIMD distances) with sqlite-vec's distances, nearest first, the first `limit`. */
  private rescored(vector: Float32Array, candidates: SeqHit[], cut: number, limit: number): SeqHit[] | undefined {
    const held = this.ann.exact;
    if (!held) return undefined;
    const distance = this.conn.statement("SELECT vec_distance_cosine(?, ?)").pluck();
    const query = toVectorBlob(vector);
    const hits: SeqHit[] = [];
    for (const { seq, distance: simd } of candidates) {
      if (simd > cut) break;
      const stored = held.vector(seq);
      if (stored) hits.push({ seq, distance: distance.get(query, toVectorBlob(stored)) as number });
    }
    return hits.sort((a, b) => a.distance - b.distance || a.seq - b.seq).slice(0, limit);
  }

  /**
   * The `want` nearest by the in-memory scan: `ask` (the candidates of a search for twice the
   * limit) are found and kept until the database changes, so a search for more of the same query
   * takes them from there (exact: any count gives the first of one list).
   */
  private scanCandidates(vector: Float32Array, want: number, ask: number): SeqHit[] | undefined {
    const held = this.conn.kept<{ last?: { query: Float32Array; candidates: SeqHit[]; complete: boolean } }>("vector.lastScan", () => ({}));
    const last = held.last;
    if (last && (last.complete || last.candidates.length >= want) && sameVector(last.query, vector)) return last.candidates.slice(0, want);
    const found = this.ann.exactSearchNow(vector, ask);
    if (found) held.last = { query: vector.slice(), candidates: found, complete: found.length < ask };
    return found?.slice(0, want);
  }

  /**
   * How many embedded chunks pass a filter: a scan of every chunk, so it is kept until anyone
   * writes to the database (an agent repeating a filter pays it once). Here and in the exact scan
   * over few, conditions on document fields are asked once per document (filterToScanSql), of
   * documents_fields unless the filter names a field the planner may seek, never of a large
   * document's row.
   */
  private countMatching(filter: SearchOptions["filter"]): number {
    const { from, sql, params } = filterToScanSql(filter);
    const token = changeToken(this.conn);
    if (token !== this.matching.token) this.matching = { token, counts: new Map() };
    const key = `${sql}\u0000${JSON.stringify(params)}`;
    let n = this.matching.counts.get(key);
    if (n === undefined) {
      n = (this.conn.db.prepare(`SELECT count(*) AS n FROM ${from} WHERE c.embedded = 1 AND ${sql}`).get(...params) as { n: number }).n;
      if (this.matching.counts.size >= MATCHING_CACHE_SIZE) this.matching.counts.clear();
      this.matching.counts.set(key, n);
    }
    return n;
  }

  /**
   * Unfiltered: sqlite-vec KNN (an exact scan). Filtered: exact distances over the matching
   * chunks when they are few, otherwise KNN with a growing over-fetch until enough pass.
   */
  private nearest(blob: Buffer, options: SearchOptions, matching?: number): SeqHit[] {
    const { limit } = options;
    const { conn } = this;
    const knn = conn.statement("SELECT rowid AS seq, distance FROM chunks_vec WHERE embedding MATCH ? AND k = ? ORDER BY distance");
    if (filterToSql(options.filter).sql === "1") return knn.all(blob, limit) as SeqHit[];

    const candidates = matching ?? this.countMatching(options.filter);
    if (candidates === 0) return [];
    if (candidates <= EXACT_FILTER_LIMIT) {
      const scan = filterToScanSql(options.filter);
      return conn.db
        .prepare(
          `SELECT c.seq AS seq, vec_distance_cosine(v.embedding, ?) AS distance
           FROM ${scan.from} JOIN chunks_vec v ON v.rowid = c.seq
           WHERE c.embedded = 1 AND ${scan.sql} ORDER BY distance LIMIT ?`,
        )
        .all(blob, ...scan.params, limit) as SeqHit[];
    }
    // Embedded chunks, counted on indexes (vec0's own count visits every row).
    const total = this.ann.vectorCount();
    const passing = this.passingFilter(options.filter);
    for (let k = Math.max(limit * 4, 64); ; k *= 4) {
      const kept = passing(knn.all(blob, Math.min(k, total)) as SeqHit[]);
      if (kept.length >= limit || k >= total) return kept.slice(0, limit);
    }
  }
}
