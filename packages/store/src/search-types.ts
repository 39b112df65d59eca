// Searching across the storage contract: keyword and vector hits and options, the approximate
// vector index's settings and status, and read-only SQL.

import type { StoredChunk } from "./document-types.js";
import type { Filter } from "./filter.js";

/** A chunk with what a search result needs from its document. */
export interface ChunkHit extends StoredChunk {
  title: string | null;
  source: string | null;
  collection: string | null;
  metadata: Record<string, unknown>;
  docUpdatedAt: string;
}

export interface KeywordHit {
  chunkId: string;
  /** BM25 (plus the phrase bonus); higher is better, only comparable within one query. */
  score: number;
  /** With `withChunks`, an engine may attach the chunk as `chunkHits` would return it (see VectorHit.chunk). */
  chunk?: ChunkHit;
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
  /**
   * The caller will read the hits' chunks: an engine may attach them (`chunk` on each hit). A number
   * says the caller reads the chunks of that many first hits only (it reads any others it needs).
   */
  withChunks?: boolean | number;
}

export interface VectorSearchOptions extends SearchOptions {
  /** Forbids approximation. */
  exact?: boolean;
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
  /**
   * Candidates a query explores when that is more than `settings.expansionSearch` (a large
   * database that leaves ef_search to the engine is searched wider); absent otherwise.
   */
  searchWidth?: number;
  /**
   * Present when the index file was found damaged (its checksum is not the one written with
   * it, it cannot be read, or something else stands in its place): when and why, where it was
   * set aside (null: not moved yet, or it could not be), and whether a new index has been
   * written since. Queries scan exactly until it is. Reported while the set-aside file is kept.
   */
  damaged?: { foundAt: string; reason: string; setAside: string | null; rebuilt: boolean };
  /** The keyword index kept beside the database, where the engine keeps one (SQLite). */
  keyword?: KeywordIndexStatus;
}

/** The keyword index an engine keeps beside its database (SQLite: `<name>.db.keywords`). */
export interface KeywordIndexStatus {
  /**
   * "none": fewer chunks than `threshold`, FTS5 answers alone; "missing": no file yet (built in the
   * background on the next keyword find); "building": being loaded, built or caught up in the
   * background (FTS5 answers meanwhile); "behind": lacks `backlog` recent changes (applied on the
   * next keyword find); "ready": in step with the database.
   */
  state: "none" | "missing" | "building" | "behind" | "ready";
  /** The index file, safe to print. */
  location: string;
  /** Chunks at and above which keyword finds use the index. */
  threshold: number;
  /** Chunks in the database. */
  chunks: number;
  /** Rows the index holds (in memory, else in the file; 0 when missing). */
  rows: number;
  /** Size of the file in bytes (0 when missing). */
  bytes: number;
  /** Keyword log entries the index has not applied yet. */
  backlog: number;
  /** When the file was last written (ISO time), null when missing. */
  savedAt: string | null;
  /** Present while a damaged file set aside is kept beside the database (see VectorIndexStatus.damaged). */
  damaged?: { foundAt: string; reason: string; setAside: string | null; rebuilt: boolean };
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

/** Caps on one read-only SQL query. */
export interface SqlQueryOptions {
  /** Most rows returned; a query with more is cut there and reported `truncated`. */
  maxRows: number;
  /** Longest a query may run; past it the query is stopped and fails. */
  timeoutMs: number;
  /**
   * Most bytes of cells returned, counted by `sqlRowBytes` (default SQL_DEFAULT_MAX_BYTES). Rows
   * are kept while they fit; the rest is cut and reported `truncated` with `truncatedBy: "bytes"`;
   * a first row that alone is larger fails INVALID_REQUEST naming the cap. An engine never holds
   * much more than this (plus one row) in memory.
   */
  maxBytes?: number;
}

export interface SqlQueryResult {
  columns: string[];
  /** Cells in column order: numbers, strings, null; blobs as `base64:<data>` strings. */
  rows: unknown[][];
  /** True when the query had more than `maxRows` rows, or more than `maxBytes`, and was cut. */
  truncated: boolean;
  /** Which cap cut it, when `truncated`. */
  truncatedBy?: "rows" | "bytes";
}
