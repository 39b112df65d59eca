// The `meta` rows of a database: the embedding model record, settings, counts and the change
// token; also what the engine can do (its dimension cap guards the model record).
import { type EmbeddingInfo, type EngineCapabilities, type StoreCounts, StoreError } from "@docdb/store";
import type { Connection } from "./connection.js";
import { countFromChunks } from "./hnsw/vec-chunks.js";
import { reusedVectors } from "./reuse-counter.js";

export const SQLITE_CAPABILITIES: EngineCapabilities = {
  approximateVectorSearch: true,
  concurrentWriters: true,
  maxDimensions: 8192,
  readOnlySql: true,
};

export function metaValue(conn: Connection, key: string): string | undefined {
  const row = conn.statement("SELECT value FROM meta WHERE key = ?").get(key) as { value: string } | undefined;
  return row?.value;
}

export function setMetaValue(conn: Connection, key: string, value: string | undefined): void {
  if (value === undefined) conn.statement("DELETE FROM meta WHERE key = ?").run(key);
  else conn.statement("INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value").run(key, value);
}

/** The recorded model (kept until the database changes: see Connection.kept). */
export function embeddingInfo(conn: Connection): EmbeddingInfo | undefined {
  return conn.kept("embeddingInfo", () => readEmbeddingInfo(conn));
}

function readEmbeddingInfo(conn: Connection): EmbeddingInfo | undefined {
  const provider = metaValue(conn, "embedding_provider");
  const model = metaValue(conn, "embedding_model");
  const dimensions = metaValue(conn, "embedding_dimensions");
  if (provider === undefined || model === undefined || dimensions === undefined) return undefined;
  return { provider, model, dimensions: Number(dimensions) };
}

/**
 * Records the embedding model and creates the vector table for its dimension; `replace` drops
 * every vector first (a re-embed). The caller forgets statements that read the old table.
 */
export async function setEmbeddingInfo(conn: Connection, info: EmbeddingInfo, options: { replace?: boolean }): Promise<void> {
  if (!Number.isInteger(info.dimensions) || info.dimensions < 1 || info.dimensions > SQLITE_CAPABILITIES.maxDimensions) {
    throw new StoreError(
      "INVALID_REQUEST",
      `invalid embedding dimensions ${info.dimensions}: use 1 to ${SQLITE_CAPABILITIES.maxDimensions}`,
    );
  }
  const { db } = conn;
  await conn.write(() => {
    const current = embeddingInfo(conn);
    if (options.replace) {
      db.exec("DROP TABLE IF EXISTS chunks_vec");
      db.exec("UPDATE chunks SET embedded = 0 WHERE embedded = 1");
      // No index built for the old vectors survives: drop their log and mark it pruned.
      const high = (conn.statement("SELECT coalesce(max(id), 0) AS n FROM vector_log").get() as { n: number }).n;
      conn.statement("DELETE FROM vector_log").run();
      setMetaValue(conn, "vector_log_floor", String(high));
    } else if (current && current.dimensions !== info.dimensions) {
      throw new StoreError(
        "CONFLICT",
        `the database holds ${current.dimensions}-dimension vectors; re-embed to change to ${info.dimensions}`,
      );
    }
    db.exec(`CREATE VIRTUAL TABLE IF NOT EXISTS chunks_vec USING vec0(embedding float[${info.dimensions}] distance_metric=cosine)`);
    setMetaValue(conn, "embedding_provider", info.provider);
    setMetaValue(conn, "embedding_model", info.model);
    setMetaValue(conn, "embedding_dimensions", String(info.dimensions));
    if (metaValue(conn, "embedded_at") === undefined || options.replace) setMetaValue(conn, "embedded_at", new Date().toISOString());
  });
}

/** True once a model was recorded (the vector table exists). */
export function hasVectorTable(conn: Connection): boolean {
  return conn.kept("hasVectorTable", () => conn.statement("SELECT 1 FROM sqlite_master WHERE name = 'chunks_vec'").get() !== undefined);
}

/**
 * Every count from an index or a small table: embedded chunks are all chunks but the pending
 * ones (both counted on an index; counting `embedded = 1` reads every chunk row, ~1 s at 1M),
 * vectors from sqlite-vec's rowid table where its layout is known (vec-chunks.ts).
 */
export function counts(conn: Connection): StoreCounts {
  const one = (sql: string) => (conn.statement(sql).get() as { n: number }).n;
  const chunks = one("SELECT count(*) AS n FROM chunks");
  const pending = one("SELECT count(*) AS n FROM chunks WHERE embedded = 0");
  const dimensions = embeddingInfo(conn)?.dimensions;
  const vectors = () => (dimensions && countFromChunks(conn.db, dimensions)) ?? one("SELECT count(*) AS n FROM chunks_vec");
  return {
    documents: one("SELECT count(*) AS n FROM documents"),
    chunks,
    embedded: chunks - pending,
    pending,
    keywordRows: one("SELECT count(*) AS n FROM chunks_fts"),
    vectors: hasVectorTable(conn) ? vectors() : 0,
    reusedVectors: reusedVectors(conn.db),
  };
}

/** Moves whenever the database does, from this connection or another one. */
export function changeToken(conn: Connection): string {
  return conn.changeToken();
}
