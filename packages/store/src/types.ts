import type { IndexTerms, KeywordQuery } from "@docdb/analyzer";
import type { Filter } from "./filter.js";

/**
 * The storage contract: what docdb's domain layer (`@docdb/core`) needs from a storage engine.
 * Every engine (SQLite in a data folder, PostgreSQL + pgvector on a server) implements these
 * interfaces and passes the contract suite (`@docdb/store/contract-suite`).
 *
 * Nothing engine-shaped crosses it: no handles, no SQL, no row numbers, no query syntax.
 * Documents and chunks are named by the ids core gives them (ULIDs); keyword queries arrive as
 * analysed terms (`@docdb/analyzer`); filters as a typed condition tree (`Filter`).
 */

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

export interface EmbeddingInfo {
  provider: string;
  model: string;
  dimensions: number;
}

export interface NewDocument {
  id: string;
  /** The caller's own unique key (an upsert target); null when none. */
  key?: string | null;
  source?: string | null;
  title?: string | null;
  content: string;
  contentHash: string;
  metadata: Record<string, unknown>;
  collection?: string | null;
  /**
   * Times to keep (ISO 8601), for a copy of a document from another database; default now. An
   * upsert that replaces a document keeps the replaced document's creation time instead.
   */
  createdAt?: string;
  updatedAt?: string;
}

/** A declaration in a chunk of code: its symbol path and kind. */
export interface CodeSymbol {
  symbol: string;
  kind: string | null;
}

export interface NewChunk {
  id: string;
  idx: number;
  text: string;
  start: number;
  end: number;
  /** Markdown heading path or code symbol path, " > "-joined. */
  heading?: string | null;
  lineStart?: number | null;
  lineEnd?: number | null;
  /** Code: the language of the chunk (`typescript`, `python`…); null for prose. */
  language?: string | null;
  /**
   * Code: the symbol path of the declaration the chunk holds (`PaymentService.retryCharge`).
   * Engines index it with the title and heading, so a query naming the symbol finds its definition.
   */
  symbol?: string | null;
  /** Code: what the symbol is (`function`, `class`, `method`…). */
  symbolKind?: string | null;
  /**
   * Code: every declaration the chunk holds when several small ones were packed together, `symbol`
   * first. Engines index all of them (instead of `symbol` alone) with the title.
   */
  symbols?: CodeSymbol[] | null;
  /** Code cut by line windows instead of by its syntax tree, and why (`syntax_error`, `unsupported_language`). */
  codeFallback?: string | null;
  /**
   * Code: the documentation of the chunk's declarations (doc comments, docstrings). Engines index
   * it with the title and heading, so the words that describe code weigh more than the code.
   */
  doc?: string | null;
  /**
   * Hash of what the chunk's vector is computed from. When a document is replaced, a new chunk
   * whose hash equals one of the replaced document's embedded chunks takes over that vector.
   */
  inputHash?: string | null;
  /** A vector computed beforehand, written in the same transaction as the chunk. */
  vector?: Float32Array;
  /**
   * The chunk's keyword-index terms computed beforehand: `indexTerms(document title, chunk,
   * text)` of `@docdb/analyzer` (the chunk's heading, code symbols, documentation and language
   * count; core analyses outside the write, in worker threads for bulk work). An engine analyses the chunk itself when they are absent or of another analyzer version.
   */
  terms?: IndexTerms;
}

/** A file of a collection, as recorded for incremental imports. */
export interface FileRecord {
  path: string;
  size: number;
  /** Milliseconds since the epoch. */
  mtime: number;
  /** sha256 of the file's bytes. */
  contentHash: string;
  /** The chunker settings used; a change means the file must be chunked again. */
  chunking: string;
}

/**
 * One document to write. Everything in it commits together or not at all: the document, its
 * chunks, their keyword rows, any vectors given, the removal of what it replaces, and the file row.
 */
export interface DocumentWrite {
  document: NewDocument;
  chunks: NewChunk[];
  /**
   * Replace the document stored under `document.key` when there is one: it keeps its id (the
   * new document takes it) and creation time.
   */
  upsertByKey?: boolean;
  /**
   * The document is the content of a collection file: whatever document that file (or a
   * document of the collection with that source) had is replaced, and the file row written.
   */
  file?: { collection: string; record: FileRecord };
}

export interface WriteResult {
  /** The id the document was stored under (an upsert keeps the replaced document's id). */
  docId: string;
  /** True when an existing document (same key, or same collection file) was replaced. */
  replaced: boolean;
  /** Chunks that took over a vector from the document they replaced. */
  reusedVectors: number;
}

export interface StoredDocument {
  id: string;
  key: string | null;
  source: string | null;
  title: string | null;
  content: string;
  contentHash: string;
  metadata: Record<string, unknown>;
  collection: string | null;
  createdAt: string;
  updatedAt: string;
}

export interface DocumentSummary extends Omit<StoredDocument, "content"> {
  chunkCount: number;
  /** Length of the content in characters (Unicode code points, as SQL's length() counts). */
  length: number;
}

export interface StoredChunk {
  id: string;
  docId: string;
  idx: number;
  text: string;
  start: number;
  end: number;
  heading: string | null;
  lineStart: number | null;
  lineEnd: number | null;
  language: string | null;
  symbol: string | null;
  symbolKind: string | null;
  /** Every declaration the chunk holds when it holds several; empty otherwise. */
  symbols: CodeSymbol[];
  codeFallback: string | null;
  doc: string | null;
  embedded: boolean;
}

