// Documents and chunks across the storage contract: what a write brings (NewDocument, NewChunk,
// DocumentWrite), what reads give back (StoredDocument, StoredChunk…), and the counts.
import type { IndexTerms } from "@docdb/analyzer";
import type { FileRecord } from "./collection-types.js";

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

/**
 * Where a chunk came from in the original file (extracted documents): the page, slide, sheet and
 * row, or section of the range its start falls in. Only the fields that apply are set.
 */
export interface ChunkLocator {
  page?: number;
  slide?: number;
  sheet?: string;
  row?: number;
  section?: string;
}

/** A declaration in a chunk of code: its symbol path and kind. */
export interface CodeSymbol {
  symbol: string;
  kind: string | null;
}

export interface NewChunk {
  id: string;
  idx: number;
  /** Well-formed text without NUL, like every text column (engines refuse the rest: `text.ts`). */
  text: string;
  /** Where the chunk starts and ends in its document's content, in UTF-16 code units (JavaScript string indexes). */
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
  /** Extracted documents: where the chunk starts in the original file (page, slide, sheet…); null otherwise. */
  locator?: ChunkLocator | null;
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
  /** Where the chunk starts in the original file (extracted documents), or null. */
  locator: ChunkLocator | null;
  embedded: boolean;
}

/** A chunk with everything a copy to another database needs. */
export interface ExportedChunk extends StoredChunk {
  inputHash: string | null;
  /** The chunk's vector exactly as stored, when it has one. */
  vector?: Float32Array;
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

export interface RemovedCounts {
  documents: number;
  chunks: number;
}
