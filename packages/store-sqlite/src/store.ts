import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import Database from "better-sqlite3";
import * as sqliteVec from "sqlite-vec";
import { analyzeForIndex, type KeywordQuery } from "./analyzer.js";
import { filterToSql, type SearchFilter } from "./filter.js";
import { keywordSearch } from "./keyword-search.js";
import { migrate } from "./migrate.js";
import type { ChunkHit, ChunkRow, DocumentRow, EmbeddingInfo, EmbeddingSource, NewChunk, NewDocument, StoreCounts } from "./types.js";

export interface OpenStoreOptions {
  readonly?: boolean;
  /** Migrations folder; defaults to the one shipped with the package. */
  migrationsDir?: string;
}

type RawChunk = Omit<ChunkRow, "embedded"> & { embedded: number };
type RawHit = Omit<ChunkHit, "embedded" | "metadata"> & { embedded: number; metadata: string };

const HIT_COLUMNS = `c.seq, c.id, c.doc_id, c.idx, c.text, c.start, c.end, c.heading, c.line_start, c.line_end, c.embedded,
  d.title, d.source, d.collection, d.metadata, d.updated_at AS doc_updated_at`;

function toHit(row: RawHit): ChunkHit {
  return { ...row, embedded: row.embedded === 1, metadata: JSON.parse(row.metadata) as Record<string, unknown> };
}

function toVectorBlob(vector: Float32Array): Buffer {
  return Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength);
}

/** One docdb database: a SQLite file with sqlite-vec loaded, FTS5 and the docdb schema. */
export class SqliteStore {
  readonly db: Database.Database;
  readonly path: string;

  private constructor(db: Database.Database, path: string) {
    this.db = db;
    this.path = path;
  }

  /** Opens (creating when needed) the file at `path`, loads sqlite-vec and applies migrations. */
  static open(path: string, options: OpenStoreOptions = {}): SqliteStore {
    if (path !== ":memory:" && !options.readonly) mkdirSync(dirname(path), { recursive: true });
    const db = new Database(path, { readonly: options.readonly ?? false, fileMustExist: options.readonly ?? false });
    try {
      sqliteVec.load(db);
      db.pragma("busy_timeout = 5000");
      db.pragma("foreign_keys = ON");
      if (!options.readonly) {
        db.pragma("journal_mode = WAL");
        db.pragma("synchronous = NORMAL");
        migrate(db, options.migrationsDir);
      }
    } catch (error) {
      db.close();
      throw error;
    }
    return new SqliteStore(db, path);
  }

  close(): void {
    if (this.db.open) this.db.close();
  }

  getMeta(key: string): string | undefined {
    const row = this.db.prepare("SELECT value FROM meta WHERE key = ?").get(key) as { value: string } | undefined;
    return row?.value;
  }

  setMeta(key: string, value: string): void {
    this.db.prepare("INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value").run(key, value);
  }

  /** The model that embedded this database, or undefined before the first vector. */
  getEmbeddingInfo(): EmbeddingInfo | undefined {
    const provider = this.getMeta("embedding_provider");
    const model = this.getMeta("embedding_model");
    const dimensions = this.getMeta("embedding_dimensions");
    if (provider === undefined || model === undefined || dimensions === undefined) return undefined;
    return { provider, model, dimensions: Number(dimensions) };
  }

  /**
   * Records the embedding model and creates the vector table of its dimension. With `replace`,
   * every stored vector is dropped and every chunk marked pending (used to re-embed).
   */
  setEmbeddingInfo(info: EmbeddingInfo, options: { replace?: boolean } = {}): void {
    if (!Number.isInteger(info.dimensions) || info.dimensions < 1 || info.dimensions > 8192) {
      throw new RangeError(`invalid embedding dimensions ${info.dimensions}`);
    }
    this.db.transaction(() => {
      if (options.replace) {
        this.db.exec("DROP TABLE IF EXISTS chunks_vec");
        this.db.exec("UPDATE chunks SET embedded = 0 WHERE embedded = 1");
      }
      this.db.exec(`CREATE VIRTUAL TABLE IF NOT EXISTS chunks_vec USING vec0(embedding float[${info.dimensions}] distance_metric=cosine)`);
      this.setMeta("embedding_provider", info.provider);
      this.setMeta("embedding_model", info.model);
      this.setMeta("embedding_dimensions", String(info.dimensions));
      if (this.getMeta("embedded_at") === undefined || options.replace) this.setMeta("embedded_at", new Date().toISOString());
    })();
  }

  hasVectorTable(): boolean {
    return this.db.prepare("SELECT 1 FROM sqlite_master WHERE name = 'chunks_vec'").get() !== undefined;
  }

