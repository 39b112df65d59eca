import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { ANALYZER_VERSION, analyzeForIndex, type IndexTerms, indexTerms, type KeywordQuery } from "@docdb/analyzer";
import type {
  ChunkHit,
  CodeSymbol,
  CollectionCounts,
  CollectionPatch,
  CollectionRecord,
  DocumentSummary,
  DocumentWrite,
  EmbeddingInfo,
  EngineCapabilities,
  ExportedChunk,
  KeywordHit,
  NewChunk,
  PendingChunk,
  RemovedCounts,
  SearchOptions,
  SqlQueryOptions,
  SqlQueryResult,
  Store,
  StoreCounts,
  StoredChunk,
  StoredDocument,
  StoredFile,
  VectorHit,
  VectorIndexControl,
  VectorIndexSettings,
  WriteResult,
} from "@docdb/store";
import { type Filter, StoreError } from "@docdb/store";
import Database from "better-sqlite3";
import { filterToSql } from "./filter.js";
import { keywordSearch } from "./keyword.js";
import { findMigrationsDir, hasPendingMigrations, migrate } from "./migrate.js";
import { addReusedVectors, reusedVectors } from "./reuse-counter.js";
import { SqlReader } from "./sql.js";
import { DEFAULT_VECTOR_INDEX_SETTINGS, type SeqHit, VectorIndex } from "./vector-index.js";
import { BUSY_ATTEMPT_MS, waitForLock, writeTransaction } from "./write-lock.js";

export const SQLITE_CAPABILITIES: EngineCapabilities = {
  approximateVectorSearch: true,
  concurrentWriters: true,
  maxDimensions: 8192,
  readOnlySql: true,
};

/** Documents deleted per transaction by bulk deletes, so other writers get their turn. */
export const DELETE_BATCH = 200;
/** Chunks re-indexed per transaction when the keyword index is rebuilt. */
const REINDEX_BATCH = 2000;
/** Filtered vector search computes exact distances when at most this many chunks match. */
const EXACT_FILTER_LIMIT = 5000;
/**
 * Filtered approximate search scans exactly when fewer than this share of the vectors match:
 * the graph would have to be walked too far to find `limit` of them.
 */
const MIN_FILTER_SHARE = 0.02;
/** The most candidates a filtered approximate search asks the graph for before scanning exactly. */
const MAX_OVERFETCH = 8192;
/** Distinct filters whose match counts are kept between writes. */
const MATCHING_CACHE_SIZE = 64;

type Row = Record<string, unknown>;

/** What the keyword index reads of a chunk besides its text. */
type IndexedChunk = Pick<NewChunk, "heading" | "symbol" | "symbols" | "doc" | "language">;

function toVectorBlob(vector: Float32Array): Buffer {
  return Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength);
}

function toDocument(row: Row): StoredDocument {
  return {
    id: row.id as string,
    key: (row.key as string | null) ?? null,
    source: (row.source as string | null) ?? null,
    title: (row.title as string | null) ?? null,
    content: row.content as string,
    contentHash: row.content_hash as string,
    metadata: JSON.parse(row.metadata as string) as Record<string, unknown>,
    collection: (row.collection as string | null) ?? null,
    createdAt: row.created_at as string,
    updatedAt: row.updated_at as string,
  };
}

function toChunk(row: Row): StoredChunk {
  return {
    id: row.id as string,
    docId: row.doc_id as string,
    idx: row.idx as number,
    text: row.text as string,
    start: row.start as number,
    end: row.end as number,
    heading: (row.heading as string | null) ?? null,
    lineStart: (row.line_start as number | null) ?? null,
    lineEnd: (row.line_end as number | null) ?? null,
    language: (row.language as string | null) ?? null,
    symbol: (row.symbol as string | null) ?? null,
    symbolKind: (row.symbol_kind as string | null) ?? null,
    symbols: row.symbols ? (JSON.parse(row.symbols as string) as CodeSymbol[]) : [],
    codeFallback: (row.code_fallback as string | null) ?? null,
    doc: (row.doc as string | null) ?? null,
    embedded: row.embedded === 1,
  };
}

function toCollection(row: Row): CollectionRecord {
  return {
    name: row.name as string,
    description: row.description as string,
    source: row.source as string,
    enabled: row.enabled === 1,
    settings: JSON.parse(row.settings as string) as Record<string, unknown>,
    createdAt: row.created_at as string,
    updatedAt: row.updated_at as string,
    lastImportAt: (row.last_import_at as string | null) ?? null,
  };
}

function toFile(row: Row): StoredFile {
  return {
    collection: row.collection as string,
    path: row.path as string,
    size: row.size as number,
    mtime: row.mtime as number,
    contentHash: row.content_hash as string,
    chunking: row.chunking as string,
    docId: row.doc_id as string,
    importedAt: row.imported_at as string,
    chunkCount: row.chunk_count as number,
  };
}

export interface SqliteStoreOptions {
  /** Total time a write waits for another process's write lock before CONFLICT. */
  busyTimeoutMs: number;
  /** Migrations folder; defaults to the one shipped with the package. */
  migrationsDir?: string;
  /** Defaults of the approximate vector index (each database may keep its own settings). */
  vectorIndex?: Partial<VectorIndexSettings>;
}

