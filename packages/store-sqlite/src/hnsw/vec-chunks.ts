// Every stored vector read from sqlite-vec's own chunk tables (one row holds up to 1,024 vectors)
// instead of one row at a time through vec0's scan, which costs ~20 µs a row (20 s at 1M); used
// only on the table layout docdb creates with sqlite-vec 0.1.x, the vec0 scan otherwise.
import type Database from "better-sqlite3";

/** The table docdb creates (meta.ts), as SQLite keeps its statement: one cosine f32 column, nothing else. */
const TABLE_SQL = /^CREATE VIRTUAL TABLE chunks_vec USING vec0\(embedding float\[(\d+)\] distance_metric=cosine\)$/;
/** Its shadow tables in sqlite-vec 0.1.x; another (metadata, auxiliary or partition columns) means another layout. */
const SHADOW_TABLES = ["chunks_vec_chunks", "chunks_vec_info", "chunks_vec_rowids", "chunks_vec_vector_chunks00"];

/** Whether the chunk tables hold the vectors as sqlite-vec 0.1.x writes them (and this build reads them). */
function knownLayout(db: Database.Database, dimensions: number): boolean {
  const version = db.prepare("SELECT vec_version()").pluck().get() as string;
  if (!version.startsWith("v0.1.")) return false;
  const tables = db.prepare("SELECT name, sql FROM sqlite_master WHERE name LIKE 'chunks\\_vec%' ESCAPE '\\' ORDER BY name").all() as {
    name: string;
    sql: string | null;
  }[];
  const main = tables.find((t) => t.name === "chunks_vec");
  const match = main?.sql ? TABLE_SQL.exec(main.sql) : null;
  if (!match || Number(match[1]) !== dimensions) return false;
  const shadows = tables.filter((t) => t !== main && !t.name.startsWith("sqlite_autoindex")).map((t) => t.name);
  if (shadows.join() !== SHADOW_TABLES.join()) return false;
  const info = new Map(
    (db.prepare("SELECT key, value FROM chunks_vec_info").all() as { key: string; value: unknown }[]).map((r) => [r.key, r.value]),
  );
  return info.get("CREATE_VERSION_MAJOR") === 0 && info.get("CREATE_VERSION_MINOR") === 1;
}

/**
 * The vectors stored, counted from sqlite-vec's rowid table (1 ms at 1M, where vec0's own count
 * visits every row: ~0.4 s); undefined when the layout is not the known one.
 */
export function countFromChunks(db: Database.Database, dimensions: number): number | undefined {
  if (!knownLayout(db, dimensions)) return undefined;
  return db.prepare("SELECT count(*) FROM chunks_vec_rowids").pluck().get() as number;
}

function bitsSet(validity: Buffer, size: number): number {
  let n = 0;
  for (let i = 0; i < size; i++) n += ((validity[i >> 3] as number) >> (i & 7)) & 1;
  return n;
}

/**
 * Hands every stored vector to `each` (seq, a view into a buffer reused for the next chunk of
 * rows: `each` copies what it keeps), in the order sqlite-vec's own scan visits them. Returns
 * false, having called nothing, when the tables are not in the known layout or do not agree with
 * themselves (every chunk's sizes, and as many valid slots as rows in `chunks_vec_rowids`): the
 * caller then reads through vec0. Runs inside the caller's transaction (one snapshot).
 */
export function eachVectorFromChunks(
  db: Database.Database,
  dimensions: number,
  each: (seq: number, vector: Float32Array) => void,
): boolean {
  if (!knownLayout(db, dimensions)) return false;
  const rowBytes = dimensions * 4;
  const shapes = db
    .prepare(
      `SELECT c.size, c.validity, length(c.rowids) AS rowids, length(v.vectors) AS vectors
       FROM chunks_vec_chunks c LEFT JOIN chunks_vec_vector_chunks00 v ON v._rowid_ = c.chunk_id`,
    )
    .all() as { size: number; validity: Buffer; rowids: number; vectors: number | null }[];
  let valid = 0;
  for (const s of shapes) {
    const fits = s.validity.length * 8 >= s.size && s.rowids === s.size * 8 && s.vectors === s.size * rowBytes;
    if (!fits) return false;
    valid += bitsSet(s.validity, s.size);
  }
  const rows = db.prepare("SELECT count(*) FROM chunks_vec_rowids").pluck().get() as number;
  if (valid !== rows) return false;

  let floats = new Float32Array(0);
  const chunks = db
    .prepare(
      `SELECT c.size, c.validity, c.rowids, v.vectors
       FROM chunks_vec_chunks c CROSS JOIN chunks_vec_vector_chunks00 v ON v._rowid_ = c.chunk_id ORDER BY c.chunk_id`,
    )
    .iterate() as Iterable<{ size: number; validity: Buffer; rowids: Buffer; vectors: Buffer }>;
  for (const { size, validity, rowids, vectors } of chunks) {
    // Copied into an aligned buffer of floats; the blob's bytes may start anywhere.
    if (floats.length < size * dimensions) floats = new Float32Array(size * dimensions);
    new Uint8Array(floats.buffer, 0, vectors.length).set(vectors);
    for (let i = 0; i < size; i++) {
      if (((validity[i >> 3] as number) >> (i & 7)) & 1) {
        each(Number(rowids.readBigInt64LE(i * 8)), floats.subarray(i * dimensions, (i + 1) * dimensions));
      }
    }
  }
  return true;
}
