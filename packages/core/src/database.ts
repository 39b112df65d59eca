import { type Chunk, type ChunkOptions, chunkMarkdown, chunkText } from "@docdb/chunker";
import { EmbeddingError, type EmbeddingModel, embedMany } from "@docdb/embed";
import { buildKeywordQuery, type ChunkHit, FilterError, type SearchFilter, type SqliteStore } from "@docdb/store";
import { Collections } from "./collections/collections.js";
import { assertSameModel, embeddingInput } from "./embedding-guard.js";
import { DocDBError } from "./errors.js";
import type { Logger } from "./logger.js";
import { contentHash, newId, toStoredChunks } from "./stored-chunks.js";
import type { DatabaseStatus, DocumentView, FindInput, FindResult, InsertInput, InsertResult, SearchMode, SearchResult } from "./types.js";
import { SEARCH_MODES } from "./types.js";
import { MAX_QUERY_LENGTH, validateId, validateMetadata, validateText, validateTopK } from "./validate.js";

const RRF_K = 60;

export interface DatabaseContext {
  embedding: EmbeddingModel | null;
  /** Why `embedding` is null, when it is (shown in warnings). */
  embeddingProblem?: string;
  logger: Logger;
  maxTextLength: number;
  chunkOptions: ChunkOptions;
}

export interface EmbedProgress {
  done: number;
  total: number;
}

function describeEmbeddingFailure(error: unknown): string {
  if (DocDBError.isInstance(error)) return `${error.code}: ${error.message}`;
  if (EmbeddingError.isInstance(error)) return `EMBEDDING_UNAVAILABLE: ${error.message}`;
  return `EMBEDDING_UNAVAILABLE: ${error instanceof Error ? error.message : String(error)}`;
}

/** One named database: documents in, passages out. */
export class Database {
  constructor(
    readonly name: string,
    readonly store: SqliteStore,
    private readonly context: DatabaseContext,
  ) {}

  get path(): string {
    return this.store.path;
  }

  private collectionsApi?: Collections;

  /** Named document sets imported from folders (add, import, status, watch). */
  get collections(): Collections {
    this.collectionsApi ??= new Collections(this, {
      logger: this.context.logger,
      chunkOptions: this.context.chunkOptions,
      embedding: this.context.embedding,
    });
    return this.collectionsApi;
  }

  private pendingWarning(): string {
    const why = this.context.embeddingProblem ?? "no embedding provider is configured";
    return `stored without vectors (${why}); keyword search finds it now, and \`docdb embed --pending --db ${this.name}\` embeds it once a provider is available`;
  }

  private chunk(input: InsertInput, text: string): Chunk[] {
    const markdown = input.format === "markdown" || (input.format === undefined && /\.(md|markdown|mdx)$/i.test(input.source ?? ""));
    return markdown ? chunkMarkdown(text, this.context.chunkOptions) : chunkText(text, this.context.chunkOptions);
  }

  async insertDocument(input: InsertInput): Promise<InsertResult> {
    const started = performance.now();
    if (typeof input !== "object" || input === null) throw new DocDBError("INVALID_REQUEST", "insert needs an object with a text field");
    const text = validateText(input.text, this.context.maxTextLength);
    const metadata = validateMetadata(input.metadata);
    if (input.title !== undefined && (typeof input.title !== "string" || input.title.length > 1000)) {
      throw new DocDBError("INVALID_REQUEST", "title must be a string of at most 1000 characters");
    }
    const model = this.context.embedding;
    if (model) assertSameModel(this.store, model, this.name);

    const chunks = this.chunk(input, text);
    const docId = newId();
    const seqs = this.store.insertDocument(
      {
        id: docId,
        source: input.source ?? null,
        title: input.title ?? null,
        content: text,
        contentHash: contentHash(text),
        metadata,
        collection: input.collection ?? null,
      },
      toStoredChunks(text, chunks),
    );

    const warnings: string[] = [];
    let embedded = false;
    if (!model) warnings.push(this.pendingWarning());
    else {
      try {
        const inputs = chunks.map((c) => embeddingInput({ text: c.text, heading: c.headingPath?.join(" > "), title: input.title }));
        const vectors = await this.embed(model, inputs, "document");
        if (!this.store.getEmbeddingInfo())
          this.store.setEmbeddingInfo({ provider: model.provider, model: model.modelId, dimensions: model.dimensions });
        this.store.writeVectors(seqs.map((seq, i) => ({ seq, vector: vectors[i] as Float32Array })));
        embedded = true;
      } catch (error) {
        const reason = describeEmbeddingFailure(error);
        // Info, not warn: the caller gets the same words in `warnings` (the CLI prints them once).
        this.context.logger.info({ db: this.name, doc_id: docId, err: reason }, "embedding failed; document stored as pending");
        warnings.push(
          `stored without vectors (${reason}); keyword search finds it now, and \`docdb embed --pending --db ${this.name}\` embeds it later`,
        );
      }
    }
    this.context.logger.info(
      { db: this.name, doc_id: docId, chunks: chunks.length, embedded, ms: Math.round(performance.now() - started) },
      "insert",
    );
    return { doc_id: docId, chunk_count: chunks.length, embedded, warnings };
  }

