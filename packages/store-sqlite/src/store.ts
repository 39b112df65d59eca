// The Store of one SQLite database: opening it, and each contract method handed to the room that
// holds its concern (write, read, keyword, vector, collections, meta, sql).
import type { KeywordQuery } from "@docdb/analyzer";
import type {
  AuditEntry,
  AuditQuery,
  AuditRecord,
  ChunkHit,
  CollectionCounts,
  CollectionPatch,
  CollectionRecord,
  DocumentSummary,
  DocumentWrite,
  EmbeddingInfo,
  ExportedChunk,
  Filter,
  KeywordHit,
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
  TokenRecord,
  VectorHit,
  VectorIndexControl,
  VectorIndexSettings,
  VectorSearchOptions,
  WriteResult,
} from "@docdb/store";
import Database from "better-sqlite3";
import * as access from "./access.js";
import { WalCheckpointer, type WalCheckpointOptions, type WalCheckpointView } from "./checkpointer.js";
import * as collections from "./collections.js";
import { Connection, loadNative } from "./connection.js";
import { keywordSearch, refreshKeywordIndex } from "./keyword.js";
import { type KeywordIndexOptions, type KeywordIndexView, LiveKeywordIndex } from "./keyword-live/live.js";
import * as lease from "./lease.js";
import * as meta from "./meta.js";
import { findMigrationsDir, hasPendingMigrations, migrate } from "./migrate.js";
import * as read from "./read.js";
import { SqlReader } from "./sql.js";
import { Vectors } from "./vector.js";
import { deleteDocuments, writeDocuments } from "./write.js";
import { BUSY_ATTEMPT_MS, waitForLock } from "./write-lock.js";

export interface SqliteStoreOptions {
  /** Total time a write waits for another process's write lock before CONFLICT. */
  busyTimeoutMs: number;
  /** Migrations folder; defaults to the one shipped with the package. */
  migrationsDir?: string;
  /** Defaults of the approximate vector index (each database may keep its own settings). */
  vectorIndex?: Partial<VectorIndexSettings>;
  /** The keyword index beside the database (threshold: chunks below which FTS5 answers alone). */
  keywordIndex?: KeywordIndexOptions;
  /** The background WAL checkpointer (checkpointer.ts): its threshold, or its script (tests). */
  walCheckpoint?: WalCheckpointOptions;
}

/** One docdb database: a SQLite file with sqlite-vec loaded, FTS5 and the docdb schema. */
export class SqliteStore implements Store {
  readonly capabilities = meta.SQLITE_CAPABILITIES;
  private readonly conn: Connection;
  private readonly reader: SqlReader;
  private readonly vectors: Vectors;
  /** The keyword index beside the database file (`<name>.db.keywords`); its status is part of vectorIndex.status(). */
  get keywords(): KeywordIndexView {
    return this.keywordIndex;
  }
  private readonly keywordIndex: LiveKeywordIndex;
  /** The HNSW index beside the database file: `docdb index status|rebuild`. */
  readonly vectorIndex: VectorIndexControl;
  /** Copies the WAL into the database file in a worker thread (set up once the file is in WAL mode). */
  private checkpointer: WalCheckpointer | undefined;
  /** The background checkpointer's state; undefined before the database is in WAL mode. */
  get walCheckpoints(): WalCheckpointView | undefined {
    return this.checkpointer;
  }

  private constructor(
    readonly name: string,
    readonly location: string,
    db: Database.Database,
    options: SqliteStoreOptions,
  ) {
    this.conn = new Connection(db, location, options.busyTimeoutMs);
    this.reader = new SqlReader(location);
    this.vectors = new Vectors(this.conn, options.vectorIndex);
    this.keywordIndex = new LiveKeywordIndex(this.conn, options.keywordIndex);
    const ann = this.vectors.ann;
    const keywords = this.keywordIndex;
    // `docdb index status|rebuild` show the keyword index beside the vector index.
    this.vectorIndex = {
      status: async () => ({ ...(await ann.status()), keyword: keywords.status() }),
      rebuild: async (opts) => {
        const vector = await ann.rebuild(opts ?? {});
        await keywords.rebuild();
        return { ...vector, keyword: keywords.status() };
      },
    };
  }

