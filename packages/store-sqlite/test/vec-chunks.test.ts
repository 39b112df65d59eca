// Reading every vector from sqlite-vec's chunk tables (hnsw/vec-chunks.ts) must give exactly what
// vec0's own scan gives, through inserts, deletes (a chunk emptied and dropped), replaced vectors;
// and must step aside, having read nothing, when the tables are not in the layout it knows.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import * as sqliteVec from "sqlite-vec";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { countFromChunks, eachVectorFromChunks } from "../src/hnsw/vec-chunks.js";

const DIMS = 12;
let dir: string;
let db: Database.Database;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "docdb-vec-chunks-"));
  db = new Database(join(dir, "v.db"));
  sqliteVec.load(db);
  // As meta.ts creates it.
  db.exec(`CREATE VIRTUAL TABLE IF NOT EXISTS chunks_vec USING vec0(embedding float[${DIMS}] distance_metric=cosine)`);
});
afterEach(() => {
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

let seed = 1;
function vector(): Buffer {
  const v = new Float32Array(DIMS);
  for (let d = 0; d < DIMS; d++) {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    v[d] = seed / 2 ** 31 - 0.5;
  }
  return Buffer.from(v.buffer);
}

/** SQL on another connection, without sqlite-vec: its tables are plain tables there. */
function plain(sql: string): void {
  const other = new Database(join(dir, "v.db"));
  try {
    other.prepare(sql).run();
  } finally {
    other.close();
  }
}

function insert(from: number, to: number): void {
  const put = db.prepare("INSERT INTO chunks_vec (rowid, embedding) VALUES (?, ?)");
  db.transaction(() => {
    for (let seq = from; seq < to; seq++) put.run(BigInt(seq), vector());
  })();
}

function remove(seqs: number[]): void {
  const del = db.prepare("DELETE FROM chunks_vec WHERE rowid = ?");
  db.transaction(() => {
    for (const seq of seqs) del.run(BigInt(seq));
  })();
}

/** vec0's own scan, a row at a time: seq → the vector's values. */
function scanned(): Map<number, number[]> {
  const out = new Map<number, number[]>();
  for (const row of db.prepare("SELECT rowid AS seq, embedding FROM chunks_vec").iterate() as Iterable<{
    seq: number;
    embedding: Buffer;
  }>) {
    out.set(row.seq, Array.from(new Float32Array(new Uint8Array(row.embedding).buffer)));
  }
  return out;
}

function fromChunks(): { read: boolean; vectors: Map<number, number[]> } {
  const vectors = new Map<number, number[]>();
  const read = eachVectorFromChunks(db, DIMS, (seq, v) => {
    expect(vectors.has(seq)).toBe(false);
    vectors.set(seq, Array.from(v));
  });
  return { read, vectors };
}

describe("every stored vector from sqlite-vec's chunk tables", () => {
  it("is what vec0's scan reads, through inserts, deletes and replaced vectors", () => {
    // Three chunks of 1,024 slots, the last part full.
    insert(1, 2600);
    let got = fromChunks();
    expect(got.read).toBe(true);
    expect(got.vectors.size).toBe(2599);
    expect(got.vectors).toEqual(scanned());

    // Scattered deletes, then the whole first chunk emptied (sqlite-vec drops the chunk), then
    // new vectors in a new chunk, and some replaced (deleted and written again, as docdb does).
    remove(Array.from({ length: 200 }, (_, i) => 1100 + i * 7));
    remove(Array.from({ length: 1024 }, (_, i) => i + 1));
    insert(5000, 6500);
    const replaced = [1500, 2000, 5001, 6499];
    remove(replaced);
    const put = db.prepare("INSERT INTO chunks_vec (rowid, embedding) VALUES (?, ?)");
    for (const seq of replaced) put.run(BigInt(seq), vector());
    got = fromChunks();
    expect(got.read).toBe(true);
    const expected = scanned();
    expect(expected.size).toBe(2599 - 200 - 1024 + 1500);
    expect(got.vectors).toEqual(expected);
    expect(countFromChunks(db, DIMS)).toBe(expected.size);

    // sqlite-vec addresses a chunk's vectors by the table's internal rowid, which older versions
    // let drift from the column named rowid: the reader follows the internal one too.
    plain("UPDATE chunks_vec_vector_chunks00 SET rowid = rowid + 100");
    got = fromChunks();
    expect(got.read).toBe(true);
    expect(got.vectors).toEqual(scanned());
  });

  it("reads nothing from an empty table", () => {
    expect(countFromChunks(db, DIMS)).toBe(0);
    const got = fromChunks();
    expect(got).toEqual({ read: true, vectors: new Map() });
  });

  it("steps aside on a layout it does not know, or tables that disagree, having read nothing", () => {
    insert(1, 50);
    const visits = () => {
      let n = 0;
      return { read: eachVectorFromChunks(db, DIMS, () => n++), visited: () => n };
    };
    // Another dimension count than the table's.
    expect(eachVectorFromChunks(db, DIMS + 1, () => expect.unreachable())).toBe(false);
    expect(countFromChunks(db, DIMS + 1)).toBeUndefined();
    // Tables written by another minor version of sqlite-vec (changed where sqlite-vec is not
    // loaded: it guards its tables).
    plain("UPDATE chunks_vec_info SET value = 2 WHERE key = 'CREATE_VERSION_MINOR'");
    let v = visits();
    expect([v.read, v.visited()]).toEqual([false, 0]);
    plain("UPDATE chunks_vec_info SET value = 1 WHERE key = 'CREATE_VERSION_MINOR'");
    v = visits();
    expect([v.read, v.visited()]).toEqual([true, 49]);
    // A row of the rowid table without its slot (the counts disagree).
    plain("INSERT INTO chunks_vec_rowids (rowid, chunk_id, chunk_offset) VALUES (999, 1, 900)");
    v = visits();
    expect([v.read, v.visited()]).toEqual([false, 0]);
  });

  it("steps aside on a table with more than the one vector column", () => {
    db.exec("DROP TABLE chunks_vec");
    db.exec(`CREATE VIRTUAL TABLE chunks_vec USING vec0(embedding float[${DIMS}] distance_metric=cosine, tag text)`);
    const put = db.prepare("INSERT INTO chunks_vec (rowid, embedding, tag) VALUES (?, ?, 'x')");
    for (let seq = 1; seq < 10; seq++) put.run(BigInt(seq), vector());
    expect(eachVectorFromChunks(db, DIMS, () => expect.unreachable())).toBe(false);
  });
});