let native: { nativeBinding: string | undefined; sqliteVec: typeof import("sqlite-vec") } | undefined;

/**
 * What the first database to open loads: sqlite-vec, and the path of better-sqlite3's compiled
 * addon. better-sqlite3's JavaScript is an ordinary import (bundled into the programs, where it
 * comes with their code cache); it loads its addon only when a database opens. Given the path
 * (where better-sqlite3 builds and installs it, the way its documentation tells bundlers to),
 * it skips the `bindings` package's search, which cannot work from inside a bundle. sqlite-vec
 * stays a package of its own (it finds its platform's loadable library from where it is
 * installed), required rather than imported: import() would start Node's ES module loader.
 */
function loadNative() {
  if (!native) {
    const load = createRequire(import.meta.url);
    const addon = join(dirname(load.resolve("better-sqlite3/package.json")), "build", "Release", "better_sqlite3.node");
    native = { nativeBinding: existsSync(addon) ? addon : undefined, sqliteVec: load("sqlite-vec") as typeof import("sqlite-vec") };
  }
  return native;
}

/**
 * Vectors and keyword rows of a write, inserted after every other row of it, keyword rows last.
 * FTS5 writes out the terms it holds in memory whenever another statement of the transaction
 * opens a savepoint (an INSERT into `chunks` does: it also updates sqlite_sequence), so keyword
 * rows interleaved with chunk inserts made one tiny index segment per chunk, and merging those
 * was most of the cost of a write.
 */
class LateRows {
  private rows: { seq: number; terms: IndexTerms }[] = [];
  private vectors: { seq: number; blob: Buffer }[] = [];
  constructor(
    private readonly insert: Database.Statement,
    private readonly insertVector: () => Database.Statement,
  ) {}

  add(seq: number, terms: IndexTerms, vector?: Buffer): void {
    this.rows.push({ seq, terms });
    if (vector) this.vectors.push({ seq, blob: vector });
  }

  /** Vectors, then keyword rows (the last statements of the write). */
  flush(): void {
    if (this.vectors.length > 0) {
      const insert = this.insertVector();
      for (const { seq, blob } of this.vectors) insert.run(BigInt(seq), blob);
      this.vectors = [];
    }
    for (const { seq, terms } of this.rows) this.insert.run(seq, terms.title, terms.body);
    this.rows = [];
  }
}

/** One docdb database: a SQLite file with sqlite-vec loaded, FTS5 and the docdb schema. */
export class SqliteStore implements Store {
  readonly capabilities = SQLITE_CAPABILITIES;
  private readonly statements = new Map<string, Database.Statement>();
  private matching: { token: string; counts: Map<string, number> } = { token: "", counts: new Map() };
  private readonly reader: SqlReader;
  private readonly ann: VectorIndex;
  /** The HNSW index beside the database file: `docdb index status|rebuild`. */
  readonly vectorIndex: VectorIndexControl;

  private constructor(
    readonly name: string,
    readonly location: string,
    private readonly db: Database.Database,
    private readonly options: SqliteStoreOptions,
  ) {
    this.reader = new SqlReader(location);
    this.ann = new VectorIndex({
      db,
      path: location,
      write: (work) => this.write(work),
      tryWrite: (work) => {
        try {
          this.db.transaction(work).immediate();
          return true;
        } catch (error) {
          const code = (error as { code?: unknown })?.code;
          if (typeof code === "string" && code.startsWith("SQLITE_BUSY")) return false;
          throw error;
        }
      },
      changeToken: () => this.changeTokenNow(),
      fingerprint: () => {
        const info = this.embeddingInfo();
        if (!info || !this.hasVectorTable()) return undefined;
        return `${info.provider}|${info.model}|${info.dimensions}|${this.metaValue("embedded_at") ?? ""}`;
      },
      dimensions: () => this.embeddingInfo()?.dimensions,
      defaults: { ...DEFAULT_VECTOR_INDEX_SETTINGS, ...options.vectorIndex },
    });
    this.vectorIndex = {
      status: () => this.ann.status(),
      rebuild: (opts) => this.ann.rebuild(opts ?? {}),
    };
  }

  /** Opens (creating when needed) the file at `path`, loads sqlite-vec and brings the schema up to date. */
  static async open(name: string, path: string, options: SqliteStoreOptions): Promise<SqliteStore> {
    const { nativeBinding, sqliteVec } = loadNative();
    const db = new Database(path, nativeBinding !== undefined ? { nativeBinding } : {});
    try {
      sqliteVec.load(db);
      db.pragma(`busy_timeout = ${BUSY_ATTEMPT_MS}`);
      db.pragma("foreign_keys = ON");
      const store = new SqliteStore(name, path, db, options);
      // WAL lets readers work while a writer writes; switching needs the lock when the file is new.
      if (db.pragma("journal_mode", { simple: true }) !== "wal") {
        await waitForLock(path, options.busyTimeoutMs, () => db.pragma("journal_mode = WAL"));
      }
      db.pragma("synchronous = NORMAL");
      const dir = options.migrationsDir ?? findMigrationsDir();
      if (hasPendingMigrations(db, dir)) await store.write(() => migrate(db, dir));
      await store.refreshKeywordIndex();
      return store;
    } catch (error) {
      db.close();
      throw error;
    }
  }

