// The HNSW index's side of SQLite: what it needs from its database (the host), the vector log it
// replays to catch up (high-water mark, floor, pruning), a snapshot of every vector, and hit checks.
import type { VectorIndexProgress, VectorIndexSettings } from "@docdb/store";
import type Database from "better-sqlite3";
import { eachVectorFromChunks } from "./vec-chunks.js";

/** What the index needs from its database. */
export interface VectorIndexHost {
  db: Database.Database;
  /** The database file (the index lives at `${path}.hnsw`). */
  path: string;
  /** Runs `work` in a write transaction (waits for other writers). */
  write<T>(work: () => T): Promise<T>;
  /** Runs `work` in a write transaction if the lock is free within a moment; false when it was not. */
  tryWrite(work: () => void): boolean;
  /** Changes whenever the database does, from this connection or another one. */
  changeToken(): string;
  /** `read()`, or its value from before when the database has not changed since (never inside a transaction). */
  kept<T>(key: string, read: () => T): T;
  /** "provider|model|dimensions|embedded_at", or undefined before the first vector. */
  fingerprint(): string | undefined;
  dimensions(): number | undefined;
  /** Engine defaults under the per-database settings. */
  defaults: VectorIndexSettings;
  /** Where warnings go (a damaged index file set aside); standard error when absent. */
  warn?: (message: string) => void;
}

export interface SeqHit {
  seq: number;
  distance: number;
}

function toFloat32(blob: Buffer): Float32Array {
  // A copy: the native code reads from the start of the buffer (it ignores byteOffset).
  const out = new Float32Array(blob.byteLength / 4);
  new Uint8Array(out.buffer).set(blob);
  return out;
}

/**
 * SQLite as the index reads it. Every change to which chunk has which vector appends the chunk's
 * `seq` to `vector_log` (triggers on `chunks`, in the writing transaction), so log ids follow
 * commit order; an index (or the exact matrix) remembers the last id it applied.
 */
export class IndexLog {
  private readonly statements = new Map<string, Database.Statement>();

  constructor(private readonly host: VectorIndexHost) {}

  statement(sql: string): Database.Statement {
    let statement = this.statements.get(sql);
    if (!statement) {
      statement = this.host.db.prepare(sql);
      this.statements.set(sql, statement);
    }
    return statement;
  }

  /** The vector table was dropped and created again (a re-embed): its statements are stale. */
  resetStatements(): void {
    this.statements.clear();
  }

  /** A value read from the database, kept until it changes (see VectorIndexHost.kept). */
  kept<T>(key: string, read: () => T): T {
    return this.host.kept(key, read);
  }

  /** Embedded chunks, counted again only when something changed. */
  vectorCount(): number {
    return this.kept("log.vectors", () => {
      const chunks = (this.statement("SELECT count(*) AS n FROM chunks").get() as { n: number }).n;
      const pending = (this.statement("SELECT count(*) AS n FROM chunks WHERE embedded = 0").get() as { n: number }).n;
      return chunks - pending;
    });
  }

  /** The last log id written (entries up to the floor may have been pruned). */
  high(): number {
    return this.kept("log.high", () => {
      const high = (this.statement("SELECT coalesce(max(id), 0) AS n FROM vector_log").get() as { n: number }).n;
      return Math.max(high, this.floor());
    });
  }

  /** The last log id pruned: an index older than this cannot catch up. */
  floor(): number {
    return this.kept("log.floor", () => {
      const row = this.statement("SELECT value FROM meta WHERE key = 'vector_log_floor'").get() as { value: string } | undefined;
      return row ? Number(row.value) : 0;
    });
  }

  /** Drops the entries up to a written file's mark and records the new floor (in a write transaction). */
  prune(highWater: number): void {
    // Entries up to the file's mark are in the file; a process behind it reloads the file.
    this.statement("DELETE FROM vector_log WHERE id <= ?").run(highWater);
    this.statement(
      "INSERT INTO meta (key, value) VALUES ('vector_log_floor', ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
    ).run(String(highWater));
  }

  /** Applies the log entries after the index's mark: the current vector of every chunk they name. */
  catchUp(target: { highWater: number }, apply: (seq: number, vector: Float32Array | undefined) => void): number {
    const high = this.high();
    if (high <= target.highWater) return 0;
    const seqs = this.statement("SELECT DISTINCT seq FROM vector_log WHERE id > ? AND id <= ?")
      .pluck()
      .all(target.highWater, high) as number[];
    const vectorOf = this.statement("SELECT embedding FROM chunks_vec WHERE rowid = ?").pluck();
    for (const seq of seqs) {
      const blob = vectorOf.get(BigInt(seq)) as Buffer | undefined;
      apply(seq, blob ? toFloat32(blob) : undefined);
    }
    target.highWater = high;
    return seqs.length;
  }

