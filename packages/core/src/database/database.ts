// Database, the facade of one named database: each method hands its work to the room that
// holds it (ingest, documents, maintenance, search), all over one DatabaseContext.
import type { Filter, Store, VectorIndexProgress, VectorIndexSettings, VectorIndexStatus } from "@docdb/store";
import { Collections } from "../collections/collections.js";
import { Memory, resolveMemoryOptions } from "../memory/memory.js";
import { findSimilar, searchChunks } from "../search/find.js";
import type {
  DatabaseStatus,
  DocumentListing,
  DocumentRange,
  DocumentView,
  EmbedOptions,
  EmbedResult,
  FindInput,
  FindResult,
  InsertBytesInput,
  InsertFileOptions,
  InsertInput,
  InsertManyOptions,
  InsertManyResult,
  InsertResult,
  InsertUrlOptions,
  SearchMode,
  SearchResult,
  SqlOptions,
  SqlResult,
} from "../types.js";
import { DatabaseContext, type DatabaseServices } from "./context.js";
import { deleteDocument, getDocument, listDocuments } from "./documents.js";
import { embedPending, reembed } from "./embedding.js";
import { insertDocument } from "./ingest.js";
import { insertBytes, insertFile, insertUrl } from "./insert-file.js";
import { insertDocuments } from "./insert-many.js";
import { indexStatus, rebuildIndex, sql, status } from "./maintenance.js";

export type { DatabaseServices } from "./context.js";
export { DEFAULT_INSERT_BATCH, MAX_INSERT_BATCH } from "./insert-many.js";

/** One named database: documents in, passages out. Every method that touches storage is async. */
export class Database {
  /** Named document sets imported from folders (add, import, status, watch). */
  readonly collections: Collections;
  /** Memory for agents: question–answer records by topic, merged into knowledge (see Memory). */
  readonly memory: Memory;
  /** The store (errors translated), services and shared state every room of this database uses. */
  private readonly ctx: DatabaseContext;

  /** @internal Opened by `DocDB.database`; not constructed directly. */
  constructor(
    readonly name: string,
    store: Store,
    services: DatabaseServices,
  ) {
    this.ctx = new DatabaseContext(name, store, services);
    this.collections = new Collections(this.ctx);
    this.memory = new Memory(this.ctx, services.memory ?? resolveMemoryOptions({}));
  }

  /** Where the database lives (a file path, or host/database/schema; never a password). */
  get location(): string {
    return this.ctx.store.location;
  }

  /**
   * Stores a document: chunks it, analyses its words, embeds the chunks, and writes document,
   * chunks, keyword index and vectors in one transaction. When the embedding provider fails, the
   * document is stored without vectors and keyword searchable, its chunks pending
   * (`embedded: false` and a warning). With a `key` already in use, that document is replaced
   * (same doc_id; unchanged chunks keep their vectors, and only the others are embedded, after
   * the write).
   */
  async insertDocument(input: InsertInput): Promise<InsertResult> {
    return insertDocument(this.ctx, input);
  }

  /**
   * Stores a file as a document, its path as `source`: a document format (PDF, DOCX, PPTX,
   * XLSX/ODS/CSV/TSV, HTML, EPUB, RTF, EML — by extension or `type`) is extracted to Markdown,
   * its chunks carrying their page, slide or sheet and row (`locator`), its own title used when
   * none is given and its metadata (author, created…, `format`) merged under yours; other files
   * are stored as UTF-8 text. INVALID_REQUEST saying why when a file cannot be read
   * (encrypted, "no text layer — OCR it first", corrupt, over a limit).
   */
  async insertFile(path: string, options?: InsertFileOptions): Promise<InsertResult> {
    return insertFile(this.ctx, path, options);
  }

  /** Stores bytes as a document, as `insertFile` does a file (`name`, `media_type` or `type` names the format). */
  async insertBytes(input: InsertBytesInput): Promise<InsertResult> {
    return insertBytes(this.ctx, input);
  }

  /**
   * Fetches a web page (HTML: its main text, without navigation) or a PDF by http(s) URL and
   * stores it with the URL as `source` and `key`, so inserting it again replaces it. Bounded by a
   * deadline, a body size cap and a number of redirects (each checked again); loopback,
   * link-local and private addresses are refused unless `allow_private`.
   */
  async insertUrl(url: string, options?: InsertUrlOptions): Promise<InsertResult> {
    return insertUrl(this.ctx, url, options);
  }