  private async embed(model: EmbeddingModel, texts: string[], kind: "query" | "document", signal?: AbortSignal): Promise<Float32Array[]> {
    const logger = this.context.logger;
    return embedMany(model, texts, {
      kind,
      signal,
      onBatch: ({ size, ms }) =>
        logger.debug({ provider: model.provider, model: model.modelId, size, ms: Math.round(ms) }, "embedding call"),
      onRetry: ({ attempt, delayMs, error }) =>
        logger.warn(
          { provider: model.provider, attempt, delay_ms: Math.round(delayMs), err: error.message },
          "embedding call failed; retrying",
        ),
    });
  }

  async findSimilar(input: FindInput): Promise<FindResult> {
    const started = performance.now();
    if (typeof input !== "object" || input === null) throw new DocDBError("INVALID_REQUEST", "find needs an object with a query");
    const query = validateText(input.query, MAX_QUERY_LENGTH, "query");
    const topK = validateTopK(input.topK);
    const mode: SearchMode = input.mode ?? "hybrid";
    if (!SEARCH_MODES.includes(mode))
      throw new DocDBError("INVALID_REQUEST", `mode must be one of ${SEARCH_MODES.join(", ")}, got "${String(mode)}"`);
    if (input.threshold !== undefined && (typeof input.threshold !== "number" || !Number.isFinite(input.threshold))) {
      throw new DocDBError("INVALID_REQUEST", "threshold must be a number");
    }
    if (input.filter !== undefined && (typeof input.filter !== "object" || input.filter === null || Array.isArray(input.filter))) {
      throw new DocDBError("INVALID_REQUEST", 'filter must be a JSON object of metadata paths and values, e.g. {"lang":"ja"}');
    }
    if (input.collection !== undefined) this.collections.get(input.collection);
    const filter: SearchFilter = {
      metadata: input.filter,
      sourcePrefix: input.pathPrefix,
      collection: input.collection,
      docIds: input.docIds,
    };
    const warnings: string[] = [];
    // Fetch more than topK when a threshold or fusion may drop some.
    const fetch = mode === "hybrid" || input.threshold !== undefined ? Math.max(topK * 4, 50) : topK;

    let keyword: { seq: number; score: number }[] = [];
    let vector: { seq: number; distance: number }[] = [];
    try {
      if (mode !== "vector") {
        const match = buildKeywordQuery(query);
        keyword = match ? this.store.keywordSearch(match, fetch, filter) : [];
      }
      if (mode !== "keyword") {
        const model = this.context.embedding;
        const info = this.store.getEmbeddingInfo();
        if (!model) {
          const why = this.context.embeddingProblem ?? "no embedding provider is configured";
          if (mode === "vector") {
            throw new DocDBError(
              "EMBEDDING_UNAVAILABLE",
              `vector search needs an embedding model (${why}): configure one, or use --mode keyword`,
            );
          }
          warnings.push(`keyword results only: ${why}`);
        } else if (!info) {
          warnings.push(
            `database "${this.name}" has no vectors yet; ${mode === "hybrid" ? "keyword results only" : "nothing to compare with"}`,
          );
        } else {
          assertSameModel(this.store, model, this.name);
          try {
            const [queryVector] = await this.embed(model, [query], "query");
            vector = this.store.vectorSearch(queryVector as Float32Array, fetch, filter);
          } catch (error) {
            if (mode === "vector" || DocDBError.isInstance(error)) {
              throw DocDBError.isInstance(error)
                ? error
                : new DocDBError("EMBEDDING_UNAVAILABLE", `could not embed the query: ${describeEmbeddingFailure(error)}`, {
                    cause: error,
                  });
            }
            warnings.push(`keyword results only: could not embed the query (${describeEmbeddingFailure(error)})`);
          }
        }
      }
    } catch (error) {
      if (error instanceof FilterError) throw new DocDBError("INVALID_REQUEST", error.message);
      throw error;
    }

    const ranked = this.rank(mode, keyword, vector);
    const kept = ranked.filter((r) => input.threshold === undefined || r.score >= input.threshold).slice(0, topK);
    const hits = new Map(this.store.hits(kept.map((r) => r.seq)).map((h) => [h.seq, h]));
    const results = this.collections.markStale(
      kept.flatMap((r) => {
        const hit = hits.get(r.seq);
        return hit ? [toResult(hit, r.score, r.distance)] : [];
      }),
    );
    this.context.logger.info(
      { db: this.name, mode, top_k: topK, results: results.length, ms: Math.round(performance.now() - started) },
      "find",
    );
    return { results, mode, warnings };
  }