  /** Opens (creating when needed) the file at `path`, loads sqlite-vec and brings the schema up to date. */
  static async open(name: string, path: string, options: SqliteStoreOptions): Promise<SqliteStore> {
    const { nativeBinding, sqliteVec } = loadNative();
    const db = new Database(path, nativeBinding !== undefined ? { nativeBinding } : {});
    let store: SqliteStore | undefined;
    try {
      sqliteVec.load(db);
      db.pragma(`busy_timeout = ${BUSY_ATTEMPT_MS}`);
      db.pragma("foreign_keys = ON");
      store = new SqliteStore(name, path, db, options);
      // WAL lets readers work while a writer writes; switching needs the lock when the file is new.
      if (db.pragma("journal_mode", { simple: true }) !== "wal") {
        await waitForLock(path, options.busyTimeoutMs, () => db.pragma("journal_mode = WAL"));
      }
      db.pragma("synchronous = NORMAL");
      // Checkpoints (copying the WAL into the file, with its fsyncs) run in a worker thread.
      store.checkpointer = new WalCheckpointer(db, path, nativeBinding, options.walCheckpoint);
      const checkpointer = store.checkpointer;
      store.conn.onCommit = () => checkpointer.committed();
      const dir = options.migrationsDir ?? findMigrationsDir();
      if (hasPendingMigrations(db, dir)) await store.conn.write(() => migrate(db, dir));
      if (await refreshKeywordIndex(store.conn)) store.keywordIndex.reset();
      return store;
    } catch (error) {
      await store?.checkpointer?.close();
      db.close();
      throw error;
    }
  }

  async close(): Promise<void> {
    // The reader first: its connection must be gone before the last one closes (and checkpoints).
    await this.reader.close();
    if (!this.conn.db.open) return;
    await this.vectors.ann.flush();
    await this.keywordIndex.flush();
    // The worker's connection goes before the last one, which copies the rest of the WAL and removes it.
    await this.checkpointer?.close();
    this.conn.db.close();
  }

  /**
   * Read-only SQL in a separate process with a read-only `query_only` connection (see
   * sql-child.mjs): one SELECT/WITH/VALUES statement, capped in rows and time.
   */
  async querySql(sql: string, options: SqlQueryOptions): Promise<SqlQueryResult> {
    return this.reader.query(sql, options);
  }

  async getEmbeddingInfo(): Promise<EmbeddingInfo | undefined> {
    return meta.embeddingInfo(this.conn);
  }

  async setEmbeddingInfo(info: EmbeddingInfo, options: { replace?: boolean } = {}): Promise<void> {
    await meta.setEmbeddingInfo(this.conn, info, options);
    // The vector table may have been dropped and created again: statements over it are stale.
    this.conn.clearStatements();
    this.vectors.ann.resetStatements();
    if (options.replace) this.vectors.ann.removeFiles();
  }

  async getSetting(key: string): Promise<string | undefined> {
    return meta.metaValue(this.conn, `setting:${key}`);
  }

  async setSetting(key: string, value: string | undefined): Promise<void> {
    await this.conn.write(() => meta.setMetaValue(this.conn, `setting:${key}`, value));
  }

  claimLease(name: string, holder: string, ttlMs: number): Promise<boolean> {
    return lease.claimLease(this.conn, name, holder, ttlMs);
  }

  releaseLease(name: string, holder: string): Promise<void> {
    return lease.releaseLease(this.conn, name, holder);
  }

  async writeDocuments(writes: DocumentWrite[]): Promise<WriteResult[]> {
    return writeDocuments(this.conn, writes, this.keywordIndex);
  }

  async writeVectors(items: { chunkId: string; vector: Float32Array }[]): Promise<number> {
    return this.vectors.write(items);
  }

  async pendingChunks(limit: number, afterChunkId = ""): Promise<PendingChunk[]> {
    return this.vectors.pending(limit, afterChunkId);
  }

  async getDocument(id: string): Promise<StoredDocument | undefined> {
    return read.getDocument(this.conn, id);
  }

  async getDocumentByKey(key: string): Promise<StoredDocument | undefined> {
    return read.getDocumentByKey(this.conn, key);
  }

  async getChunks(docId: string): Promise<StoredChunk[]> {
    return read.getChunks(this.conn, docId);
  }

