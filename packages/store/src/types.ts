import type { KeywordQuery } from "@docdb/analyzer";
import type { AuditEntry, AuditQuery, AuditRecord, TokenRecord } from "./access-types.js";
import type { CollectionCounts, CollectionPatch, CollectionRecord, StoredFile } from "./collection-types.js";
import type {
  DocumentSummary,
  DocumentWrite,
  EmbeddingInfo,
  ExportedChunk,
  PendingChunk,
  RemovedCounts,
  StoreCounts,
  StoredChunk,
  StoredDocument,
  WriteResult,
} from "./document-types.js";
import type { Filter } from "./filter.js";
import type {
  ChunkHit,
  KeywordHit,
  SearchOptions,
  SqlQueryOptions,
  SqlQueryResult,
  VectorHit,
  VectorIndexControl,
  VectorSearchOptions,
} from "./search-types.js";

/**
 * The storage contract: what docdb's domain layer (`@docdb/core`) needs from a storage engine.
 * Every engine (SQLite in a data folder, PostgreSQL + pgvector on a server) implements these
 * interfaces and passes the contract suite (`@docdb/store/contract-suite`).
 *
 * Nothing engine-shaped crosses it: no handles, no SQL, no row numbers, no query syntax.
 * Documents and chunks are named by the ids core gives them (ULIDs); keyword queries arrive as
 * analysed terms (`@docdb/analyzer`); filters as a typed condition tree (`Filter`).
 */

export type * from "./access-types.js";
export type * from "./collection-types.js";
export type * from "./document-types.js";
export type * from "./search-types.js";

/** What an engine can do; core asks, it never branches on an engine's name. */
export interface EngineCapabilities {
  /**
   * Vector queries may be answered by an approximate index (a true neighbour may be missed);
   * `vectorSearch(…, { exact: true })` always scans exactly.
   */
  approximateVectorSearch: boolean;
  /** Several processes may write one database at the same time (writers wait for each other). */
  concurrentWriters: boolean;
  /** Largest vector dimension the engine stores. */
  maxDimensions: number;
  /**
   * The engine answers `Store.querySql`: read-only SQL over the documented views (`documents_v`,
   * `chunks_v`, `collections_v`, `files_v`, and agent memory's `topics_v`, `qa_v`, `knowledge_v`
   * over the `_memory_*` collections). Absent means false.
   */
  readOnlySql?: boolean;
}

/** A place holding named databases: a folder of SQLite files, or one PostgreSQL database. */
export interface StoreEngine {
  /** Short engine name for people: "sqlite", "postgres". */
  readonly kind: string;
  /** Where the databases live, safe to print (never a password). */
  readonly location: string;
  readonly capabilities: EngineCapabilities;
  /** Names of the databases, sorted. */
  listDatabases(): Promise<string[]>;
  databaseExists(name: string): Promise<boolean>;
  /**
   * Opens a database (applying the engine's migrations first). A missing database is created
   * when `create` is true and is a `StoreError` with code `NOT_FOUND` otherwise.
   */
  openDatabase(name: string, options?: { create?: boolean }): Promise<Store>;
  /** Deletes a database and everything in it; false when there was none. */
  dropDatabase(name: string): Promise<boolean>;
  /** Closes every database this engine opened. */
  close(): Promise<void>;
}

/**
 * One docdb database. Every method is atomic on its own; methods that change many documents
 * work in bounded batches, each its own transaction, so other writers are never held up long.
 */
export interface Store {
  readonly name: string;
  /** Where this database lives, safe to print (a file path, or host/database/schema). */
  readonly location: string;
  readonly capabilities: EngineCapabilities;
  /** The approximate vector index, when the engine keeps one it can show and rebuild. */
  readonly vectorIndex?: VectorIndexControl;
  close(): Promise<void>;

  /** The model that embedded this database, or undefined before its first vector. */
  getEmbeddingInfo(): Promise<EmbeddingInfo | undefined>;
  /**
   * Records the embedding model (with the first vectors). With `replace`, every stored vector is
   * dropped and every chunk waits for a vector again (a re-embed with another model).
   */
  setEmbeddingInfo(info: EmbeddingInfo, options?: { replace?: boolean }): Promise<void>;
  /** Small named values core keeps with a database (e.g. an interrupted re-embed). */
  getSetting(key: string): Promise<string | undefined>;
  /** Sets a setting; `undefined` removes it. */
  setSetting(key: string, value: string | undefined): Promise<void>;
  /**
   * Takes the named lease for `holder` for `ttlMs` (measured on the engine's clock) when nobody
   * holds it, its holder's time ran out, or `holder` holds it already (then it is renewed):
   * true when `holder` holds it now. Work that must be done by one process at a time (embedding
   * pending chunks) holds one; a process killed while holding it frees it when it expires.
   */
  claimLease?(name: string, holder: string, ttlMs: number): Promise<boolean>;
  /** Gives the lease back when `holder` holds it (else nothing happens). */
  releaseLease?(name: string, holder: string): Promise<void>;