/** A chunk with everything a copy to another database needs. */
export interface ExportedChunk extends StoredChunk {
  inputHash: string | null;
  /** The chunk's vector exactly as stored, when it has one. */
  vector?: Float32Array;
}

/** A chunk with what a search result needs from its document. */
export interface ChunkHit extends StoredChunk {
  title: string | null;
  source: string | null;
  collection: string | null;
  metadata: Record<string, unknown>;
  docUpdatedAt: string;
}

/** What the vector of a chunk waiting for one is computed from. */
export interface PendingChunk {
  chunkId: string;
  text: string;
  heading: string | null;
  title: string | null;
}

export interface StoreCounts {
  documents: number;
  chunks: number;
  embedded: number;
  pending: number;
  /** Chunks in the keyword index (equals `chunks` when it is in step). */
  keywordRows: number;
  vectors: number;
  /**
   * Chunk vectors carried over to replacing documents (same embedding input) instead of being
   * computed again, in total since the database was created (`WriteResult.reusedVectors`, added up).
   */
  reusedVectors: number;
}

export interface KeywordHit {
  chunkId: string;
  /** BM25 (plus the phrase bonus); higher is better, only comparable within one query. */
  score: number;
}

export interface VectorHit {
  chunkId: string;
  /** Cosine distance, 0 (same direction) to 2. */
  distance: number;
  /**
   * With `withChunks`, an engine may attach the chunk as `chunkHits` would return it, read with
   * the search (PostgreSQL: in the same statement, saving a round trip). Absent otherwise.
   */
  chunk?: ChunkHit;
}

export interface SearchOptions {
  limit: number;
  filter?: Filter;
}

export interface VectorSearchOptions extends SearchOptions {
  /** Forbids approximation. */
  exact?: boolean;
  /** The caller will read the hits' chunks: an engine may attach them (VectorHit.chunk). */
  withChunks?: boolean;
}

/** Parameters of an engine's approximate vector index (HNSW); each engine has tested defaults. */
export interface VectorIndexSettings {
  /** Below this many vectors, queries scan exactly and no index is used. */
  threshold: number;
  /** Links per node of the graph (HNSW "M"). */
  connectivity: number;
  /** Candidates kept while inserting (HNSW "ef_construction"). */
  expansionAdd: number;
  /** Candidates kept while searching (HNSW "ef"): higher is slower and finds more true neighbours. */
  expansionSearch: number;
  /** How the index stores vector elements: "f16" (half the memory) or "f32". */
  quantization: "f16" | "f32";
}

export interface VectorIndexStatus {
  /**
   * "exact": below the threshold, queries scan exactly; "missing": no usable index yet (built
   * on the next query or by a rebuild); "behind": the index lacks `behind` recent changes
   * (applied on the next query); "ready": in step with the database.
   */
  state: "exact" | "missing" | "behind" | "ready";
  /** The index library and version, e.g. "usearch 2.26.2". */
  library: string;
  /** Where the index is kept (a file path), safe to print. */
  location: string;
  /** Embedded chunks in the database. */
  vectors: number;
  /** Vectors in the stored index (0 when missing). */
  indexed: number;
  /** Vector changes the stored index has not seen yet. */
  behind: number;
  /** Size of the stored index in bytes (0 when missing). */
  bytes: number;
  /** When the stored index was last written (ISO time), null when missing. */
  savedAt: string | null;
  settings: VectorIndexSettings;
}

export interface VectorIndexProgress {
  phase: "read" | "build" | "save";
  done: number;
  total: number;
}

/** Inspection and maintenance of an engine's approximate vector index (optional in the contract). */
export interface VectorIndexControl {
  status(): Promise<VectorIndexStatus>;
  /**
   * Builds the index again from the stored vectors. `settings` given are kept for this
   * database (later queries and rebuilds use them).
   */
  rebuild(options?: {
    settings?: Partial<VectorIndexSettings>;
    onProgress?: (progress: VectorIndexProgress) => void;
  }): Promise<VectorIndexStatus>;
}

export interface CollectionRecord {
  name: string;
  description: string;
  /** Absolute folder path. */
  source: string;
  enabled: boolean;
  settings: Record<string, unknown>;
  createdAt: string;
  updatedAt: string;
  lastImportAt: string | null;
}

export interface CollectionPatch {
  description?: string;
  source?: string;
  enabled?: boolean;
  settings?: Record<string, unknown>;
  lastImportAt?: string;
}

export interface StoredFile extends FileRecord {
  collection: string;
  docId: string;
  importedAt: string;
  chunkCount: number;
}

export interface CollectionCounts {
  documents: number;
  chunks: number;
  embedded: number;
  pending: number;
  files: number;
  /** Documents with chunks of code cut by line windows (`codeFallback` set), and those chunks. */
  codeFallbackDocuments: number;
  codeFallbackChunks: number;
}

export interface RemovedCounts {
  documents: number;
  chunks: number;
}

/** Caps on one read-only SQL query. */
export interface SqlQueryOptions {
  /** Most rows returned; a query with more is cut there and reported `truncated`. */
  maxRows: number;
  /** Longest a query may run; past it the query is stopped and fails. */
  timeoutMs: number;
}

export interface SqlQueryResult {
  columns: string[];
  /** Cells in column order: numbers, strings, null; blobs as `base64:<data>` strings. */
  rows: unknown[][];
  /** True when the query had more than `maxRows` rows and was cut. */
  truncated: boolean;
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
}
