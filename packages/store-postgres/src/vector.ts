// Vectors: their text form, writes, the chunks still to embed, and vector search (the cached
// model and table state it trusts, and the statements it runs: HNSW or exact).
import { type EmbeddingInfo, type Filter, type PendingChunk, StoreError, type VectorHit, type VectorSearchOptions } from "@docdb/store";
import type { Row, StoreContext, VectorSql } from "./connection.js";
import { atLeast, pgCode } from "./db.js";
import { filterToSql, Params } from "./filter.js";
import { dimensions, EMBEDDING_KEYS, embeddingOf, HNSW_MAX_DIMENSIONS } from "./meta.js";
import { CHUNK_HIT_COLUMNS, toChunkHit, toPendingChunk } from "./rows.js";

export type { VectorSql };

/** Candidates pgvector's HNSW search keeps (`hnsw.ef_search`) for a top-k up to this many. */
const HNSW_EF_SEARCH = 128;

/**
 * The statements of a vector search. Each is one round trip:
 *
 * - **approximate** (HNSW): pgvector's settings are set with `set_config(…, true)` in a subquery
 *   that the search reads laterally, so they are in force (for the statement's own implicit
 *   transaction) before the index scan starts — no BEGIN/SET LOCAL/COMMIT round trips. The test
 *   "vector search statement" proves pgvector honours them (a limit above pgvector's default
 *   `ef_search` of 40 comes back whole only if the setting took effect);
 * - **exact**: a scan of `chunk_vectors` ordered by distance alone, and only the best (with
 *   their ties, so the `distance, id` order of the contract is kept) are joined to their chunks.
 *
 * With `columns` (of `chunks c` and `documents d`), each hit comes with its chunk as `chunkHits`
 * reads it, from the same statement.
 */
export interface VectorStatement {
  sql: string;
  params: unknown[];
}

/** Approximate search through the HNSW index with `ef_search` (and iterative scans where pgvector has them). */
export function annSearchSql(
  t: VectorSql,
  vector: string,
  options: { limit: number; filter?: Filter; efSearch: number; iterative: boolean; columns?: string },
): VectorStatement {
  const params = new Params([vector]);
  const filter = options.filter ? filterToSql(options.filter, params) : undefined;
  const ef = params.add(String(options.efSearch));
  const limit = params.add(options.limit);
  const distance = `v.embedding ${t.cosine} $1::${t.vectorType}`;
  const settings = options.iterative
    ? `SELECT set_config('hnsw.ef_search', ${ef}::text, true) AS ef, set_config('hnsw.iterative_scan', 'relaxed_order', true) AS it`
    : `SELECT set_config('hnsw.ef_search', ${ef}::text, true) AS ef, NULL::text AS it`;
  const join = filter ? `JOIN ${t.schema}.documents d ON d.id = c.doc_id` : "";
  // `cfg.ef IS NOT NULL` ties the search to the settings row: it runs after them.
  const near = `SELECT n.seq, n.distance FROM (${settings}) AS cfg
    CROSS JOIN LATERAL (SELECT v.seq, ${distance} AS distance
      FROM ${t.schema}.chunk_vectors v JOIN ${t.schema}.chunks c ON c.seq = v.seq ${join}
      WHERE cfg.ef IS NOT NULL ${filter ? `AND ${filter}` : ""}
      ORDER BY ${distance} LIMIT ${limit}) AS n`;
  return { sql: withChunks(t, near, options.columns), params: params.values };
}

/** Exact search: every vector's distance, sorted before any chunk is read. */
export function exactSearchSql(
  t: VectorSql,
  vector: string,
  options: { limit: number; filter?: Filter; columns?: string },
): VectorStatement {
  const params = new Params([vector]);
  const filter = options.filter ? filterToSql(options.filter, params) : undefined;
  const limit = params.add(options.limit);
  const distance = `v.embedding ${t.cosine} $1::${t.vectorType}`;
  // OFFSET 0 keeps the ORDER BY off the HNSW index (an approximate scan), and WITH TIES keeps
  // every chunk at the same distance as the last one, so the final `distance, id` order picks
  // among them exactly as a sort of every row would.
  const scan = filter
    ? `SELECT v.seq, ${distance} AS distance FROM ${t.schema}.chunk_vectors v
         JOIN ${t.schema}.chunks c ON c.seq = v.seq JOIN ${t.schema}.documents d ON d.id = c.doc_id WHERE ${filter}`
    : `SELECT v.seq, ${distance} AS distance FROM ${t.schema}.chunk_vectors v`;
  const near = `SELECT seq, distance FROM (${scan} OFFSET 0) AS s ORDER BY distance FETCH FIRST (${limit}) ROWS WITH TIES`;
  return { sql: `${withChunks(t, near, options.columns)} LIMIT ${limit}`, params: params.values };
}

