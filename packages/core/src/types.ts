import type { ChunkLocator } from "@docdb/store";
import type { ErrorCode } from "./errors.js";
import type { HealingStatus } from "./healer.js";

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

/** What `insertFile` takes besides the path (and `insertBytes` besides the bytes). */
export interface InsertFileOptions {
  /** Default: the title the file gives itself (PDF info, DOCX properties, HTML <title>), if any. */
  title?: string;
  /** Merged over what the file says (author, created…) and its `format`; your values win. */
  metadata?: Record<string, unknown>;
  /** Default: the file's path (insertFile) or `name` (insertBytes). */
  source?: string;
  key?: string;
  collection?: string;
  /** The document format (`pdf`, `docx`, `pptx`, `xlsx`, `ods`, `csv`, `tsv`, `html`, `epub`, `rtf`, `eml`); default: from the name or media type. */
  type?: string;
  /** For text that is not extracted: `markdown` splits by headings; default `markdown` for .md names. */
  format?: "text" | "markdown";
}

/** How `insertUrl` fetches and stores a page. */
export interface InsertUrlOptions extends Omit<InsertFileOptions, "source" | "format"> {
  /** Allow loopback, link-local and private addresses (your own machine's servers); default false. */
  allow_private?: boolean;
  /** The whole fetch, redirects included; default 30,000 ms. */
  timeout_ms?: number;
  /** Largest body; default 50 MiB. */
  max_bytes?: number;
  /** Redirects followed, each checked again; default 5. */
  max_redirects?: number;
}

/** A document as bytes: extracted when its type, media type or name says a document format, else stored as UTF-8 text. */
export interface InsertBytesInput extends InsertFileOptions {
  bytes: Uint8Array;
  /** A file name or path: its extension names the format. */
  name?: string;
  /** A media type such as `application/pdf` or `text/html; charset=utf-8`. */
  media_type?: string;
  /** For HTML: the page's address (resolves links; a fallback title). */
  url?: string;
}