  /** Prepared once per SQL text and connection. */
  private statement(sql: string): Database.Statement {
    let statement = this.statements.get(sql);
    if (!statement) {
      statement = this.db.prepare(sql);
      this.statements.set(sql, statement);
    }
    return statement;
  }

  private write<T>(work: () => T): Promise<T> {
    return writeTransaction(this.db, this.location, this.options.busyTimeoutMs, work);
  }

  async close(): Promise<void> {
    // The reader first: its connection must be gone before the last one closes (and checkpoints).
    await this.reader.close();
    if (!this.db.open) return;
    await this.ann.flush();
    this.db.close();
  }

  /**
   * Read-only SQL in a separate process with a read-only `query_only` connection (see
   * sql-child.mjs): one SELECT/WITH/VALUES statement, capped in rows and time.
   */
  async querySql(sql: string, options: SqlQueryOptions): Promise<SqlQueryResult> {
    return this.reader.query(sql, options);
  }

  private metaValue(key: string): string | undefined {
    const row = this.statement("SELECT value FROM meta WHERE key = ?").get(key) as { value: string } | undefined;
    return row?.value;
  }

  private setMetaValue(key: string, value: string | undefined): void {
    if (value === undefined) this.statement("DELETE FROM meta WHERE key = ?").run(key);
    else
      this.statement("INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value").run(key, value);
  }

  /**
   * The keyword index is derived from the chunk text: when it was built by another analyzer
   * version (or never), it is refilled in batches. Interrupted, it starts over on the next open.
   */
  private async refreshKeywordIndex(): Promise<void> {
    if (this.metaValue("analyzer_version") === String(ANALYZER_VERSION)) return;
    const chunks = (this.statement("SELECT count(*) AS n FROM chunks").get() as { n: number }).n;
    if (chunks === 0) {
      await this.write(() => this.setMetaValue("analyzer_version", String(ANALYZER_VERSION)));
      return;
    }
    await this.write(() => this.db.exec("INSERT INTO chunks_fts (chunks_fts) VALUES ('delete-all')"));
    let after = 0;
    for (;;) {
      const rows = this.statement(
        `SELECT c.seq, c.text, c.heading, c.symbol, c.symbols, c.doc, c.language, d.title FROM chunks c JOIN documents d ON d.id = c.doc_id
         WHERE c.seq > ? ORDER BY c.seq LIMIT ?`,
      ).all(after, REINDEX_BATCH) as ({ seq: number; text: string; title: string | null; symbols: string | null } & Omit<
        IndexedChunk,
        "symbols"
      >)[];
      if (rows.length === 0) break;
      // Analysed before the transaction, which then holds the write lock only to insert.
      const indexed = rows.map((r) => ({
        seq: r.seq,
        terms: indexTerms(r.title, { ...r, symbols: r.symbols ? (JSON.parse(r.symbols) as CodeSymbol[]) : null }, r.text),
      }));
      await this.write(() => {
        const insert = this.statement("INSERT INTO chunks_fts (rowid, title, body) VALUES (?, ?, ?)");
        for (const { seq, terms } of indexed) insert.run(seq, terms.title, terms.body);
      });
      after = (rows[rows.length - 1] as { seq: number }).seq;
    }
    await this.write(() => this.setMetaValue("analyzer_version", String(ANALYZER_VERSION)));
  }

  async getEmbeddingInfo(): Promise<EmbeddingInfo | undefined> {
    return this.embeddingInfo();
  }

  private embeddingInfo(): EmbeddingInfo | undefined {
    const provider = this.metaValue("embedding_provider");
    const model = this.metaValue("embedding_model");
    const dimensions = this.metaValue("embedding_dimensions");
    if (provider === undefined || model === undefined || dimensions === undefined) return undefined;
    return { provider, model, dimensions: Number(dimensions) };
  }

  async setEmbeddingInfo(info: EmbeddingInfo, options: { replace?: boolean } = {}): Promise<void> {
    if (!Number.isInteger(info.dimensions) || info.dimensions < 1 || info.dimensions > SQLITE_CAPABILITIES.maxDimensions) {
      throw new StoreError(
        "INVALID_REQUEST",
        `invalid embedding dimensions ${info.dimensions}: use 1 to ${SQLITE_CAPABILITIES.maxDimensions}`,
      );
    }
    await this.write(() => {
      const current = this.embeddingInfo();
      if (options.replace) {
        this.db.exec("DROP TABLE IF EXISTS chunks_vec");
        this.db.exec("UPDATE chunks SET embedded = 0 WHERE embedded = 1");
        // No index built for the old vectors survives: drop their log and mark it pruned.
        const high = (this.statement("SELECT coalesce(max(id), 0) AS n FROM vector_log").get() as { n: number }).n;
        this.statement("DELETE FROM vector_log").run();
        this.setMetaValue("vector_log_floor", String(high));
      } else if (current && current.dimensions !== info.dimensions) {
        throw new StoreError(
          "CONFLICT",
          `the database holds ${current.dimensions}-dimension vectors; re-embed to change to ${info.dimensions}`,
        );
      }
      this.db.exec(`CREATE VIRTUAL TABLE IF NOT EXISTS chunks_vec USING vec0(embedding float[${info.dimensions}] distance_metric=cosine)`);
      this.setMetaValue("embedding_provider", info.provider);
      this.setMetaValue("embedding_model", info.model);
      this.setMetaValue("embedding_dimensions", String(info.dimensions));
      if (this.metaValue("embedded_at") === undefined || options.replace) this.setMetaValue("embedded_at", new Date().toISOString());
    });
    this.statements.clear();
    this.ann.resetStatements();
    if (options.replace) this.ann.removeFiles();
  }

