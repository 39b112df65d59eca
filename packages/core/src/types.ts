import type { SearchFilter } from "@docdb/store";

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
}

export interface InsertResult {
  doc_id: string;
  chunk_count: number;
  /** False when the chunks are stored but wait for an embedding (keyword search still finds them). */
  embedded: boolean;
  warnings: string[];
}

export interface FindInput {
  query: string;
  topK?: number;
  mode?: SearchMode;
  /** Metadata equality on JSON paths, e.g. `{"lang": "ja", "author.name": "Sato"}`. */
  filter?: Record<string, unknown>;
  /** Only results with score >= threshold. */
  threshold?: number;
  /** Only documents whose source path starts with this. */
  pathPrefix?: string;
  collection?: string;
  docIds?: string[];
}

export interface SearchResult {
  chunk_id: string;
  doc_id: string;
  text: string;
  /** Higher is better. vector: 1 - cosine distance; keyword: -BM25; hybrid: reciprocal-rank fusion. */
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
  path: string;
  documents: number;
  chunks: number;
  embedded: number;
  pending: number;
  model: { provider: string; model: string; dimensions: number } | null;
}

export type { SearchFilter };