export interface InsertResult {
  /** The format the document was extracted from (`pdf`, `docx`…); absent for text. */
  format?: string;
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

export interface InsertManyOptions {
  /**
   * Documents written per transaction, 1 to 1000 (default 100): each batch commits on its own,
   * so an interruption keeps every batch before it, and other writers wait at most one batch.
   */
  batch_size?: number;
  signal?: AbortSignal;
  /** After each batch: documents handled so far (stored or failed) of the total. */
  onProgress?: (progress: { done: number; total: number }) => void;
}

/** What happened to one document of an `insertDocuments` call. */
export type InsertManyItem = ({ ok: true } & InsertResult) | { ok: false; error: { code: ErrorCode; message: string } };

export interface InsertManyResult {
  /** One entry per input, in input order. */
  results: InsertManyItem[];
  /** Documents stored (new or replacing one with the same key). */
  inserted: number;
  /** Documents refused (their entry says why); nothing of them was stored. */
  failed: number;
  /** Chunks of the stored documents. */
  chunks: number;
  /** Stored documents whose chunks wait for an embedding (keyword search finds them already). */
  pending: number;
  /** The distinct warnings of the entries. */
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
  /**
   * Reorder the best candidates (max(top_k, 50)) with the configured cross-encoder reranker;
   * the reranker's 0–1 relevance becomes the score. RERANKER_UNAVAILABLE when there is none or
   * it cannot run.
   */
  rerank?: boolean;
  /**
   * Budget for the answer: total characters of passage text, 0 to 200,000 (default 6,000).
   * Passages that do not fit are cut, then returned as references without text.
   */
  max_chars?: number;
  /** False: references only (ids, offsets, scores), no text. Default true. */
  include_text?: boolean;
  /** Merge overlapping or neighbouring chunks of one document into one passage. Default true. */
  merge?: boolean;
}

export interface FindBudget {
  /** The budget asked for. */
  max_chars: number;
  /** Characters of text in the answer. */
  chars: number;
  /** Passages cut to fit. */
  cut: number;
  /** Passages returned as references without text to fit. */
  omitted: number;
}

/**
 * One passage: a chunk, or several overlapping or neighbouring chunks of one document merged
 * (their text re-sliced from the document, so overlaps are not repeated).
 */
export interface SearchResult {
  /** The best-scoring chunk of the passage. */
  chunk_id: string;
  /** Every chunk the passage covers, in document order. */
  chunk_ids: string[];
  doc_id: string;
  /** The passage text; left out with `include_text: false`, or when the budget ran out. */
  text?: string;
  /** True when `text` was cut or left out to fit `max_chars`; `start`/`end` span the whole passage. */
  truncated?: boolean;
  /**
   * 0 to 1, higher is better, in every mode. vector: cosine similarity (below 0 counts as 0).
   * keyword: BM25 relative to this query's best match (the best is 1). hybrid: reciprocal-rank
   * fusion relative to its maximum (1 = first in both the keyword and the vector ranking).
   * reranked: the reranker's relevance (local models: sigmoid of the cross-encoder's logit).
   */
  score: number;
  /** With rerank: the score the search gave before reranking (the mode's own 0–1 score). */
  retrieval_score?: number;
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
  /** Code: the language of the passage's best chunk (`typescript`, `python`…). */
  language?: string;
  /** Code: the symbol path of the declaration the best chunk holds (`PaymentService.retryCharge`). */
  symbol?: string;
  /** Code: what that symbol is (`function`, `class`, `method`…). */
  symbol_kind?: string;
  /**
   * Extracted documents: where the passage starts in the original file (`{page: 3}`,
   * `{slide: 2}`, `{sheet: "売上", row: 12}`, `{section: "Chapter 1"}`).
   */
  locator?: ChunkLocator;
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
  /** With rerank: `provider/model` of the reranker that ordered the results. */
  reranked_by?: string;
  /** How the answer fits its character budget. */
  budget: FindBudget;
  /** Says what the budget left out, when it did. */
  note?: string;
}

/** Part of a document: characters [start, end) or lines line_start..line_end (1-based, inclusive). */
export interface DocumentRange {
  start?: number;
  end?: number;
  line_start?: number;
  line_end?: number;
  /**
   * An extracted document's page (PDF) or slide (PPTX), 1-based: the chunks that hold its text
   * (those starting on it, and the one running into it from the page before).
   */
  page?: number;
}

export interface DocumentView {
  doc_id: string;
  key: string | null;
  title: string | null;
  source: string | null;
  /** The whole text, or the requested range of it. */
  text: string;
  /** Length of the whole document in characters. */
  length: number;
  /** Lines in the whole document. */
  lines: number;
  /** The part `text` holds, when a range was asked for (line numbers 1-based, inclusive). */
  range?: { start: number; end: number; line_start: number; line_end: number };
  /** With a `page` range: the page (or slide) asked for, and how many the document has. */
  page?: { number: number; of: number };
  metadata: Record<string, unknown>;
  collection: string | null;
  created_at: string;
  updated_at: string;
  /** The document's chunks (with a range: those that overlap it). */
  chunks: {
    chunk_id: string;
    index: number;
    start: number;
    end: number;
    embedded: boolean;
    line_start?: number;
    line_end?: number;
    /** Extracted documents: where the chunk starts in the original file. */
    locator?: ChunkLocator;
    symbol?: string;
    symbol_kind?: string;
  }[];
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
  /**
   * Chunk vectors kept from replaced documents (re-imported files, upserts by key) because the
   * chunk's text did not change, so they were not embedded again: the total since the database
   * was created. Each import and insert says its own share (`reused_vectors`).
   */
  reused_vectors: number;
  model: { provider: string; model: string; dimensions: number } | null;
  /** Agent memory (topics, QA and knowledge records), counted apart from the documents; absent when empty. */
  memory?: { documents: number; chunks: number; embedded: number; pending: number };
  /** The background embedder of a running server (`docdb serve`, `docdb-mcp`); absent elsewhere. */
  healing?: HealingStatus;
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
  /** Retries per provider call after the first attempt. Default 4. */
  retries?: number;
  /** Deadline of each batch's provider calls, retries included, in ms: past it the run stops, the rest left pending. Default DOCDB_EMBED_BATCH_DEADLINE_MS, else 120,000. */
  deadline_ms?: number;
  /**
   * When another process holds the lease on embedding this database's pending chunks (engines
   * with leases): `wait` (the default) until it is done or gone, or `skip` and answer at once
   * with `leased_elsewhere` (the background embedder does).
   */
  when_leased?: "wait" | "skip";
}

export interface EmbedProgress {
  done: number;
  total: number;
}

export interface EmbedResult {
  embedded: number;
  remaining: number;
  /** True when another process holds the embedding lease and `when_leased: "skip"` was asked. */
  leased_elsewhere?: boolean;
}

export interface SqlOptions {
  /** Most rows returned, 1 to 10,000 (default 100); a query with more is cut and says `truncated`. */
  max_rows?: number;
  /** Longest the query may run, 100 to 60,000 ms (default 5,000); past it the query is stopped. */
  timeout_ms?: number;
  /**
   * Most bytes of cells returned, 1,024 to 64 MiB (default 8 MiB): rows are kept while they fit,
   * the rest is cut (`truncated_by: "bytes"`); a first row that alone is larger is INVALID_REQUEST.
   */
  max_bytes?: number;
}

export interface SqlResult {
  columns: string[];
  /** One array per row, cells in column order; blobs as `base64:<data>` strings. */
  rows: unknown[][];
  row_count: number;
  /** True when the query had more rows than `limits.max_rows`, or more bytes than `limits.max_bytes`: only the first ones are here. */
  truncated: boolean;
  /** Which cap cut the rows, when `truncated`. */
  truncated_by?: "rows" | "bytes";
  /** The caps this query ran under. */
  limits: { max_rows: number; timeout_ms: number; max_bytes: number };
}
