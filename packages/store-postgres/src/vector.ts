import type { Filter } from "@docdb/store";
import { filterToSql, Params } from "./filter.js";

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
export interface VectorSql {
  /** Quoted schema of the docdb database. */
  schema: string;
  /** The `vector` type, qualified with pgvector's schema. */
  vectorType: string;
  /** The cosine distance operator, qualified (`OPERATOR(schema.<=>)`). */
  cosine: string;
}

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