/** The hits of `near` (seq, distance) with their chunk ids (and `columns`), in the contract's order. */
function withChunks(t: VectorSql, near: string, columns: string | undefined): string {
  const docs = columns ? `JOIN ${t.schema}.documents d ON d.id = c.doc_id` : "";
  return `SELECT c.id, n.distance${columns ? `, ${columns}` : ""} FROM (${near}) AS n
    JOIN ${t.schema}.chunks c ON c.seq = n.seq ${docs}
    ORDER BY n.distance, c.id`;
}

/** A vector in pgvector's text form, checked against the database's dimension. */
export function vectorText(vector: Float32Array, dimensions: number | undefined): string {
  if (!(vector instanceof Float32Array)) throw new StoreError("INVALID_REQUEST", "a vector must be a Float32Array");
  if (dimensions !== undefined && vector.length !== dimensions) {
    throw new StoreError("INVALID_REQUEST", `vector has ${vector.length} dimensions; this database stores ${dimensions}`);
  }
  let out = "[";
  for (let i = 0; i < vector.length; i++) {
    const x = vector[i] as number;
    if (!Number.isFinite(x)) throw new StoreError("INVALID_REQUEST", "a vector holds a NaN or infinite value");
    out += (i === 0 ? "" : ",") + x;
  }
  return `${out}]`;
}

/** What a vector search needs to know about the database: its model and whether its vector table exists. */
interface VectorState {
  info: EmbeddingInfo | undefined;
  table: boolean;
}

/** A statement failed because the vector table changed under a cached VectorState (another process re-embedded). */
function staleVectorTable(error: unknown): boolean {
  const cause = StoreError.isInstance(error) ? error.cause : error;
  const { code } = pgCode(cause);
  if (code === "42P01") return true;
  const message = (cause as { message?: unknown } | null)?.message;
  return code === "22000" && typeof message === "string" && message.includes("different vector dimensions");
}

/**
 * The model and vector table as last read (by getEmbeddingInfo, which core calls before every
 * vector search, or by a search itself). A search trusts it and reads it again when it turns
 * out wrong: no vectors recorded, a query of another dimension, or the table gone or of another
 * dimension (another process re-embedded). `generation` keeps a slow read from overwriting a
 * newer one.
 */
export class VectorCache {
  private state: VectorState | undefined;
  private generation = 0;

  constructor(private readonly ctx: StoreContext) {}

  /** Reads the model and whether the vector table exists (one statement), and keeps them for vector searches. */
  async load(): Promise<VectorState> {
    const generation = ++this.generation;
    const rows = await this.ctx.read<{ key: string; value: string }>(
      `SELECT key, value FROM ${this.ctx.s}.meta WHERE key = ANY($1::text[])
       UNION ALL SELECT '', CASE WHEN to_regclass($2) IS NULL THEN '' ELSE 't' END`,
      [EMBEDDING_KEYS, `${this.ctx.s}.chunk_vectors`],
    );
    const meta = new Map(rows.map((r) => [r.key, r.value]));
    const state: VectorState = { info: embeddingOf(meta), table: meta.get("") === "t" };
    if (generation === this.generation) this.state = state;
    return state;
  }

  /** After this process recorded a model: the next search reads the state again. */
  invalidate(): void {
    this.generation++;
    this.state = undefined;
  }