  /**
   * Writes documents with their chunks, one transaction per call (see DocumentWrite): all of
   * them or none. Bulk work passes many documents per call (core writes ~100), so the cost of a
   * commit is shared; engines write a call's rows in as few statements as they can.
   */
  writeDocuments(writes: DocumentWrite[]): Promise<WriteResult[]>;
  /**
   * Stores vectors and marks their chunks embedded. A chunk deleted meanwhile is skipped (not
   * resurrected). Returns how many were written. Every vector must have the recorded dimension.
   */
  writeVectors(items: { chunkId: string; vector: Float32Array }[]): Promise<number>;
  /** Chunks waiting for a vector, in id order, after `afterChunkId`. */
  pendingChunks(limit: number, afterChunkId?: string): Promise<PendingChunk[]>;
  getDocument(id: string): Promise<StoredDocument | undefined>;
  getDocumentByKey(key: string): Promise<StoredDocument | undefined>;
  /** The chunks of a document in order. */
  getChunks(docId: string): Promise<StoredChunk[]>;
  /** The chunks of a document in order with their input hashes and vectors (for copying a database). */
  exportChunks(docId: string): Promise<ExportedChunk[]>;
  /** Deletes documents with their chunks, vectors, keyword rows and file rows. */
  deleteDocuments(ids: string[]): Promise<RemovedCounts>;
  /** Documents in creation order. */
  listDocuments(options: { limit: number; offset?: number; filter?: Filter }): Promise<DocumentSummary[]>;
  counts(): Promise<StoreCounts>;

  /** BM25 over the analysed terms, best first; `filter` applies before the limit. */
  keywordSearch(query: KeywordQuery, options: SearchOptions): Promise<KeywordHit[]>;
  /**
   * Nearest embedded chunks by cosine distance, best first; `filter` applies before the limit,
   * so `limit` results come back whenever that many match. `exact` forbids approximation.
   */
  vectorSearch(vector: Float32Array, options: VectorSearchOptions): Promise<VectorHit[]>;
  /** Chunks with their document fields, in the order of `chunkIds` (unknown ids are left out). */
  chunkHits(chunkIds: string[]): Promise<ChunkHit[]>;

  listCollections(): Promise<CollectionRecord[]>;
  getCollection(name: string): Promise<CollectionRecord | undefined>;
  /** Creates a collection; a `StoreError` with code `CONFLICT` when the name is taken. */
  createCollection(input: { name: string; description: string; source: string; enabled: boolean }): Promise<CollectionRecord>;
  /** Changes a collection; false when there is none of that name. */
  updateCollection(name: string, patch: CollectionPatch): Promise<boolean>;
  /** Removes every document of a collection (and its file rows), in bounded batches. */
  clearCollection(name: string): Promise<RemovedCounts>;
  /** Deletes a collection with all its documents (in bounded batches, then the collection). */
  deleteCollection(name: string): Promise<RemovedCounts>;
  collectionCounts(name: string): Promise<CollectionCounts>;
  listFiles(collection: string): Promise<StoredFile[]>;
  /** File rows of the given documents (tells which results come from which file). */
  filesOfDocuments(docIds: string[]): Promise<StoredFile[]>;
  /** Records a new size/mtime for a file whose content did not change. */
  touchFile(collection: string, path: string, size: number, mtime: number): Promise<void>;
  /** Deletes a file's document and row; the chunks removed (0 when there was no such file). */
  removeFile(collection: string, path: string): Promise<number>;

  /**
   * A value that changes whenever anything in the database changes, from this or any other
   * process: a cheap "did anything change?" for pollers.
   */
  changeToken(): Promise<string>;

  /**
   * Runs one read-only SQL query (engines with `capabilities.readOnlySql`) in the engine's own
   * dialect, with the documented views readable by their bare names. Only a single statement
   * that reads is accepted: writes, DDL, ATTACH, PRAGMA and SET statements, extension loading,
   * other databases and functions with side effects are refused (`StoreError` INVALID_REQUEST),
   * as are SQL errors (`SQL error: …`). Results are capped at
   * `maxRows` rows (`truncated` says more existed) and `timeoutMs` (past it, INVALID_REQUEST).
   */
  querySql?(sql: string, options: SqlQueryOptions): Promise<SqlQueryResult>;

  /** Stores a scoped token's record; `CONFLICT` when its name (or hash) is taken. */
  createToken(record: TokenRecord): Promise<void>;
  /** Every token record, revoked and expired ones too, by name. */
  listTokens(): Promise<TokenRecord[]>;
  /** The record whose hash this is, or undefined. */
  tokenByHash(hash: string): Promise<TokenRecord | undefined>;
  /** Marks a token revoked at `at`; false when there is no live token of that name. */
  revokeToken(name: string, at: string): Promise<boolean>;
  /** Appends one entry to the audit trail (`detail` cut to 1,000 characters). */
  appendAudit(entry: AuditEntry): Promise<void>;
  /** Audit entries, newest first. */
  listAudit(query: AuditQuery): Promise<AuditRecord[]>;
}