  async exportChunks(docId: string): Promise<ExportedChunk[]> {
    return read.exportChunks(this.conn, docId);
  }

  async deleteDocuments(ids: string[]): Promise<RemovedCounts> {
    return deleteDocuments(this.conn, ids);
  }

  async listDocuments(options: { limit: number; offset?: number; filter?: Filter }): Promise<DocumentSummary[]> {
    return read.listDocuments(this.conn, options);
  }

  async counts(): Promise<StoreCounts> {
    return meta.counts(this.conn);
  }

  async keywordSearch(query: KeywordQuery, options: SearchOptions): Promise<KeywordHit[]> {
    if (query.any.length === 0) return [];
    await this.keywordIndex.beforeFind();
    // The index beside the database when it is ready; FTS5 otherwise (the same answers).
    const hits =
      this.keywords.search(query, options.limit, options.filter) ?? keywordSearch(this.conn.db, query, options.limit, options.filter);
    // Chunks are read for the hits the caller reads, in the statement that gives the hits' ids.
    const reads = read.chunkReads(options.withChunks, hits.length);
    return read.keywordHits(this.conn, hits, reads);
  }

  async vectorSearch(vector: Float32Array, options: VectorSearchOptions): Promise<VectorHit[]> {
    // Without a pause when the index is ready (one check of the change token for the whole search).
    const hits = this.vectors.searchNow(vector, options) ?? (await this.vectors.search(vector, options));
    // Every hit is checked against SQLite: a chunk deleted (or unembedded) by anyone is never returned.
    // Chunks are read for the hits the caller reads (their text is most of a find's reading);
    // the others come with their ids.
    const reads = read.chunkReads(options.withChunks, hits.length);
    return read.vectorHits(this.conn, hits, reads);
  }

  async chunkHits(chunkIds: string[]): Promise<ChunkHit[]> {
    return read.chunkHits(this.conn, chunkIds);
  }

  async listCollections(): Promise<CollectionRecord[]> {
    return collections.listCollections(this.conn);
  }

  async getCollection(name: string): Promise<CollectionRecord | undefined> {
    return collections.getCollection(this.conn, name);
  }

  async createCollection(input: { name: string; description: string; source: string; enabled: boolean }): Promise<CollectionRecord> {
    return collections.createCollection(this.conn, input);
  }

  async updateCollection(name: string, patch: CollectionPatch): Promise<boolean> {
    return collections.updateCollection(this.conn, name, patch);
  }

  async clearCollection(name: string): Promise<RemovedCounts> {
    return collections.clearCollection(this.conn, name);
  }

  async deleteCollection(name: string): Promise<RemovedCounts> {
    return collections.deleteCollection(this.conn, name);
  }

  async collectionCounts(name: string): Promise<CollectionCounts> {
    return collections.collectionCounts(this.conn, name);
  }

  async listFiles(collection: string): Promise<StoredFile[]> {
    return collections.listFiles(this.conn, collection);
  }

  async filesOfDocuments(docIds: string[]): Promise<StoredFile[]> {
    return collections.filesOfDocuments(this.conn, docIds);
  }

  async touchFile(collection: string, path: string, size: number, mtime: number): Promise<void> {
    await collections.touchFile(this.conn, collection, path, size, mtime);
  }

  async removeFile(collection: string, path: string): Promise<number> {
    return collections.removeFile(this.conn, collection, path);
  }

  async changeToken(): Promise<string> {
    return meta.changeToken(this.conn);
  }

  // --- scoped tokens and the audit trail (access.ts) -------------------------------------

  async createToken(record: TokenRecord): Promise<void> {
    await access.createToken(this.conn, record);
  }

  async listTokens(): Promise<TokenRecord[]> {
    return access.listTokens(this.conn);
  }

  async tokenByHash(hash: string): Promise<TokenRecord | undefined> {
    return access.tokenByHash(this.conn, hash);
  }

  async revokeToken(name: string, at: string): Promise<boolean> {
    return access.revokeToken(this.conn, name, at);
  }

  async appendAudit(entry: AuditEntry): Promise<void> {
    await access.appendAudit(this.conn, entry);
  }

  async listAudit(query: AuditQuery): Promise<AuditRecord[]> {
    return access.listAudit(this.conn, query);
  }
}