  private rank(
    mode: SearchMode,
    keyword: { seq: number; score: number }[],
    vector: { seq: number; distance: number }[],
  ): { seq: number; score: number; distance?: number }[] {
    if (mode === "keyword") return keyword;
    if (mode === "vector") return vector.map((v) => ({ seq: v.seq, score: 1 - v.distance, distance: v.distance }));
    const fused = new Map<number, { seq: number; score: number; distance?: number }>();
    keyword.forEach((k, rank) => {
      fused.set(k.seq, { seq: k.seq, score: 1 / (RRF_K + rank + 1) });
    });
    vector.forEach((v, rank) => {
      const entry = fused.get(v.seq) ?? { seq: v.seq, score: 0 };
      entry.score += 1 / (RRF_K + rank + 1);
      entry.distance = v.distance;
      fused.set(v.seq, entry);
    });
    return [...fused.values()].sort((a, b) => b.score - a.score);
  }

  getDocument(id: string): DocumentView {
    validateId(id);
    const doc = this.store.getDocument(id);
    if (!doc) throw new DocDBError("NOT_FOUND", `no document with id "${id}" in database "${this.name}"`);
    return {
      doc_id: doc.id,
      title: doc.title,
      source: doc.source,
      text: doc.content,
      metadata: doc.metadata,
      collection: doc.collection,
      created_at: doc.created_at,
      updated_at: doc.updated_at,
      chunks: this.store.getChunksOf(id).map((c) => ({
        chunk_id: c.id,
        index: c.idx,
        start: c.start,
        end: c.end,
        embedded: c.embedded,
        ...(c.line_start !== null ? { line_start: c.line_start } : {}),
        ...(c.line_end !== null ? { line_end: c.line_end } : {}),
      })),
    };
  }

  deleteDocument(id: string): { deleted_chunks: number } {
    const started = performance.now();
    validateId(id);
    const deleted = this.store.deleteDocument(id);
    if (deleted < 0) throw new DocDBError("NOT_FOUND", `no document with id "${id}" in database "${this.name}"; nothing was deleted`);
    this.context.logger.info({ db: this.name, doc_id: id, chunks: deleted, ms: Math.round(performance.now() - started) }, "delete");
    return { deleted_chunks: deleted };
  }

  listDocuments(options: { limit?: number; offset?: number; collection?: string } = {}) {
    const limit = options.limit ?? 100;
    if (!Number.isInteger(limit) || limit < 1 || limit > 10_000)
      throw new DocDBError("INVALID_REQUEST", "limit must be an integer from 1 to 10000");
    return this.store.listDocuments({ ...options, limit }).map((d) => ({
      doc_id: d.id,
      title: d.title,
      source: d.source,
      metadata: d.metadata,
      collection: d.collection,
      chunk_count: d.chunk_count,
      length: d.length,
      created_at: d.created_at,
    }));
  }

  status(): DatabaseStatus {
    const counts = this.store.counts();
    const info = this.store.getEmbeddingInfo();
    return {
      name: this.name,
      path: this.path,
      documents: counts.documents,
      chunks: counts.chunks,
      embedded: counts.embedded,
      pending: counts.pending,
      model: info ? { provider: info.provider, model: info.model, dimensions: info.dimensions } : null,
    };
  }

  /**
   * Embeds every pending chunk in batches, committing each batch, so an interrupted run
   * loses at most one batch and the next run carries on.
   */
  async embedPending(
    options: { batchSize?: number; signal?: AbortSignal; onProgress?: (p: EmbedProgress) => void } = {},
  ): Promise<{ embedded: number; remaining: number }> {
    return this.embedChunks("pending", options);
  }