  async search(vector: Float32Array, options: VectorSearchOptions): Promise<VectorHit[]> {
    const limit = Math.floor(options.limit);
    if (limit <= 0) return [];
    let fresh = this.state === undefined;
    let state = this.state ?? (await this.load());
    // What the cache cannot prove by an error: no vectors yet, or a query of another dimension.
    const suspect = (s: VectorState) => !s.info || !s.table || (vector instanceof Float32Array && vector.length !== s.info.dimensions);
    if (!fresh && suspect(state)) {
      state = await this.load();
      fresh = true;
    }
    for (;;) {
      try {
        return await searchVectors(this.ctx, vector, state, limit, options);
      } catch (error) {
        // The table was re-created (or dropped) by another process since the state was read.
        if (fresh || !staleVectorTable(error)) throw error;
        state = await this.load();
        fresh = true;
      }
    }
  }
}

async function searchVectors(
  ctx: StoreContext,
  vector: Float32Array,
  state: VectorState,
  limit: number,
  options: VectorSearchOptions,
): Promise<VectorHit[]> {
  const { info } = state;
  if (!info || !state.table) return [];
  const text = vectorText(vector, info.dimensions);
  const columns = options.withChunks ? CHUNK_HIT_COLUMNS : undefined;
  const toHits = (rows: Row[]): VectorHit[] =>
    rows.map((r) => ({ chunkId: r.id as string, distance: Number(r.distance), ...(columns ? { chunk: toChunkHit(r) } : {}) }));
  const exact = async () => {
    const statement = exactSearchSql(ctx.vectorSql, text, { limit, filter: options.filter, columns });
    return toHits(await ctx.read(statement.sql, statement.params));
  };
  if (options.exact || info.dimensions > HNSW_MAX_DIMENSIONS) return exact();
  // ef_search 128 (pgvector's default is 40): at 100k × 384 40 found 0.86–0.93 of the exact
  // top 10 and 128 found 0.95–0.996 (BENCHMARKS.md, PostgreSQL).
  const statement = annSearchSql(ctx.vectorSql, text, {
    limit,
    filter: options.filter,
    efSearch: Math.min(1000, Math.max(HNSW_EF_SEARCH, limit)),
    iterative: atLeast(ctx.info.vectorVersion, [0, 8, 0]),
    columns,
  });
  const rows = await ctx.read(statement.sql, statement.params);
  // An approximate scan can come back short when few chunks pass the filter: scan exactly then.
  if (rows.length < limit) return exact();
  return toHits(rows);
}

export async function writeVectors(ctx: StoreContext, items: { chunkId: string; vector: Float32Array }[]): Promise<number> {
  if (items.length === 0) return 0;
  const byId = new Map<string, Float32Array>();
  for (const item of items) byId.set(item.chunkId, item.vector);
  const { s } = ctx;
  return ctx.db.transaction(async (client) => {
    const dims = await dimensions(ctx, client);
    if (dims === undefined)
      throw new StoreError("INVALID_REQUEST", "no embedding model is recorded for this database (setEmbeddingInfo first)");
    const ids = [...byId.keys()];
    const values = ids.map((id) => vectorText(byId.get(id) as Float32Array, dims));
    const { rows } = await client.query<{ n: string }>(
      `WITH x AS (SELECT c.seq, x.v FROM unnest($1::text[], $2::text[]) AS x(id, v) JOIN ${s}.chunks c ON c.id = x.id),
         ins AS (INSERT INTO ${s}.chunk_vectors (seq, embedding) SELECT seq, v::${ctx.vectorType} FROM x
                 ON CONFLICT (seq) DO UPDATE SET embedding = excluded.embedding RETURNING seq),
         upd AS (UPDATE ${s}.chunks c SET embedded = TRUE FROM ins WHERE c.seq = ins.seq AND NOT c.embedded)
       SELECT count(*) AS n FROM ins`,
      [ids, values],
    );
    const n = Number(rows[0]?.n ?? 0);
    if (n > 0) await ctx.bump(client);
    return n;
  });
}

export async function pendingChunks(ctx: StoreContext, limit: number, afterChunkId?: string): Promise<PendingChunk[]> {
  const rows = await ctx.read(
    `SELECT c.id, c.text, c.heading, d.title FROM ${ctx.s}.chunks c JOIN ${ctx.s}.documents d ON d.id = c.doc_id
     WHERE NOT c.embedded AND ($1::text IS NULL OR c.id > $1::text) ORDER BY c.id LIMIT $2`,
    [afterChunkId ?? null, Math.max(0, Math.floor(limit))],
  );
  return rows.map(toPendingChunk);
}
