export type SearchMode = "hybrid" | "vector" | "keyword";
export const SEARCH_MODES: readonly SearchMode[] = ["hybrid", "vector", "keyword"];

export interface InsertInput {
  text: string;
  title?: string;
  metadata?: Record<string, unknown>;
  /** Where the text came from (a file path); used by `path` filters. */
  source?: string;
  /** `markdown` splits by headings; default `text`, or `markdown` when source ends in .md. */
  format?: "text" | "markdown";
  collection?: string;
  /**
   * The caller's own unique key (e.g. "notes/2026-11-22-standup"): inserting again under the
   * same key replaces that document atomically and keeps its doc_id.
   */
  key?: string;
}

export interface InsertResult {
  doc_id: string;
  chunk_count: number;
  /** True when a document with the same key was replaced. */
  replaced: boolean;
  /** Chunks of the replaced document whose vectors were kept because their text did not change. */
  reused_vectors: number;
  /** False when the chunks are stored but wait for an embedding (keyword search still finds them). */
  embedded: boolean;
  warnings: string[];
}

export interface FindInput {
  query: string;
  /** How many results, 1 to 100 (default 10). */
  top_k?: number;
  mode?: SearchMode;
  /**
   * MongoDB-style filter on metadata paths and document fields, e.g.
   * `{"lang": "ja", "year": {"$gte": 2020}, "source": {"$prefix": "docs/"}}` (see filter.ts).
   */
  filter?: Record<string, unknown>;
  /** Only results with score >= threshold, on the 0–1 scale of `SearchResult.score`. */
  threshold?: number;
  /** Only documents whose source path starts with this. */
  path_prefix?: string;
  collection?: string;
  doc_ids?: string[];
  /** Exact vector search even where an approximate index exists. */
  exact?: boolean;
}

export interface SearchResult {
  chunk_id: string;
  doc_id: string;
  text: string;
  /**
   * 0 to 1, higher is better, in every mode. vector: cosine similarity (below 0 counts as 0).
   * keyword: BM25 relative to this query's best match (the best is 1). hybrid: reciprocal-rank
   * fusion relative to its maximum (1 = first in both the keyword and the vector ranking).
   */
  score: number;
  /** Cosine distance, when a vector produced the result. */
  distance?: number;
  start: number;
  end: number;
  metadata: Record<string, unknown>;
  title?: string;
  source?: string;
  heading?: string;
  line_start?: number;
  line_end?: number;
  /** The collection the document was imported into. */
  collection?: string;
  /** True when the file changed or vanished since it was imported; `note` says how. */
  stale?: boolean;
  note?: string;
}

export interface FindResult {
  results: SearchResult[];
  mode: SearchMode;
  warnings: string[];
}

export interface DocumentView {
  doc_id: string;
  key: string | null;
  title: string | null;
  source: string | null;
  text: string;
  metadata: Record<string, unknown>;
  collection: string | null;
  created_at: string;
  updated_at: string;
  chunks: { chunk_id: string; index: number; start: number; end: number; embedded: boolean; line_start?: number; line_end?: number }[];
}

export interface DatabaseStatus {
  name: string;
  /** Engine kind ("sqlite", "postgres"). */
  engine: string;
  /** Where the database lives: a file path, or host/database/schema (never a password). */
  location: string;
  documents: number;
  chunks: number;
  embedded: number;
  pending: number;
  model: { provider: string; model: string; dimensions: number } | null;
  /** Agent memory (topics, QA and knowledge records), counted apart from the documents; absent when empty. */
  memory?: { documents: number; chunks: number; embedded: number; pending: number };
}

export interface DocumentListing {
  doc_id: string;
  key: string | null;
  title: string | null;
  source: string | null;
  metadata: Record<string, unknown>;
  collection: string | null;
  chunk_count: number;
  length: number;
  created_at: string;
  updated_at: string;
}

export interface EmbedOptions {
  /** Chunks per provider call batch (default: the provider's batch size, at least 32). */
  batch_size?: number;
  signal?: AbortSignal;
  onProgress?: (progress: EmbedProgress) => void;
}

export interface EmbedProgress {
  done: number;
  total: number;
}

export interface EmbedResult {
  embedded: number;
  remaining: number;
}