  /**
   * Drops every vector and embeds all chunks again with the current model (after a model
   * change). Resumable: chunks are marked pending first, so an interrupted run is finished by
   * `embedPending` or another `reembed`.
   */
  async reembed(
    options: { batchSize?: number; signal?: AbortSignal; onProgress?: (p: EmbedProgress) => void } = {},
  ): Promise<{ embedded: number; remaining: number }> {
    const model = this.requireModel();
    // Prove the model works before any vector is dropped: a model that cannot load must not
    // leave the database with no vectors at all.
    try {
      await this.embed(model, ["docdb"], "document", options.signal);
    } catch (error) {
      if (DocDBError.isInstance(error) || options.signal?.aborted) throw error;
      const reason = error instanceof Error ? error.message : String(error);
      throw new DocDBError("EMBEDDING_UNAVAILABLE", `cannot re-embed, the stored vectors are unchanged: ${reason}`, { cause: error });
    }
    const info = this.store.getEmbeddingInfo();
    const sameModel = info && info.provider === model.provider && info.model === model.modelId && info.dimensions === model.dimensions;
    if (!sameModel)
      this.store.setEmbeddingInfo({ provider: model.provider, model: model.modelId, dimensions: model.dimensions }, { replace: true });
    else if (this.store.counts().pending === 0 && this.store.getMeta("reembed_in_progress") !== "1") {
      // Same model: re-embedding everything is what was asked; mark all pending.
      this.store.setEmbeddingInfo(info, { replace: true });
    }
    this.store.setMeta("reembed_in_progress", "1");
    const result = await this.embedChunks("pending", options);
    if (result.remaining === 0) this.store.db.prepare("DELETE FROM meta WHERE key = 'reembed_in_progress'").run();
    return result;
  }

  private requireModel(): EmbeddingModel {
    const model = this.context.embedding;
    if (!model) {
      const why = this.context.embeddingProblem ?? "no embedding provider is configured";
      throw new DocDBError(
        "EMBEDDING_UNAVAILABLE",
        `cannot embed: ${why}. Configure a provider (DOCDB_EMBEDDING=local, openai or ollama; \`docdb models\` lists local models) and run again`,
      );
    }
    return model;
  }

  private async embedChunks(
    _which: "pending",
    options: { batchSize?: number; signal?: AbortSignal; onProgress?: (p: EmbedProgress) => void },
  ): Promise<{ embedded: number; remaining: number }> {
    const model = this.requireModel();
    assertSameModel(this.store, model, this.name);
    const batchSize = options.batchSize ?? Math.max(model.maxBatchSize, 32);
    const total = this.store.counts().pending;
    let done = 0;
    let after = 0;
    for (;;) {
      options.signal?.throwIfAborted();
      const batch = this.store.pendingChunks(batchSize, after);
      if (batch.length === 0) break;
      let vectors: Float32Array[];
      try {
        vectors = await this.embed(model, batch.map(embeddingInput), "document", options.signal);
      } catch (error) {
        if (DocDBError.isInstance(error)) throw error;
        throw new DocDBError(
          "EMBEDDING_UNAVAILABLE",
          `embedding failed after ${done} of ${total} chunks: ${describeEmbeddingFailure(error)}; run the command again to continue`,
          { cause: error },
        );
      }
      // The model is recorded with its first vectors, not before: a run that fails at once
      // must not bind the database to a model that never embedded anything.
      if (!this.store.getEmbeddingInfo())
        this.store.setEmbeddingInfo({ provider: model.provider, model: model.modelId, dimensions: model.dimensions });
      this.store.writeVectors(batch.map((c, i) => ({ seq: c.seq, vector: vectors[i] as Float32Array })));
      done += batch.length;
      after = (batch[batch.length - 1] as { seq: number }).seq;
      options.onProgress?.({ done, total });
    }
    return { embedded: done, remaining: this.store.counts().pending };
  }
}

function toResult(hit: ChunkHit, score: number, distance: number | undefined): SearchResult {
  return {
    chunk_id: hit.id,
    doc_id: hit.doc_id,
    text: hit.text,
    score,
    ...(distance !== undefined ? { distance } : {}),
    start: hit.start,
    end: hit.end,
    metadata: hit.metadata,
    ...(hit.title ? { title: hit.title } : {}),
    ...(hit.source ? { source: hit.source } : {}),
    ...(hit.collection ? { collection: hit.collection } : {}),
    ...(hit.heading ? { heading: hit.heading } : {}),
    ...(hit.line_start !== null ? { line_start: hit.line_start } : {}),
    ...(hit.line_end !== null ? { line_end: hit.line_end } : {}),
  };
}