  async getSetting(key: string): Promise<string | undefined> {
    return this.metaValue(`setting:${key}`);
  }

  async setSetting(key: string, value: string | undefined): Promise<void> {
    await this.write(() => this.setMetaValue(`setting:${key}`, value));
  }

  private hasVectorTable(): boolean {
    return this.statement("SELECT 1 FROM sqlite_master WHERE name = 'chunks_vec'").get() !== undefined;
  }

  private checkVector(vector: Float32Array, dimensions: number, what: string): void {
    if (!(vector instanceof Float32Array) || vector.length !== dimensions) {
      throw new StoreError("INVALID_REQUEST", `vector for ${what} has ${vector?.length} dimensions, the database holds ${dimensions}`);
    }
  }

  async writeDocuments(writes: DocumentWrite[]): Promise<WriteResult[]> {
    if (writes.length === 0) return [];
    return this.write(() => {
      const info = this.embeddingInfo();
      const vectors = info !== undefined && this.hasVectorTable();
      const late = new LateRows(this.statement("INSERT INTO chunks_fts (rowid, title, body) VALUES (?, ?, ?)"), () =>
        this.statement("INSERT INTO chunks_vec (rowid, embedding) VALUES (?, ?)"),
      );
      const results = writes.map((w) => this.writeOne(w, vectors ? info : undefined, late));
      late.flush();
      return results;
    });
  }