  /** Writes a document, its chunks and their keyword index in one transaction; returns chunk seqs. */
  insertDocument(doc: NewDocument, chunks: NewChunk[]): number[] {
    const now = new Date().toISOString();
    const insertDoc = this.db.prepare(
      `INSERT INTO documents (id, source, title, content, content_hash, metadata, collection, created_at, updated_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    const insertChunk = this.db.prepare(
      `INSERT INTO chunks (id, doc_id, idx, text, start, end, heading, line_start, line_end)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    const insertFts = this.db.prepare("INSERT INTO chunks_fts (rowid, title, body) VALUES (?, ?, ?)");
    const titleWords = analyzeForIndex(doc.title ?? "");
    return this.db.transaction(() => {
      insertDoc.run(
        doc.id,
        doc.source ?? null,
        doc.title ?? null,
        doc.content,
        doc.contentHash,
        JSON.stringify(doc.metadata),
        doc.collection ?? null,
        now,
        now,
      );
      const seqs: number[] = [];
      for (const chunk of chunks) {
        const result = insertChunk.run(
          chunk.id,
          doc.id,
          chunk.idx,
          chunk.text,
          chunk.start,
          chunk.end,
          chunk.heading ?? null,
          chunk.lineStart ?? null,
          chunk.lineEnd ?? null,
        );
        const seq = Number(result.lastInsertRowid);
        const title = chunk.heading ? `${titleWords} ${analyzeForIndex(chunk.heading)}` : titleWords;
        insertFts.run(seq, title, analyzeForIndex(chunk.text));
        seqs.push(seq);
      }
      return seqs;
    })();
  }

  /** Stores vectors for chunks and marks them embedded, in one transaction. */
  writeVectors(items: { seq: number; vector: Float32Array }[]): void {
    const info = this.getEmbeddingInfo();
    if (!info || !this.hasVectorTable()) throw new Error("no embedding model recorded: call setEmbeddingInfo first");
    const remove = this.db.prepare("DELETE FROM chunks_vec WHERE rowid = ?");
    const insert = this.db.prepare("INSERT INTO chunks_vec (rowid, embedding) VALUES (?, ?)");
    const mark = this.db.prepare("UPDATE chunks SET embedded = 1 WHERE seq = ?");
    const exists = this.db.prepare("SELECT 1 FROM chunks WHERE seq = ?");
    this.db.transaction(() => {
      for (const { seq, vector } of items) {
        if (vector.length !== info.dimensions) {
          throw new RangeError(`vector for chunk ${seq} has ${vector.length} dimensions, the database holds ${info.dimensions}`);
        }
        // A chunk deleted while its batch was being embedded is skipped, not resurrected.
        if (exists.get(seq) === undefined) continue;
        remove.run(BigInt(seq));
        insert.run(BigInt(seq), toVectorBlob(vector));
        mark.run(seq);
      }
    })();
  }

  /** Chunks waiting for a vector, in insertion order, after `afterSeq`. */
  pendingChunks(limit: number, afterSeq = 0): EmbeddingSource[] {
    return this.db
      .prepare(
        `SELECT c.seq, c.text, c.heading, d.title FROM chunks c JOIN documents d ON d.id = c.doc_id
         WHERE c.embedded = 0 AND c.seq > ? ORDER BY c.seq LIMIT ?`,
      )
      .all(afterSeq, limit) as EmbeddingSource[];
  }

  /** Every chunk in order after `afterSeq` (for re-embedding). */
  chunksAfter(limit: number, afterSeq = 0): EmbeddingSource[] {
    return this.db
      .prepare(
        `SELECT c.seq, c.text, c.heading, d.title FROM chunks c JOIN documents d ON d.id = c.doc_id WHERE c.seq > ? ORDER BY c.seq LIMIT ?`,
      )
      .all(afterSeq, limit) as EmbeddingSource[];
  }

  getDocument(id: string): DocumentRow | undefined {
    const row = this.db.prepare("SELECT * FROM documents WHERE id = ?").get(id) as
      | (Omit<DocumentRow, "metadata"> & { metadata: string })
      | undefined;
    return row ? { ...row, metadata: JSON.parse(row.metadata) as Record<string, unknown> } : undefined;
  }

  getChunksOf(docId: string): ChunkRow[] {
    const rows = this.db
      .prepare(
        "SELECT seq, id, doc_id, idx, text, start, end, heading, line_start, line_end, embedded FROM chunks WHERE doc_id = ? ORDER BY idx",
      )
      .all(docId) as RawChunk[];
    return rows.map((r) => ({ ...r, embedded: r.embedded === 1 }));
  }

  /** Removes a document with its chunks, vectors and index rows; returns the chunks removed, or -1 if absent. */
  deleteDocument(id: string): number {
    const hasVec = this.hasVectorTable();
    return this.db.transaction(() => {
      if (this.db.prepare("SELECT 1 FROM documents WHERE id = ?").get(id) === undefined) return -1;
      const seqs = (this.db.prepare("SELECT seq FROM chunks WHERE doc_id = ?").all(id) as { seq: number }[]).map((r) => r.seq);
      const deleteFts = this.db.prepare("DELETE FROM chunks_fts WHERE rowid = ?");
      const deleteVec = hasVec ? this.db.prepare("DELETE FROM chunks_vec WHERE rowid = ?") : undefined;
      for (const seq of seqs) {
        deleteFts.run(seq);
        deleteVec?.run(BigInt(seq));
      }
      this.db.prepare("DELETE FROM chunks WHERE doc_id = ?").run(id);
      this.db.prepare("DELETE FROM documents WHERE id = ?").run(id);
      return seqs.length;
    })();
  }

  listDocuments(
    options: { limit?: number; offset?: number; collection?: string } = {},
  ): (Omit<DocumentRow, "content"> & { chunk_count: number; length: number })[] {
    const where = options.collection !== undefined ? "WHERE d.collection = ?" : "";
    const params: unknown[] = options.collection !== undefined ? [options.collection] : [];
    const rows = this.db
      .prepare(
        `SELECT d.id, d.source, d.title, d.content_hash, d.metadata, d.collection, d.created_at, d.updated_at,
                length(d.content) AS length, (SELECT count(*) FROM chunks c WHERE c.doc_id = d.id) AS chunk_count
         FROM documents d ${where} ORDER BY d.created_at, d.id LIMIT ? OFFSET ?`,
      )
      .all(...params, options.limit ?? 100, options.offset ?? 0) as (Omit<DocumentRow, "content" | "metadata"> & {
      metadata: string;
      chunk_count: number;
      length: number;
    })[];
    return rows.map((r) => ({ ...r, metadata: JSON.parse(r.metadata) as Record<string, unknown> }));
  }

  counts(): StoreCounts {
    const one = (sql: string) => (this.db.prepare(sql).get() as { n: number }).n;
    return {
      documents: one("SELECT count(*) AS n FROM documents"),
      chunks: one("SELECT count(*) AS n FROM chunks"),
      embedded: one("SELECT count(*) AS n FROM chunks WHERE embedded = 1"),
      pending: one("SELECT count(*) AS n FROM chunks WHERE embedded = 0"),
      ftsRows: one("SELECT count(*) AS n FROM chunks_fts"),
      vectors: this.hasVectorTable() ? one("SELECT count(*) AS n FROM chunks_vec") : 0,
    };
  }

  /**
   * BM25 over the segmented index (title weighted 2:1), with a word-order bonus when given a
   * KeywordQuery (see keyword-search.ts). A string is used as one MATCH expression. Higher is better.
   */
  keywordSearch(query: KeywordQuery | string, limit: number, filter?: SearchFilter): { seq: number; score: number }[] {
    return keywordSearch(this.db, query, limit, filter);
  }

  /**
   * Nearest chunks by cosine distance. Unfiltered: sqlite-vec KNN. Filtered: exact distances
   * over the matching chunks when they are few, otherwise KNN with a growing over-fetch.
   */
  vectorSearch(vector: Float32Array, limit: number, filter?: SearchFilter): { seq: number; distance: number }[] {
    if (!this.hasVectorTable()) return [];
    const blob = toVectorBlob(vector);
    const knn = this.db.prepare("SELECT rowid AS seq, distance FROM chunks_vec WHERE embedding MATCH ? AND k = ? ORDER BY distance");
    const { sql, params } = filterToSql(filter);
    if (!sql) return knn.all(blob, limit) as { seq: number; distance: number }[];

    const candidates = (
      this.db
        .prepare(`SELECT count(*) AS n FROM chunks c JOIN documents d ON d.id = c.doc_id WHERE c.embedded = 1 AND ${sql}`)
        .get(...params) as { n: number }
    ).n;
    if (candidates === 0) return [];
    if (candidates <= 5000) {
      return this.db
        .prepare(
          `SELECT c.seq AS seq, vec_distance_cosine(v.embedding, ?) AS distance
           FROM chunks c JOIN documents d ON d.id = c.doc_id JOIN chunks_vec v ON v.rowid = c.seq
           WHERE c.embedded = 1 AND ${sql} ORDER BY distance LIMIT ?`,
        )
        .all(blob, ...params, limit) as { seq: number; distance: number }[];
    }
    const total = (this.db.prepare("SELECT count(*) AS n FROM chunks_vec").get() as { n: number }).n;
    const allowed = this.db.prepare(`SELECT 1 FROM chunks c JOIN documents d ON d.id = c.doc_id WHERE c.seq = ? AND ${sql}`);
    for (let k = Math.max(limit * 4, 64); ; k *= 4) {
      const hits = knn.all(blob, Math.min(k, total)) as { seq: number; distance: number }[];
      const kept = hits.filter((h) => allowed.get(h.seq, ...params) !== undefined);
      if (kept.length >= limit || k >= total) return kept.slice(0, limit);
    }
  }

  /** Chunks with their document fields, in the order of `seqs`. */
  hits(seqs: number[]): ChunkHit[] {
    if (seqs.length === 0) return [];
    const rows = this.db
      .prepare(`SELECT ${HIT_COLUMNS} FROM chunks c JOIN documents d ON d.id = c.doc_id WHERE c.seq IN (SELECT value FROM json_each(?))`)
      .all(JSON.stringify(seqs)) as RawHit[];
    const bySeq = new Map(rows.map((r) => [r.seq, toHit(r)]));
    return seqs.map((s) => bySeq.get(s)).filter((h): h is ChunkHit => h !== undefined);
  }
}