  /** Log entries after the index's mark (an upper bound on the chunks to apply). */
  backlog(target: { highWater: number }): number {
    return Math.max(0, this.high() - target.highWater);
  }

  /** Distinct chunks named by log entries after `highWater`. */
  behind(highWater: number): number {
    return (this.statement("SELECT count(DISTINCT seq) AS n FROM vector_log WHERE id > ?").get(highWater) as { n: number }).n;
  }

  /** Every stored vector with the log position they reflect, read in one snapshot. */
  readAll(onProgress?: (p: VectorIndexProgress) => void): { keys: BigUint64Array; matrix: Float32Array; highWater: number } {
    const read = this.host.db.transaction(() => {
      const highWater = this.high();
      // Read afresh inside the transaction (counted on indexes; `embedded = 1` would read every row).
      const total = this.vectorCount();
      const dims = this.host.dimensions() ?? 0;
      let keys = new BigUint64Array(total);
      let matrix = new Float32Array(total * dims);
      let n = 0;
      this.visitVectors(dims, (seq, vector) => {
        if (n === keys.length) {
          const k2 = new BigUint64Array(keys.length * 2 + 1024);
          k2.set(keys);
          keys = k2;
          const m2 = new Float32Array(k2.length * dims);
          m2.set(matrix);
          matrix = m2;
        }
        keys[n] = BigInt(seq);
        matrix.set(vector, n * dims);
        n++;
        if (onProgress && n % 10_000 === 0) onProgress({ phase: "read", done: n, total });
      });
      onProgress?.({ phase: "read", done: n, total: n });
      return { keys: keys.subarray(0, n), matrix: matrix.subarray(0, n * dims), highWater };
    });
    return read.deferred();
  }

  /**
   * Every stored vector handed to `each` in one snapshot (nothing else held: the exact path
   * quantises as it reads); the log position they reflect.
   */
  eachVector(each: (seq: number, vector: Float32Array) => void): number {
    const read = this.host.db.transaction(() => {
      const highWater = this.high();
      this.visitVectors(this.host.dimensions() ?? 0, each);
      return highWater;
    });
    return read.deferred();
  }

  /**
   * Every stored vector, from sqlite-vec's chunk tables when their layout is the known one, else
   * through vec0 a row at a time (the same vectors, ~10× slower). `vector` is reused: `each` copies.
   */
  private visitVectors(dims: number, each: (seq: number, vector: Float32Array) => void): void {
    if (eachVectorFromChunks(this.host.db, dims, each)) return;
    const vector = new Float32Array(dims);
    const bytes = new Uint8Array(vector.buffer);
    for (const row of this.statement("SELECT rowid AS seq, embedding FROM chunks_vec").iterate() as Iterable<{
      seq: number;
      embedding: Buffer;
    }>) {
      bytes.set(row.embedding);
      each(row.seq, vector);
    }
  }

  /** Distances computed again from the stored vectors (sqlite-vec's cosine), best first; chunks without one dropped. */
  rescore(query: Float32Array, hits: SeqHit[]): SeqHit[] {
    const distance = this.statement("SELECT vec_distance_cosine(embedding, ?) FROM chunks_vec WHERE rowid = ?").pluck();
    const blob = Buffer.from(query.buffer, query.byteOffset, query.byteLength);
    const out: SeqHit[] = [];
    for (const { seq } of hits) {
      const d = distance.get(blob, BigInt(seq)) as number | undefined;
      if (d !== undefined && d !== null) out.push({ seq, distance: d });
    }
    return out.sort((a, b) => a.distance - b.distance || a.seq - b.seq);
  }

  /**
   * The hits whose chunk still has a vector in SQLite, in order: whatever the index still
   * holds, a chunk deleted by anyone is never returned.
   */
  verify(hits: SeqHit[]): SeqHit[] {
    if (hits.length === 0) return hits;
    const alive = new Set(
      this.statement("SELECT seq FROM chunks WHERE seq IN (SELECT value FROM json_each(?)) AND embedded = 1")
        .pluck()
        .all(JSON.stringify(hits.map((h) => h.seq))) as number[],
    );
    return hits.filter((h) => alive.has(h.seq));
  }
}