  private writeOne(write: DocumentWrite, info: EmbeddingInfo | undefined, late: LateRows): WriteResult {
    const { document: doc, chunks } = write;
    const now = new Date().toISOString();
    const collection = write.file ? write.file.collection : (doc.collection ?? null);
    const source = write.file ? write.file.record.path : (doc.source ?? null);
    const replacedIds = new Set<string>();
    let kept: { id: string; created_at: string } | undefined;
    if (write.upsertByKey && doc.key) {
      kept = this.statement("SELECT id, created_at FROM documents WHERE key = ?").get(doc.key) as typeof kept;
      if (kept) replacedIds.add(kept.id);
    }
    if (write.file) {
      const old = this.statement(
        `SELECT doc_id FROM files WHERE collection = ? AND path = ? UNION SELECT id FROM documents WHERE collection = ? AND source = ?`,
      )
        .pluck()
        .all(collection, source, collection, source) as string[];
      for (const id of old) replacedIds.add(id);
    }
    // The replaced document may be one written earlier in this call: its late rows first.
    if (replacedIds.size > 0) late.flush();
    // Vectors of replaced chunks whose embedding input did not change carry over.
    const reusable = new Map<string, Buffer>();
    if (info && replacedIds.size > 0 && chunks.some((c) => c.inputHash)) {
      const rows = this.statement(
        `SELECT c.input_hash AS hash, v.embedding AS embedding FROM chunks c JOIN chunks_vec v ON v.rowid = c.seq
         WHERE c.doc_id IN (SELECT value FROM json_each(?)) AND c.embedded = 1 AND c.input_hash IS NOT NULL`,
      ).all(JSON.stringify([...replacedIds])) as { hash: string; embedding: Buffer }[];
      for (const r of rows) reusable.set(r.hash, r.embedding);
    }
    for (const id of replacedIds) this.deleteOne(id);

    const docId = kept?.id ?? doc.id;
    this.statement(
      `INSERT INTO documents (id, key, source, title, content, content_hash, metadata, collection, created_at, updated_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ).run(
      docId,
      doc.key ?? null,
      source,
      doc.title ?? null,
      doc.content,
      doc.contentHash,
      JSON.stringify(doc.metadata),
      collection,
      kept?.created_at ?? doc.createdAt ?? now,
      doc.updatedAt ?? now,
    );
    // Terms analysed beforehand (core does it outside the transaction) or, failing that, here.
    let titleTerms: string | undefined;
    const termsOf = (chunk: (typeof chunks)[number]): IndexTerms => {
      if (chunk.terms?.version === ANALYZER_VERSION) return chunk.terms;
      titleTerms ??= doc.title ? analyzeForIndex(doc.title) : "";
      return indexTerms(doc.title, chunk, chunk.text, titleTerms);
    };
    const insertChunk = this.statement(
      `INSERT INTO chunks (id, doc_id, idx, text, start, end, heading, line_start, line_end, input_hash, embedded,
                           language, symbol, symbol_kind, symbols, code_fallback, doc)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    let reused = 0;
    for (const chunk of chunks) {
      let vector: Buffer | undefined;
      if (chunk.vector) {
        if (!info)
          throw new StoreError("INVALID_REQUEST", "vectors given before an embedding model was recorded: call setEmbeddingInfo first");
        this.checkVector(chunk.vector, info.dimensions, `chunk ${chunk.id}`);
        vector = toVectorBlob(chunk.vector);
      } else if (chunk.inputHash && reusable.has(chunk.inputHash)) {
        vector = reusable.get(chunk.inputHash);
        reused++;
      }
      const result = insertChunk.run(
        chunk.id,
        docId,
        chunk.idx,
        chunk.text,
        chunk.start,
        chunk.end,
        chunk.heading ?? null,
        chunk.lineStart ?? null,
        chunk.lineEnd ?? null,
        chunk.inputHash ?? null,
        vector ? 1 : 0,
        chunk.language ?? null,
        chunk.symbol ?? null,
        chunk.symbolKind ?? null,
        chunk.symbols && chunk.symbols.length > 0 ? JSON.stringify(chunk.symbols) : null,
        chunk.codeFallback ?? null,
        chunk.doc ?? null,
      );
      const seq = Number(result.lastInsertRowid);
      late.add(seq, termsOf(chunk), vector);
    }
    if (write.file) {
      const f = write.file.record;
      this.statement(
        `INSERT INTO files (collection, path, size, mtime, content_hash, doc_id, chunking, imported_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT(collection, path) DO UPDATE SET size = excluded.size, mtime = excluded.mtime,
           content_hash = excluded.content_hash, doc_id = excluded.doc_id, chunking = excluded.chunking,
           imported_at = excluded.imported_at`,
      ).run(collection, f.path, f.size, f.mtime, f.contentHash, docId, f.chunking, now);
    }
    addReusedVectors(this.db, reused);
    return { docId, replaced: replacedIds.size > 0, reusedVectors: reused };
  }

  /** Removes one document with its chunks, vectors, keyword rows and file rows; -1 when absent. */
  private deleteOne(id: string): number {
    if (this.statement("SELECT 1 FROM documents WHERE id = ?").get(id) === undefined) return -1;
    const seqs = this.statement("SELECT seq FROM chunks WHERE doc_id = ?").pluck().all(id) as number[];
    const vectors = this.hasVectorTable();
    for (const seq of seqs) {
      this.statement("DELETE FROM chunks_fts WHERE rowid = ?").run(seq);
      if (vectors) this.statement("DELETE FROM chunks_vec WHERE rowid = ?").run(BigInt(seq));
    }
    this.statement("DELETE FROM chunks WHERE doc_id = ?").run(id);
    this.statement("DELETE FROM files WHERE doc_id = ?").run(id);
    this.statement("DELETE FROM documents WHERE id = ?").run(id);
    return seqs.length;
  }

  async writeVectors(items: { chunkId: string; vector: Float32Array }[]): Promise<number> {
    if (items.length === 0) return 0;
    return this.write(() => {
      const info = this.embeddingInfo();
      if (!info || !this.hasVectorTable()) {
        throw new StoreError("INVALID_REQUEST", "no embedding model recorded: call setEmbeddingInfo before writing vectors");
      }
      let written = 0;
      for (const { chunkId, vector } of items) {
        this.checkVector(vector, info.dimensions, `chunk ${chunkId}`);
        const seq = this.statement("SELECT seq FROM chunks WHERE id = ?").pluck().get(chunkId) as number | undefined;
        // A chunk deleted while its batch was being embedded is skipped, not resurrected.
        if (seq === undefined) continue;
        this.statement("DELETE FROM chunks_vec WHERE rowid = ?").run(BigInt(seq));
        this.statement("INSERT INTO chunks_vec (rowid, embedding) VALUES (?, ?)").run(BigInt(seq), toVectorBlob(vector));
        this.statement("UPDATE chunks SET embedded = 1 WHERE seq = ?").run(seq);
        written++;
      }
      return written;
    });
  }

  async pendingChunks(limit: number, afterChunkId = ""): Promise<PendingChunk[]> {
    const rows = this.statement(
      `SELECT c.id, c.text, c.heading, d.title FROM chunks c JOIN documents d ON d.id = c.doc_id
       WHERE c.embedded = 0 AND c.id > ? ORDER BY c.id LIMIT ?`,
    ).all(afterChunkId, limit) as { id: string; text: string; heading: string | null; title: string | null }[];
    return rows.map((r) => ({ chunkId: r.id, text: r.text, heading: r.heading, title: r.title }));
  }

  async getDocument(id: string): Promise<StoredDocument | undefined> {
    const row = this.statement("SELECT * FROM documents WHERE id = ?").get(id) as Row | undefined;
    return row ? toDocument(row) : undefined;
  }

  async getDocumentByKey(key: string): Promise<StoredDocument | undefined> {
    const row = this.statement("SELECT * FROM documents WHERE key = ?").get(key) as Row | undefined;
    return row ? toDocument(row) : undefined;
  }

  async getChunks(docId: string): Promise<StoredChunk[]> {
    return (this.statement("SELECT * FROM chunks WHERE doc_id = ? ORDER BY idx").all(docId) as Row[]).map(toChunk);
  }

  async exportChunks(docId: string): Promise<ExportedChunk[]> {
    const rows = this.statement("SELECT * FROM chunks WHERE doc_id = ? ORDER BY idx").all(docId) as Row[];
    const vectors = this.hasVectorTable();
    return rows.map((row) => {
      const chunk: ExportedChunk = { ...toChunk(row), inputHash: (row.input_hash as string | null) ?? null };
      if (vectors && chunk.embedded) {
        const blob = this.statement("SELECT embedding FROM chunks_vec WHERE rowid = ?")
          .pluck()
          .get(BigInt(row.seq as number)) as Buffer | undefined;
        // A copy of the bytes, aligned for a Float32Array.
        if (blob) chunk.vector = new Float32Array(new Uint8Array(blob).buffer);
      }
      return chunk;
    });
  }

  async deleteDocuments(ids: string[]): Promise<RemovedCounts> {
    const removed = { documents: 0, chunks: 0 };
    for (let i = 0; i < ids.length; i += DELETE_BATCH) {
      const batch = ids.slice(i, i + DELETE_BATCH);
      await this.write(() => {
        for (const id of batch) {
          const chunks = this.deleteOne(id);
          if (chunks < 0) continue;
          removed.documents++;
          removed.chunks += chunks;
        }
      });
    }
    return removed;
  }

  async listDocuments(options: { limit: number; offset?: number; filter?: Filter }): Promise<DocumentSummary[]> {
    const { sql, params } = filterToSql(options.filter, "document");
    const rows = this.db
      .prepare(
        `SELECT d.id, d.key, d.source, d.title, d.content_hash, d.metadata, d.collection, d.created_at, d.updated_at,
                length(d.content) AS length, (SELECT count(*) FROM chunks c WHERE c.doc_id = d.id) AS chunk_count
         FROM documents d WHERE ${sql} ORDER BY d.created_at, d.id LIMIT ? OFFSET ?`,
      )
      .all(...params, options.limit, options.offset ?? 0) as Row[];
    return rows.map((r) => {
      const { content: _content, ...rest } = toDocument({ ...r, content: "" });
      return { ...rest, chunkCount: r.chunk_count as number, length: r.length as number };
    });
  }

  async counts(): Promise<StoreCounts> {
    const one = (sql: string) => (this.statement(sql).get() as { n: number }).n;
    return {
      documents: one("SELECT count(*) AS n FROM documents"),
      chunks: one("SELECT count(*) AS n FROM chunks"),
      embedded: one("SELECT count(*) AS n FROM chunks WHERE embedded = 1"),
      pending: one("SELECT count(*) AS n FROM chunks WHERE embedded = 0"),
      keywordRows: one("SELECT count(*) AS n FROM chunks_fts"),
      vectors: this.hasVectorTable() ? one("SELECT count(*) AS n FROM chunks_vec") : 0,
      reusedVectors: reusedVectors(this.db),
    };
  }

  private idsOf<T extends { seq: number }>(hits: T[]): (Omit<T, "seq"> & { chunkId: string })[] {
    if (hits.length === 0) return [];
    const ids = new Map(
      (
        this.statement("SELECT seq, id FROM chunks WHERE seq IN (SELECT value FROM json_each(?))").all(
          JSON.stringify(hits.map((h) => h.seq)),
        ) as {
          seq: number;
          id: string;
        }[]
      ).map((r) => [r.seq, r.id]),
    );
    return hits.flatMap(({ seq, ...rest }) => {
      const chunkId = ids.get(seq);
      return chunkId === undefined ? [] : [{ ...rest, chunkId }];
    });
  }

  async keywordSearch(query: KeywordQuery, options: SearchOptions): Promise<KeywordHit[]> {
    return this.idsOf(keywordSearch(this.db, query, options.limit, options.filter));
  }

  async vectorSearch(vector: Float32Array, options: SearchOptions & { exact?: boolean }): Promise<VectorHit[]> {
    const info = this.embeddingInfo();
    if (!info || !this.hasVectorTable()) return [];
    this.checkVector(vector, info.dimensions, "the query");
    return this.idsOf(await this.search(vector, options));
  }

  /**
   * Below the index threshold: sqlite-vec scans (usearch is never loaded). Above it: the HNSW
   * index, or with `exact` an in-memory SIMD scan. Filtered: exact when the filter is selective,
   * otherwise the index with an over-fetch sized by the filter's share, growing until enough pass.
   */
  private async search(vector: Float32Array, options: SearchOptions & { exact?: boolean }): Promise<SeqHit[]> {
    const { limit } = options;
    const blob = toVectorBlob(vector);
    if (limit < 1) return [];
    if (!this.ann.active()) return this.nearest(blob, options);
    const { sql, params } = filterToSql(options.filter);
    if (sql === "1") {
      if (options.exact) return (await this.ann.exactSearch(vector, limit)) ?? this.nearest(blob, options);
      const total = this.ann.vectorCount();
      for (let k = limit; ; k *= 2) {
        const candidates = await this.ann.candidates(vector, k);
        if (!candidates) return this.nearest(blob, options);
        // Hits whose chunk was deleted meanwhile are dropped: ask for more until `limit` remain.
        const hits = this.ann.verify(candidates);
        if (hits.length >= limit || candidates.length < k || k >= total) return hits.slice(0, limit);
      }
    }
    const matching = this.countMatching(sql, params);
    const total = this.ann.vectorCount();
    if (matching === 0) return [];
    if (matching <= EXACT_FILTER_LIMIT || matching < total * MIN_FILTER_SHARE) return this.nearest(blob, options, matching);
    const allowed = this.db.prepare(
      `SELECT c.seq FROM chunks c JOIN documents d ON d.id = c.doc_id
       WHERE c.seq IN (SELECT value FROM json_each(?)) AND c.embedded = 1 AND ${sql}`,
    );
    // The filter query also checks that each chunk still has its vector.
    const passing = (candidates: SeqHit[]) => {
      const pass = new Set(allowed.pluck().all(JSON.stringify(candidates.map((c) => c.seq)), ...params) as number[]);
      return candidates.filter((c) => pass.has(c.seq));
    };
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
   * How many embedded chunks pass a filter: a join over every chunk (~160 ms at 100k), so it is
   * kept until anyone writes to the database (an agent repeating a filter pays it once).
   */
  private countMatching(sql: string, params: unknown[]): number {
    const token = this.changeTokenNow();
    if (token !== this.matching.token) this.matching = { token, counts: new Map() };
    const key = `${sql}\u0000${JSON.stringify(params)}`;
    let n = this.matching.counts.get(key);
    if (n === undefined) {
      n = (
        this.db
          .prepare(`SELECT count(*) AS n FROM chunks c JOIN documents d ON d.id = c.doc_id WHERE c.embedded = 1 AND ${sql}`)
          .get(...params) as { n: number }
      ).n;
      if (this.matching.counts.size >= MATCHING_CACHE_SIZE) this.matching.counts.clear();
      this.matching.counts.set(key, n);
    }
    return n;
  }

  /**
   * Unfiltered: sqlite-vec KNN (an exact scan). Filtered: exact distances over the matching
   * chunks when they are few, otherwise KNN with a growing over-fetch until enough pass.
   */
  private nearest(blob: Buffer, options: SearchOptions, matching?: number): { seq: number; distance: number }[] {
    const { limit } = options;
    const knn = this.statement("SELECT rowid AS seq, distance FROM chunks_vec WHERE embedding MATCH ? AND k = ? ORDER BY distance");
    const { sql, params } = filterToSql(options.filter);
    if (sql === "1") return knn.all(blob, limit) as { seq: number; distance: number }[];

    const candidates = matching ?? this.countMatching(sql, params);
    if (candidates === 0) return [];
    if (candidates <= EXACT_FILTER_LIMIT) {
      return this.db
        .prepare(
          `SELECT c.seq AS seq, vec_distance_cosine(v.embedding, ?) AS distance
           FROM chunks c JOIN documents d ON d.id = c.doc_id JOIN chunks_vec v ON v.rowid = c.seq
           WHERE c.embedded = 1 AND ${sql} ORDER BY distance LIMIT ?`,
        )
        .all(blob, ...params, limit) as { seq: number; distance: number }[];
    }
    const total = (this.statement("SELECT count(*) AS n FROM chunks_vec").get() as { n: number }).n;
    const allowed = this.db.prepare(`SELECT 1 FROM chunks c JOIN documents d ON d.id = c.doc_id WHERE c.seq = ? AND ${sql}`);
    for (let k = Math.max(limit * 4, 64); ; k *= 4) {
      const hits = knn.all(blob, Math.min(k, total)) as { seq: number; distance: number }[];
      const kept = hits.filter((h) => allowed.get(h.seq, ...params) !== undefined);
      if (kept.length >= limit || k >= total) return kept.slice(0, limit);
    }
  }

  async chunkHits(chunkIds: string[]): Promise<ChunkHit[]> {
    if (chunkIds.length === 0) return [];
    const rows = this.statement(
      `SELECT c.*, d.title, d.source, d.collection, d.metadata, d.updated_at AS doc_updated_at
       FROM chunks c JOIN documents d ON d.id = c.doc_id WHERE c.id IN (SELECT value FROM json_each(?))`,
    ).all(JSON.stringify(chunkIds)) as Row[];
    const byId = new Map(
      rows.map((r) => [
        r.id as string,
        {
          ...toChunk(r),
          title: (r.title as string | null) ?? null,
          source: (r.source as string | null) ?? null,
          collection: (r.collection as string | null) ?? null,
          metadata: JSON.parse(r.metadata as string) as Record<string, unknown>,
          docUpdatedAt: r.doc_updated_at as string,
        },
      ]),
    );
    return chunkIds.flatMap((id) => {
      const hit = byId.get(id);
      return hit ? [hit] : [];
    });
  }

  async listCollections(): Promise<CollectionRecord[]> {
    return (this.statement("SELECT * FROM collections ORDER BY name").all() as Row[]).map(toCollection);
  }

  async getCollection(name: string): Promise<CollectionRecord | undefined> {
    const row = this.statement("SELECT * FROM collections WHERE name = ?").get(name) as Row | undefined;
    return row ? toCollection(row) : undefined;
  }

  async createCollection(input: { name: string; description: string; source: string; enabled: boolean }): Promise<CollectionRecord> {
    const now = new Date().toISOString();
    await this.write(() => {
      if (this.statement("SELECT 1 FROM collections WHERE name = ?").get(input.name) !== undefined) {
        throw new StoreError("CONFLICT", `collection "${input.name}" already exists`);
      }
      this.statement("INSERT INTO collections (name, description, source, enabled, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)").run(
        input.name,
        input.description,
        input.source,
        input.enabled ? 1 : 0,
        now,
        now,
      );
    });
    return (await this.getCollection(input.name)) as CollectionRecord;
  }

  async updateCollection(name: string, patch: CollectionPatch): Promise<boolean> {
    const values: Record<string, unknown> = {
      description: patch.description,
      source: patch.source,
      enabled: patch.enabled === undefined ? undefined : patch.enabled ? 1 : 0,
      settings: patch.settings === undefined ? undefined : JSON.stringify(patch.settings),
      last_import_at: patch.lastImportAt,
    };
    const columns = Object.keys(values).filter((k) => values[k] !== undefined);
    const sets = [...columns.map((c) => `${c} = ?`), "updated_at = ?"];
    const params = [...columns.map((c) => values[c]), new Date().toISOString()];
    // Recording an import is not a change to the collection itself.
    if (columns.length === 1 && columns[0] === "last_import_at") {
      sets.pop();
      params.pop();
    }
    return this.write(() => this.db.prepare(`UPDATE collections SET ${sets.join(", ")} WHERE name = ?`).run(...params, name).changes > 0);
  }

  async clearCollection(name: string): Promise<RemovedCounts> {
    const removed = { documents: 0, chunks: 0 };
    for (;;) {
      // One bounded batch per transaction, so a long clear never starves other writers.
      const batch = await this.write(() => {
        const ids = this.statement("SELECT id FROM documents WHERE collection = ? LIMIT ?").pluck().all(name, DELETE_BATCH) as string[];
        for (const id of ids) {
          removed.chunks += Math.max(0, this.deleteOne(id));
          removed.documents++;
        }
        if (ids.length === 0) this.statement("DELETE FROM files WHERE collection = ?").run(name);
        return ids.length;
      });
      if (batch === 0) return removed;
    }
  }

  async deleteCollection(name: string): Promise<RemovedCounts> {
    const removed = await this.clearCollection(name);
    await this.write(() => this.statement("DELETE FROM collections WHERE name = ?").run(name));
    return removed;
  }

  async collectionCounts(name: string): Promise<CollectionCounts> {
    const row = this.statement(
      `SELECT
         (SELECT count(*) FROM documents WHERE collection = @c) AS documents,
         (SELECT count(*) FROM chunks c JOIN documents d ON d.id = c.doc_id WHERE d.collection = @c) AS chunks,
         (SELECT count(*) FROM chunks c JOIN documents d ON d.id = c.doc_id WHERE d.collection = @c AND c.embedded = 1) AS embedded,
         (SELECT count(*) FROM files WHERE collection = @c) AS files,
         (SELECT count(DISTINCT c.doc_id) FROM chunks c JOIN documents d ON d.id = c.doc_id
          WHERE d.collection = @c AND c.code_fallback IS NOT NULL) AS codeFallbackDocuments,
         (SELECT count(*) FROM chunks c JOIN documents d ON d.id = c.doc_id
          WHERE d.collection = @c AND c.code_fallback IS NOT NULL) AS codeFallbackChunks`,
    ).get({ c: name }) as Omit<CollectionCounts, "pending">;
    return { ...row, pending: row.chunks - row.embedded };
  }

  async listFiles(collection: string): Promise<StoredFile[]> {
    return (
      this.statement(
        `SELECT f.*, (SELECT count(*) FROM chunks c WHERE c.doc_id = f.doc_id) AS chunk_count
         FROM files f WHERE f.collection = ? ORDER BY f.path`,
      ).all(collection) as Row[]
    ).map(toFile);
  }

  async filesOfDocuments(docIds: string[]): Promise<StoredFile[]> {
    if (docIds.length === 0) return [];
    return (
      this.statement(
        `SELECT f.*, (SELECT count(*) FROM chunks c WHERE c.doc_id = f.doc_id) AS chunk_count
         FROM files f WHERE f.doc_id IN (SELECT value FROM json_each(?))`,
      ).all(JSON.stringify(docIds)) as Row[]
    ).map(toFile);
  }

  async touchFile(collection: string, path: string, size: number, mtime: number): Promise<void> {
    await this.write(() =>
      this.statement("UPDATE files SET size = ?, mtime = ? WHERE collection = ? AND path = ?").run(size, mtime, collection, path),
    );
  }

  async removeFile(collection: string, path: string): Promise<number> {
    return this.write(() => {
      const docId = this.statement("SELECT doc_id FROM files WHERE collection = ? AND path = ?").pluck().get(collection, path) as
        | string
        | undefined;
      if (docId === undefined) return 0;
      const chunks = Math.max(0, this.deleteOne(docId));
      this.statement("DELETE FROM files WHERE collection = ? AND path = ?").run(collection, path);
      return chunks;
    });
  }

  async changeToken(): Promise<string> {
    return this.changeTokenNow();
  }

  private changeTokenNow(): string {
    // data_version moves when another connection commits; total_changes when this one writes.
    const version = this.db.pragma("data_version", { simple: true }) as number;
    const own = this.statement("SELECT total_changes() AS n").get() as { n: number };
    return `${version}:${own.n}`;
  }
}