  /**
   * Stores many documents, as `insertDocument` would one by one, in batches of `batch_size`
   * (default 100) documents per transaction: words analysed outside the writes (in worker
   * threads, the next batch while this one is written), chunks embedded in the provider's batch
   * size before each write, so their vectors go into the same transaction. Every input gets its
   * own entry in `results`: an invalid document is refused (`ok: false` with its error) and the
   * others are stored. When the embedding provider fails, that batch and the ones after it are
   * stored without vectors (pending, with a warning; `embedPending` embeds them later): nothing
   * is lost. A failed write of a batch is retried one document at a time, so only the documents
   * that cannot be written are refused; a store that cannot be reached refuses the rest of the
   * call. Aborting (`signal`) stops between batches: the batches before are stored, and the
   * call throws.
   */
  async insertDocuments(inputs: InsertInput[], options: InsertManyOptions = {}): Promise<InsertManyResult> {
    return insertDocuments(this.ctx, inputs, options);
  }

  /**
   * Finds the passages that answer a query: by keywords, by meaning (vectors), or both fused
   * (`hybrid`, the default). Filters apply before `top_k` is cut; scores are 0–1 in every mode.
   * Without a usable model, hybrid falls back to keywords with a warning; vector mode fails.
   */
  findSimilar(input: FindInput, limits?: { /** @internal evaluation only */ maxTopK: number }): Promise<FindResult> {
    return findSimilar(this.ctx, input, limits);
  }

  /**
   * @internal Search for agent memory: chunks (not merged into passages, no budget, no
   * reranking) over whatever `filter` allows, one result per chunk with its text. Arguments are
   * already validated.
   */
  async search(
    query: string,
    options: { topK: number; mode: SearchMode; threshold?: number; filter?: Filter; exact?: boolean },
  ): Promise<{ results: SearchResult[]; warnings: string[] }> {
    return searchChunks(this.ctx, query, options);
  }

  /**
   * A document with its text and chunk layout; NOT_FOUND for an unknown id. With a range, only
   * that part: characters `start`..`end` (end exclusive, clamped to the length) or lines
   * `line_start`..`line_end` (1-based, inclusive, clamped to the last line), with the chunks
   * that overlap it.
   */
  async getDocument(id: string, range?: DocumentRange): Promise<DocumentView> {
    return getDocument(this.ctx, id, range);
  }

  /** Deletes a document with its chunks, vectors and keyword rows; NOT_FOUND for an unknown id. */
  async deleteDocument(id: string): Promise<{ deleted_chunks: number }> {
    return deleteDocument(this.ctx, id);
  }

  /** Documents in creation order, optionally of one collection or matching a filter. */
  async listDocuments(
    options: { limit?: number; offset?: number; collection?: string; filter?: Record<string, unknown> } = {},
  ): Promise<DocumentListing[]> {
    return listDocuments(this.ctx, options);
  }

  /**
   * Runs one read-only SQL query over the documented views (`documents_v`, `chunks_v`,
   * `collections_v`, `files_v`, and agent memory's `topics_v`, `qa_v`, `knowledge_v`; see
   * SQL_VIEWS) in the engine's dialect (SQLite or PostgreSQL).
   * Writes, DDL, ATTACH, PRAGMA and SET statements, extension loading, other databases and
   * functions with side effects are refused (INVALID_REQUEST); results are capped at `max_rows` rows
   * (`truncated` says more existed) and `timeout_ms` (past it the query is stopped and fails).
   * The caps are stated in the result. INVALID_REQUEST when the engine offers no SQL.
   */
  async sql(query: string, options: SqlOptions = {}): Promise<SqlResult> {
    return sql(this.ctx, query, options);
  }

  /**
   * Counts and the embedding model of this database. Documents, chunks, embedded and pending
   * count the user's documents; agent memory is counted apart in `memory` (`embedPending`
   * embeds both).
   */
  async status(): Promise<DatabaseStatus> {
    return status(this.ctx);
  }

  /**
   * The approximate vector index of this database (state, size, settings), or null when the
   * engine keeps none it can show (e.g. PostgreSQL, whose indexes live in the server).
   */
  async indexStatus(): Promise<VectorIndexStatus | null> {
    return indexStatus(this.ctx);
  }

  /**
   * Builds the approximate vector index again from the stored vectors, reporting progress;
   * `settings` given are kept for this database. INVALID_REQUEST when the engine keeps none.
   */
  async rebuildIndex(
    options: { settings?: Partial<VectorIndexSettings>; onProgress?: (progress: VectorIndexProgress) => void } = {},
  ): Promise<VectorIndexStatus> {
    return rebuildIndex(this.ctx, options);
  }

  /**
   * Embeds every pending chunk in batches, committing each batch, so an interrupted run
   * loses at most one batch and the next run carries on.
   */
  async embedPending(options: EmbedOptions = {}): Promise<EmbedResult> {
    return embedPending(this.ctx, options);
  }

  /**
   * Drops every vector and embeds all chunks again with the current model (after a model
   * change). Resumable: chunks are marked pending first, so an interrupted run is finished by
   * `embedPending` or another `reembed`.
   */
  async reembed(options: EmbedOptions = {}): Promise<EmbedResult> {
    return reembed(this.ctx, options);
  }
}
