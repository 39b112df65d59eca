// Looking after a database: its status and model, the vector index, and read-only SQL over
// the documented views.
import type { VectorIndexProgress, VectorIndexSettings, VectorIndexStatus } from "@docdb/store";
import { DocDBError } from "../errors.js";
import { MEMORY_COLLECTIONS } from "../memory/names.js";
import { validateSql } from "../sql.js";
import type { DatabaseStatus, SqlOptions, SqlResult } from "../types.js";
import type { DatabaseContext } from "./context.js";

/** The model that embedded the database, or null before its first vector. */
export async function storedModel(ctx: DatabaseContext): Promise<DatabaseStatus["model"]> {
  const info = await ctx.store.getEmbeddingInfo();
  return info ? { provider: info.provider, model: info.model, dimensions: info.dimensions } : null;
}

/** Counts and the embedding model of this database, agent memory counted apart (see Database.status). */
export async function status(ctx: DatabaseContext): Promise<DatabaseStatus> {
  const { store } = ctx;
  const counts = await store.counts();
  const model = await storedModel(ctx);
  const healing = ctx.services.healing?.();
  const memory = { documents: 0, chunks: 0, embedded: 0, pending: 0 };
  for (const collection of Object.values(MEMORY_COLLECTIONS)) {
    const c = await store.collectionCounts(collection);
    memory.documents += c.documents;
    memory.chunks += c.chunks;
    memory.embedded += c.embedded;
    memory.pending += c.pending;
  }
  return {
    name: ctx.name,
    engine: ctx.services.engine,
    location: store.location,
    documents: counts.documents - memory.documents,
    chunks: counts.chunks - memory.chunks,
    embedded: counts.embedded - memory.embedded,
    pending: counts.pending - memory.pending,
    reused_vectors: counts.reusedVectors ?? 0,
    model,
    ...(memory.documents > 0 ? { memory } : {}),
    ...(healing ? { healing } : {}),
  };
}

/** The approximate vector index (state, size, settings), or null when the engine keeps none it can show. */
export async function indexStatus(ctx: DatabaseContext): Promise<VectorIndexStatus | null> {
  const index = ctx.store.vectorIndex;
  return index ? index.status() : null;
}

/** Builds the approximate vector index again; INVALID_REQUEST when the engine keeps none. */
export async function rebuildIndex(
  ctx: DatabaseContext,
  options: { settings?: Partial<VectorIndexSettings>; onProgress?: (progress: VectorIndexProgress) => void },
): Promise<VectorIndexStatus> {
  const index = ctx.store.vectorIndex;
  if (!index) {
    throw new DocDBError("INVALID_REQUEST", `the ${ctx.services.engine} engine keeps no vector index docdb can rebuild`);
  }
  return index.rebuild(options);
}

/** Runs one read-only SQL query over the documented views (see Database.sql). */
export async function sql(ctx: DatabaseContext, query: string, options: SqlOptions): Promise<SqlResult> {
  const started = performance.now();
  const { sql, maxRows, timeoutMs, maxBytes } = validateSql(query, options);
  const store = ctx.store;
  if (!store.capabilities.readOnlySql || !store.querySql) {
    throw new DocDBError(
      "INVALID_REQUEST",
      `the ${ctx.services.engine} engine does not offer read-only SQL; use find, list and get instead (the SQLite and PostgreSQL engines offer it)`,
    );
  }
  const answer = await store.querySql(sql, { maxRows, timeoutMs, maxBytes });
  ctx.logger.info(
    { db: ctx.name, rows: answer.rows.length, truncated: answer.truncated, ms: Math.round(performance.now() - started) },
    "sql",
  );
  return {
    columns: answer.columns,
    rows: answer.rows,
    row_count: answer.rows.length,
    truncated: answer.truncated,
    ...(answer.truncated ? { truncated_by: answer.truncatedBy ?? "rows" } : {}),
    limits: { max_rows: maxRows, timeout_ms: timeoutMs, max_bytes: maxBytes },
  };
}
