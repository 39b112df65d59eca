import { buildKeywordQuery } from "@docdb/analyzer";
import { type Chunk, type ChunkOptions, chunkMarkdown, chunkText } from "@docdb/chunker";
import { EmbeddingError, type EmbeddingModel, embedMany, type Reranker } from "@docdb/embed";
import {
  allOf,
  type ChunkHit,
  type DocumentWrite,
  type Filter,
  type Store,
  type VectorHit,
  type VectorIndexProgress,
  type VectorIndexSettings,
  type VectorIndexStatus,
  type WriteResult,
} from "@docdb/store";
import { type Analyse, analyseInThread } from "./analysis.js";
import { Collections } from "./collections/collections.js";
import { DEFINITION_CANDIDATES, definedSymbol, definitionsFirst, namedSymbol } from "./definitions.js";
import { assertSameModel, embeddingInput } from "./embedding-guard.js";
import { DocDBError, fromStoreError, toDocDBError } from "./errors.js";
import { parseFilter } from "./filter.js";
import type { HealingStatus } from "./healer.js";
import { lineIndex } from "./lines.js";
import type { Logger } from "./logger.js";
import { Memory, resolveMemoryOptions } from "./memory/memory.js";
import {
  ANY_MEMORY,
  isSystemCollection,
  MEMORY_COLLECTION_PREFIX,
  MEMORY_COLLECTIONS,
  WITHOUT_SYSTEM_COLLECTIONS,
} from "./memory/names.js";
import type { ResolvedMemoryOptions } from "./memory/types.js";
import { describeBudget, fitBudget, groupPassages, type RankedHit, toPassage, validateMaxChars } from "./passages.js";
import { RERANK_CANDIDATES } from "./reranker.js";
import { validateSql } from "./sql.js";
import { contentHash, newId, toStoredChunks } from "./stored-chunks.js";
import type {
  DatabaseStatus,
  DocumentListing,
  DocumentRange,
  DocumentView,
  EmbedOptions,
  EmbedResult,
  FindInput,
  FindResult,
  InsertInput,
  InsertManyItem,
  InsertManyOptions,
  InsertManyResult,
  InsertResult,
  SearchMode,
  SearchResult,
  SqlOptions,
  SqlResult,
} from "./types.js";
import { SEARCH_MODES } from "./types.js";
import { MAX_QUERY_LENGTH, validateId, validateKey, validateMetadata, validateText, validateTopK } from "./validate.js";

/** The k of reciprocal-rank fusion (Cormack et al. 2009): a rank r counts 1 / (k + r). */
const RRF_K = 60;
/** The largest fused score: first in both rankings. Hybrid scores are divided by it. */
const RRF_MAX = 2 / (RRF_K + 1);

/** What a database needs from the DocDB that opened it. */
export interface DatabaseContext {
  embedding: EmbeddingModel | null;
  /** Why `embedding` is null, when it is (shown in warnings). */
  embeddingProblem?: string;
  /** The reranker for `rerank: true`; null when there is none. */
  reranker?: Reranker | null;
  /** Why `reranker` is null, when it is. */
  rerankerProblem?: string;
  logger: Logger;
  maxTextLength: number;
  chunkOptions: ChunkOptions;
  /** Engine kind for status ("sqlite", "postgres"). */
  engine: string;
  /** Deadline of the provider calls of one insert or query, retries included, in ms. */
  embedDeadlineMs: number;
  /** Called when an insert leaves chunks pending (a running server's healer embeds them). */
  onPending?: () => void;
  /** The background embedder's state, when one runs. */
  healing?: () => HealingStatus | undefined;
  /** Analyses the words of bulk inserts (worker threads when they pay); default in this thread. */
  analyse?: Analyse;
  /** Agent memory thresholds (default: the environment's, else docdb's defaults). */
  memory?: ResolvedMemoryOptions;
}

/**
 * Why embedding failed, in words to put after a colon: the provider's message, or a
 * DocDBError's own. Callers that wrap it in an EMBEDDING_UNAVAILABLE error must not add the
 * code again (the CLI prints it in front already).
 */
function describeEmbeddingFailure(error: unknown): string {
  if (DocDBError.isInstance(error)) return error.code === "EMBEDDING_UNAVAILABLE" ? error.message : `${error.code}: ${error.message}`;
  return error instanceof Error ? error.message : String(error);
}

/** Documents per transaction of `insertDocuments`, by default and at most. */
export const DEFAULT_INSERT_BATCH = 100;
export const MAX_INSERT_BATCH = 1000;

/** The deadline in ms of the provider calls that embed `chunks` chunks. */
type Deadline = (chunks: number) => number;

/** A validated, chunked document with its ids, ready to analyse, embed and write. */
interface PreparedInsert {
  write: DocumentWrite;
  title: string | null;
  /** Has a key: may replace a document, whose unchanged chunks keep their vectors. */
  keyed: boolean;
}

/** Runs embedding work; why it failed (for a warning), or undefined when it succeeded. */
async function failureOf(work: () => Promise<void>): Promise<string | undefined> {
  try {
    await work();
    return undefined;
  } catch (error) {
    return describeEmbeddingFailure(error);
  }
}

/** The entry of a document that was not stored. */
function refused(error: unknown): InsertManyItem {
  const { code, message } = toDocDBError(error);
  return { ok: false, error: { code, message } };
}

function countOk(results: (InsertManyItem | undefined)[]): number {
  return results.filter((r) => r?.ok).length;
}

/** What to fix when a provider keeps failing, by provider. */
function providerHint(model: EmbeddingModel, error: unknown): string {
  const retryable = EmbeddingError.isInstance(error) && error.retryable;
  switch (model.provider) {
    case "openai":
      return retryable
        ? "check that the OpenAI API (or OPENAI_BASE_URL) is reachable and not rate-limiting you"
        : "check OPENAI_API_KEY, OPENAI_BASE_URL and the model settings";
    case "ollama":
      return "start Ollama (`ollama serve`) and pull the model, or point DOCDB_OLLAMA_URL at a running one";
    case "local":
      return "make the local model available (`docdb models` shows where it is looked for), or choose another provider";
    default:
      return `check the ${model.provider} provider`;
  }
}

/** One named database: documents in, passages out. Every method that touches storage is async. */
export class Database {
  /** Named document sets imported from folders (add, import, status, watch). */
  readonly collections: Collections;
  /** Memory for agents: question–answer records by topic, merged into knowledge (see Memory). */
  readonly memory: Memory;
  /** Agent memory has been seen in this database (see withoutMemory). */
  private holdsMemory = false;

  /** @internal Opened by `DocDB.database`; not constructed directly. */
  constructor(
    readonly name: string,
    private readonly store: Store,
    private readonly context: DatabaseContext,
  ) {
    this.collections = new Collections(name, store, {
      logger: context.logger,
      chunkOptions: context.chunkOptions,
      embedding: context.embedding,
      embedPending: (options) => this.embedPending(options),
      pendingCount: async () => (await this.store.counts()).pending,
      model: async () => (await this.status()).model,
      analyse: context.analyse,
    });
    this.memory = new Memory({
      databaseName: name,
      store,
      embedding: context.embedding,
      logger: context.logger,
      options: context.memory ?? resolveMemoryOptions(),
      insert: (inputs) => this.insertTogether(inputs),
      search: (query, options) => this.search(query, options),
      embed: (model, texts) => this.embed(model, texts, "document", { deadlineMs: this.context.embedDeadlineMs }),
    });
  }

  /** Where the database lives (a file path, or host/database/schema; never a password). */
  get location(): string {
    return this.store.location;
  }

  /** Runs a storage call, turning engine errors into DocDBErrors. */
  private async call<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      throw fromStoreError(error);
    }
  }

  private chunk(input: InsertInput, text: string): Chunk[] {
    const markdown = input.format === "markdown" || (input.format === undefined && /\.(md|markdown|mdx)$/i.test(input.source ?? ""));
    return markdown ? chunkMarkdown(text, this.context.chunkOptions) : chunkText(text, this.context.chunkOptions);
  }

  /**
   * One short line for every insert without vectors: the reason's first sentence only (a missing
   * local model explains its three ways out once, in `docdb models` and `status`, not per insert).
   */
  private pendingWarning(reason: string): string {
    const [first] = reason.split(". Ways out");
    const hint = first !== reason ? "; `docdb models` shows how to get one" : "";
    return `stored without vectors (${first}${hint}); keyword search finds it now, and \`docdb embed --pending --db ${this.name}\` embeds it later`;
  }

  /** Refuses docdb's reserved collections ("_…", agent memory) in a user's insert. */
  private assertUserCollection(input: InsertInput): void {
    if (typeof input === "object" && input !== null && typeof input.collection === "string" && isSystemCollection(input.collection)) {
      throw new DocDBError(
        "INVALID_REQUEST",
        `collection names starting with "_" are reserved for docdb (agent memory lives in ${MEMORY_COLLECTION_PREFIX}*): choose another name`,
      );
    }
  }

  /**
   * Validates an insert, chunks it and gives the document and its chunks their ids (a caller
   * inside core may choose the document's id).
   */
  private prepareInsert(input: InsertInput & { id?: string }): PreparedInsert {
    if (typeof input !== "object" || input === null) throw new DocDBError("INVALID_REQUEST", "insert needs an object with a text field");
    const text = validateText(input.text, this.context.maxTextLength);
    const metadata = validateMetadata(input.metadata);
    const key = input.key === undefined ? undefined : validateKey(input.key);
    if (input.title !== undefined && (typeof input.title !== "string" || input.title.length > 1000)) {
      throw new DocDBError("INVALID_REQUEST", "title must be a string of at most 1000 characters");
    }
    const title = input.title ?? null;
    const chunks = toStoredChunks(text, this.chunk(input, text), title);
    return {
      title,
      keyed: key !== undefined,
      write: {
        document: {
          id: input.id ?? newId(),
          key: key ?? null,
          source: input.source ?? null,
          title,
          content: text,
          contentHash: contentHash(text),
          metadata,
          collection: input.collection ?? null,
        },
        chunks,
        upsertByKey: key !== undefined,
      },
    };
  }

  /**
   * Embeds the chunks of documents that replace nothing (no key) before they are written, so
   * their vectors go into the same transaction as the chunks. Throws when the provider fails.
   */
  private async embedBeforeWrite(model: EmbeddingModel, items: PreparedInsert[], deadlineMs: Deadline): Promise<void> {
    const chunks = items.flatMap((p) => p.write.chunks.map((chunk) => ({ chunk, title: p.title })));
    if (chunks.length === 0) return;
    const vectors = await this.embed(
      model,
      chunks.map(({ chunk, title }) => embeddingInput({ text: chunk.text, heading: chunk.heading, title })),
      "document",
      { deadlineMs: deadlineMs(chunks.length) },
    );
    await this.recordModel(model);
    chunks.forEach(({ chunk }, i) => {
      chunk.vector = vectors[i];
    });
  }

  /**
   * Embeds, after the write, the chunks of keyed documents that did not take over a vector from
   * the document they replaced (unchanged chunks keep theirs, so they are not embedded again).
   */
  private async embedAfterWrite(
    model: EmbeddingModel,
    items: { prepared: PreparedInsert; written: WriteResult }[],
    deadlineMs: Deadline,
  ): Promise<void> {
    const pending: { id: string; text: string; heading: string | null | undefined; title: string | null }[] = [];
    for (const { prepared, written } of items) {
      if (prepared.write.chunks.length === written.reusedVectors) continue;
      // Only when some vectors were carried over must the store say which chunks still need one.
      const chunks =
        written.reusedVectors === 0
          ? prepared.write.chunks
          : (await this.call(() => this.store.getChunks(written.docId))).filter((c) => !c.embedded);
      for (const c of chunks) pending.push({ id: c.id, text: c.text, heading: c.heading, title: prepared.title });
    }
    if (pending.length === 0) return;
    const vectors = await this.embed(model, pending.map(embeddingInput), "document", { deadlineMs: deadlineMs(pending.length) });
    await this.recordModel(model);
    await this.call(() => this.store.writeVectors(pending.map((c, i) => ({ chunkId: c.id, vector: vectors[i] as Float32Array }))));
  }

  /** The result of one stored document; `failure` is why embedding failed, when it did. */
  private insertResult(prepared: PreparedInsert, written: WriteResult, model: EmbeddingModel | null, failure: string | undefined) {
    const { docId, replaced, reusedVectors } = written;
    const chunkCount = prepared.write.chunks.length;
    const warnings: string[] = [];
    let embedded = chunkCount === reusedVectors;
    if (!model) {
      if (!embedded) warnings.push(this.pendingWarning(this.context.embeddingProblem ?? "no embedding provider is configured"));
    } else if (failure !== undefined) {
      // Info, not warn: the caller gets the same words in `warnings` (the CLI prints them once).
      this.context.logger.info({ db: this.name, doc_id: docId, err: failure }, "embedding failed; document stored as pending");
      if (!embedded) warnings.push(this.pendingWarning(failure));
    } else embedded = true;
    const result: InsertResult = { doc_id: docId, chunk_count: chunkCount, embedded, replaced, reused_vectors: reusedVectors, warnings };
    return result;
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
    this.assertUserCollection(input);
    const [result] = await this.insertTogether([input]);
    return result as InsertResult;
  }

  /**
   * Several documents written in one transaction (all or none; throws when the write
   * fails), each embedded as `insertDocument` embeds one. Used by `insertDocument` and by agent
   * memory (knowledge plus the QAs it marks merged). No reserved-collection check: callers inside
   * core choose their collections (and may choose the documents' ids).
   */
  private async insertTogether(inputs: (InsertInput & { id?: string })[]): Promise<InsertResult[]> {
    const started = performance.now();
    const prepared = inputs.map((input) => this.prepareInsert(input));
    analyseInThread(prepared.map((p) => p.write));
    const model = this.context.embedding;
    if (model) assertSameModel(await this.call(() => this.store.getEmbeddingInfo()), model, this.name);

    // An insert answers within the deadline: what is not embedded by then stays pending.
    const deadlineMs: Deadline = () => this.context.embedDeadlineMs;
    const fresh = prepared.filter((p) => !p.keyed);
    let failure: string | undefined;
    if (model && fresh.length > 0) failure = await failureOf(() => this.embedBeforeWrite(model, fresh, deadlineMs));
    const written = (await this.call(() => this.store.writeDocuments(prepared.map((p) => p.write)))) as WriteResult[];
    const keyed = prepared.flatMap((p, i) => (p.keyed ? [{ prepared: p, written: written[i] as WriteResult }] : []));
    let keyedFailure: string | undefined;
    if (model && keyed.length > 0) keyedFailure = await failureOf(() => this.embedAfterWrite(model, keyed, deadlineMs));

    const results = prepared.map((p, i) => {
      // A document without a key has vectors exactly when they were computed before the write.
      const why = p.keyed ? keyedFailure : p.write.chunks.some((c) => c.vector) ? undefined : failure;
      return this.insertResult(p, written[i] as WriteResult, model, why);
    });
    for (const result of results) {
      this.context.logger.info(
        {
          db: this.name,
          doc_id: result.doc_id,
          chunks: result.chunk_count,
          replaced: result.replaced,
          embedded: result.embedded,
          ms: Math.round(performance.now() - started),
        },
        "insert",
      );
    }
    if (results.some((r) => !r.embedded)) this.context.onPending?.();
    return results;
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
    if (!Array.isArray(inputs)) throw new DocDBError("INVALID_REQUEST", "insertDocuments needs an array of documents");
    const batchSize = options.batch_size ?? DEFAULT_INSERT_BATCH;
    if (!Number.isInteger(batchSize) || batchSize < 1 || batchSize > MAX_INSERT_BATCH) {
      throw new DocDBError("INVALID_REQUEST", `batch_size must be an integer from 1 to ${MAX_INSERT_BATCH}`);
    }
    const model = this.context.embedding;
    if (model && inputs.length > 0) assertSameModel(await this.call(() => this.store.getEmbeddingInfo()), model, this.name);
    const results: InsertManyItem[] = new Array(inputs.length);
    // One insert's deadline for each of the provider's batches (calls) a batch of documents needs.
    const deadlineMs: Deadline = (chunks) =>
      this.context.embedDeadlineMs * Math.max(1, Math.ceil(chunks / Math.max(1, model?.maxBatchSize ?? 1)));
    // Once the provider fails, the rest of the call is stored without vectors.
    let failure: string | undefined;
    // Once the store cannot be reached, the rest of the call is refused.
    let unreachable: DocDBError | undefined;

    const prepareBatch = (from: number) => {
      const batch: { index: number; prepared: PreparedInsert }[] = [];
      for (let i = from; i < Math.min(from + batchSize, inputs.length); i++) {
        try {
          const input = inputs[i] as InsertInput;
          this.assertUserCollection(input);
          batch.push({ index: i, prepared: this.prepareInsert(input) });
        } catch (error) {
          results[i] = refused(error);
        }
      }
      const writes = batch.map((b) => b.prepared.write);
      return { batch, analysed: this.context.analyse ? this.context.analyse(writes) : Promise.resolve(analyseInThread(writes)) };
    };

    let next = inputs.length > 0 ? prepareBatch(0) : undefined;
    for (let from = 0; next; from += batchSize) {
      const { batch, analysed } = next;
      await analysed;
      // The next batch is analysed (in worker threads, when they run) while this one is written.
      next = from + batchSize < inputs.length ? prepareBatch(from + batchSize) : undefined;
      if (options.signal?.aborted) {
        await next?.analysed.catch(() => undefined);
        throw new DocDBError(
          "INTERNAL",
          `insert interrupted: ${countOk(results)} of ${inputs.length} documents were stored (every batch before the interruption is complete)`,
          { cause: options.signal.reason },
        );
      }
      const started = performance.now();
      if (unreachable) {
        for (const { index } of batch) results[index] = refused(unreachable);
      } else {
        const fresh = batch.filter((b) => !b.prepared.keyed).map((b) => b.prepared);
        if (model && failure === undefined && fresh.length > 0)
          failure = await failureOf(() => this.embedBeforeWrite(model, fresh, deadlineMs));
        const written = await this.writeBatch(batch.map((b) => b.prepared));
        const keyed: { prepared: PreparedInsert; written: WriteResult }[] = [];
        batch.forEach(({ prepared }, i) => {
          const w = written[i];
          if (w instanceof DocDBError && w.code === "STORE_UNAVAILABLE") unreachable ??= w;
          if (!(w instanceof DocDBError) && prepared.keyed) keyed.push({ prepared, written: w as WriteResult });
        });
        // Keyed documents are embedded after the write (their unchanged chunks keep their vectors).
        let keyedFailure = failure;
        if (model && failure === undefined && keyed.length > 0) {
          failure = keyedFailure = await failureOf(() => this.embedAfterWrite(model, keyed, deadlineMs));
        }
        batch.forEach(({ index, prepared }, i) => {
          const w = written[i] as WriteResult | DocDBError;
          if (w instanceof DocDBError) {
            results[index] = refused(w);
            return;
          }
          // A document without a key has vectors exactly when they were computed before the write.
          const why = prepared.keyed ? keyedFailure : prepared.write.chunks.some((c) => c.vector) ? undefined : failure;
          results[index] = { ok: true, ...this.insertResult(prepared, w, model, why) };
        });
      }
      this.context.logger.info({ db: this.name, documents: batch.length, ms: Math.round(performance.now() - started) }, "insert batch");
      options.onProgress?.({ done: Math.min(from + batchSize, inputs.length), total: inputs.length });
    }

    const summary: InsertManyResult = { results, inserted: 0, failed: 0, chunks: 0, pending: 0, warnings: [] };
    const warnings = new Set<string>();
    for (const r of results) {
      if (!r.ok) {
        summary.failed++;
        continue;
      }
      summary.inserted++;
      summary.chunks += r.chunk_count;
      if (!r.embedded) summary.pending++;
      for (const w of r.warnings) warnings.add(w);
    }
    summary.warnings = [...warnings];
    if (summary.pending > 0) this.context.onPending?.();
    return summary;
  }

  /**
   * Writes a batch in one transaction; when that fails, each document alone, so one document
   * the store refuses does not take the others with it. Entries are results or errors.
   */
  private async writeBatch(batch: PreparedInsert[]): Promise<(WriteResult | DocDBError)[]> {
    if (batch.length === 0) return [];
    try {
      return await this.call(() => this.store.writeDocuments(batch.map((p) => p.write)));
    } catch (error) {
      const first = toDocDBError(error);
      if (batch.length === 1 || first.code === "STORE_UNAVAILABLE") return batch.map(() => first);
      this.context.logger.info({ db: this.name, err: first.message }, "batch write failed; writing its documents one by one");
    }
    const out: (WriteResult | DocDBError)[] = [];
    let last: DocDBError | undefined;
    let giveUp: DocDBError | undefined;
    for (const prepared of batch) {
      if (giveUp) {
        out.push(giveUp);
        continue;
      }
      try {
        const [written] = await this.call(() => this.store.writeDocuments([prepared.write]));
        out.push(written as WriteResult);
        last = undefined;
      } catch (error) {
        const refusal = toDocDBError(error);
        out.push(refusal);
        // The store is gone, or two documents in a row failed alike: the cause is not the
        // documents (a lock held too long, a full disk), so the rest is not tried one by one.
        if (refusal.code === "STORE_UNAVAILABLE" || last?.code === refusal.code) giveUp = refusal;
        last = refusal;
      }
    }
    return out;
  }

  /** The model is recorded with its first vectors, so a model that never embedded anything binds nothing. */
  private async recordModel(model: EmbeddingModel): Promise<void> {
    if (await this.call(() => this.store.getEmbeddingInfo())) return;
    await this.call(() => this.store.setEmbeddingInfo({ provider: model.provider, model: model.modelId, dimensions: model.dimensions }));
  }

  private async embed(
    model: EmbeddingModel,
    texts: string[],
    kind: "query" | "document",
    options: { signal?: AbortSignal; retries?: number; deadlineMs?: number } = {},
  ): Promise<Float32Array[]> {
    const logger = this.context.logger;
    return embedMany(model, texts, {
      kind,
      signal: options.signal,
      maxRetries: options.retries,
      deadlineMs: options.deadlineMs,
      onBatch: ({ size, ms }) =>
        logger.debug({ provider: model.provider, model: model.modelId, size, ms: Math.round(ms) }, "embedding call"),
      onRetry: ({ attempt, delayMs, error }) =>
        logger.warn(
          { provider: model.provider, attempt, delay_ms: Math.round(delayMs), err: error.message },
          "embedding call failed; retrying",
        ),
    });
  }

  /** The best keyword hits among chunks of code whose own symbol is `name` (see definitions.ts). */
  private async definitions(
    query: NonNullable<ReturnType<typeof buildKeywordQuery>>,
    name: string,
    filter: Filter | undefined,
  ): Promise<{ chunkId: string; score: number }[]> {
    const withSymbol = allOf([filter, { op: "exists", field: { chunk: "symbol" }, value: true }]);
    const hits = await this.call(() => this.store.keywordSearch(query, { limit: DEFINITION_CANDIDATES, filter: withSymbol }));
    if (hits.length === 0) return [];
    const defining = new Set(
      (await this.call(() => this.store.chunkHits(hits.map((h) => h.chunkId)))).filter((c) => definedSymbol(c, name)).map((c) => c.id),
    );
    return hits.filter((h) => defining.has(h.chunkId));
  }

  /**
   * The condition that keeps agent memory out of find and list, or none when the database holds
   * no memory. Any filter makes an engine take its filtered vector path (at 100k chunks the
   * SQLite engine counts the matching chunks first, ~160 ms), and most databases never store
   * memory; asking whether it has any is one indexed lookup, made until the answer is yes.
   */
  private async withoutMemory(): Promise<Filter | undefined> {
    // Once memory is seen the answer is kept: the filter stays right if memory is deleted later.
    if (!this.holdsMemory) {
      const any = await this.call(() => this.store.listDocuments({ limit: 1, filter: ANY_MEMORY }));
      this.holdsMemory = any.length > 0;
    }
    return this.holdsMemory ? WITHOUT_SYSTEM_COLLECTIONS : undefined;
  }

  private async searchFilter(input: FindInput): Promise<Filter | undefined> {
    if (input.filter !== undefined && (typeof input.filter !== "object" || input.filter === null || Array.isArray(input.filter))) {
      throw new DocDBError("INVALID_REQUEST", 'filter must be a JSON object of metadata paths and values, e.g. {"lang":"ja"}');
    }
    if (input.path_prefix !== undefined && typeof input.path_prefix !== "string") {
      throw new DocDBError("INVALID_REQUEST", "path_prefix must be a string");
    }
    if (input.doc_ids !== undefined && (!Array.isArray(input.doc_ids) || input.doc_ids.some((id) => typeof id !== "string"))) {
      throw new DocDBError("INVALID_REQUEST", "doc_ids must be an array of document ids");
    }
    if (input.collection !== undefined) {
      const collection = await this.collections.get(input.collection);
      if (!collection.enabled) {
        throw new DocDBError(
          "NOT_FOUND",
          `collection "${collection.name}" is disabled; enable it with \`docdb collection enable -n ${collection.name}\` or search another`,
        );
      }
    }
    return allOf([
      parseFilter(input.filter),
      input.path_prefix !== undefined ? { op: "prefix", field: { builtin: "source" }, value: input.path_prefix } : undefined,
      input.collection !== undefined ? { op: "eq", field: { builtin: "collection" }, value: input.collection } : await this.withoutMemory(),
      input.doc_ids !== undefined ? { op: "in", field: { builtin: "doc_id" }, values: input.doc_ids } : undefined,
    ]);
  }

  /**
   * Finds the passages that answer a query: by keywords, by meaning (vectors), or both fused
   * (`hybrid`, the default). Filters apply before `top_k` is cut; scores are 0–1 in every mode.
   * Without a usable model, hybrid falls back to keywords with a warning; vector mode fails.
   */
  async findSimilar(input: FindInput, limits?: { /** @internal evaluation only */ maxTopK: number }): Promise<FindResult> {
    const started = performance.now();
    if (typeof input !== "object" || input === null) throw new DocDBError("INVALID_REQUEST", "find needs an object with a query");
    const query = validateText(input.query, MAX_QUERY_LENGTH, "query");
    const topK = validateTopK(input.top_k, limits?.maxTopK);
    const mode: SearchMode = input.mode ?? "hybrid";
    if (!SEARCH_MODES.includes(mode))
      throw new DocDBError("INVALID_REQUEST", `mode must be one of ${SEARCH_MODES.join(", ")}, got "${String(mode)}"`);
    if (input.threshold !== undefined && (typeof input.threshold !== "number" || !(input.threshold >= 0 && input.threshold <= 1))) {
      throw new DocDBError("INVALID_REQUEST", "threshold must be a number from 0 to 1 (scores are 0–1, higher is better)");
    }
    if (input.rerank !== undefined && typeof input.rerank !== "boolean")
      throw new DocDBError("INVALID_REQUEST", "rerank must be true or false");
    const reranker = input.rerank === true ? this.requireReranker() : undefined;
    const maxChars = validateMaxChars(input.max_chars);
    if (input.include_text !== undefined && typeof input.include_text !== "boolean") {
      throw new DocDBError("INVALID_REQUEST", "include_text must be true or false");
    }
    if (input.merge !== undefined && typeof input.merge !== "boolean")
      throw new DocDBError("INVALID_REQUEST", "merge must be true or false");
    const includeText = input.include_text !== false;
    const merge = input.merge !== false;
    const filter = await this.searchFilter(input);
    const warnings: string[] = [];
    // Fetch more than top_k when fusion or a threshold may drop some, or a reranker reorders them.
    const candidates = Math.max(topK, RERANK_CANDIDATES);
    let fetch = mode === "hybrid" || input.threshold !== undefined ? Math.max(topK * 4, 50) : topK;
    if (reranker) fetch = Math.max(fetch, candidates);

    const prefetched = new Map<string, ChunkHit>();
    const ranked = await this.retrieve(query, { mode, fetch, filter, exact: input.exact === true }, warnings, prefetched);
    let scored: RankedHit[];
    let retrievalScores: Map<string, number> | undefined;
    if (reranker) {
      const pool = ranked.slice(0, candidates);
      const hits = await this.chunkHitsOf(
        pool.map((r) => r.chunkId),
        prefetched,
      );
      const found = pool.flatMap((r) => {
        const hit = hits.get(r.chunkId);
        return hit ? [{ hit, retrieval: r }] : [];
      });
      const scores = await this.rerank(
        reranker,
        query,
        found.map((f) => f.hit),
      );
      retrievalScores = new Map(found.map((f) => [f.hit.id, f.retrieval.score]));
      scored = found
        .map((f, i) => ({
          hit: f.hit,
          score: scores[i] as number,
          ...(f.retrieval.distance !== undefined ? { distance: f.retrieval.distance } : {}),
          at: i,
        }))
        // Ties keep the retrieval order.
        .sort((a, b) => b.score - a.score || a.at - b.at)
        .filter((r) => input.threshold === undefined || r.score >= input.threshold)
        .slice(0, topK)
        .map(({ at: _at, ...r }) => r);
    } else {
      const kept = ranked.filter((r) => input.threshold === undefined || r.score >= input.threshold).slice(0, topK);
      const hits = await this.chunkHitsOf(
        kept.map((r) => r.chunkId),
        prefetched,
      );
      scored = kept.flatMap((r) => {
        const hit = hits.get(r.chunkId);
        return hit ? [{ hit, score: r.score, ...(r.distance !== undefined ? { distance: r.distance } : {}) }] : [];
      });
    }
    const groups = groupPassages(scored, merge);
    // Merged passages are re-sliced from their document's text, so overlaps are not repeated.
    const contents = new Map<string, string>();
    if (includeText) {
      for (const { group, single } of groups) {
        if (single || contents.has(group.docId)) continue;
        const doc = await this.call(() => this.store.getDocument(group.docId));
        if (doc) contents.set(group.docId, doc.content);
      }
    }
    const named = namedSymbol(query);
    const passages = await this.collections.markStale(
      groups.map(({ group }) => {
        const passage = toPassage(group, contents.get(group.docId), named);
        const retrieval = retrievalScores?.get(passage.chunk_id);
        return retrieval !== undefined ? { ...passage, retrieval_score: retrieval } : passage;
      }),
    );
    const { results, budget } = fitBudget(passages, maxChars, includeText);
    const note = describeBudget(budget);
    this.context.logger.info(
      {
        db: this.name,
        mode,
        top_k: topK,
        rerank: reranker !== undefined,
        results: results.length,
        chars: budget.chars,
        ms: Math.round(performance.now() - started),
      },
      "find",
    );
    return {
      results,
      mode,
      warnings,
      budget,
      ...(note ? { note } : {}),
      ...(reranker ? { reranked_by: `${reranker.provider}/${reranker.modelId}` } : {}),
    };
  }

  /** The chunks of `ids` (unknown ids left out): those `prefetched` with the search, the others read now. */
  private async chunkHitsOf(ids: string[], prefetched: Map<string, ChunkHit>): Promise<Map<string, ChunkHit>> {
    const hits = new Map<string, ChunkHit>();
    const missing: string[] = [];
    for (const id of ids) {
      const hit = prefetched.get(id);
      if (hit) hits.set(id, hit);
      else missing.push(id);
    }
    if (missing.length > 0) for (const hit of await this.call(() => this.store.chunkHits(missing))) hits.set(hit.id, hit);
    return hits;
  }

  /**
   * Candidates for a query, best first with 0–1 scores: keyword and vector search over what
   * `filter` allows, fused by mode. Warnings (keyword-only fallbacks) are added to `warnings`.
   * In vector mode every hit is a candidate, so an engine that can read the chunks with the
   * search does, into `prefetched` (one round trip less on PostgreSQL).
   */
  private async retrieve(
    query: string,
    options: { mode: SearchMode; fetch: number; filter?: Filter; exact?: boolean },
    warnings: string[],
    prefetched?: Map<string, ChunkHit>,
  ): Promise<{ chunkId: string; score: number; distance?: number }[]> {
    const { mode, filter } = options;
    let keyword: { chunkId: string; score: number }[] = [];
    let vector: VectorHit[] = [];
    if (mode !== "vector") {
      const keywordQuery = buildKeywordQuery(query);
      keyword = keywordQuery ? await this.call(() => this.store.keywordSearch(keywordQuery, { limit: options.fetch, filter })) : [];
      // A query that is one identifier puts the chunks defining it first (definitions.ts).
      const name = namedSymbol(query);
      if (keywordQuery && name !== undefined) keyword = definitionsFirst(keyword, await this.definitions(keywordQuery, name, filter));
    }
    if (mode !== "keyword") {
      const model = this.context.embedding;
      const info = await this.call(() => this.store.getEmbeddingInfo());
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
        assertSameModel(info, model, this.name);
        let queryVector: Float32Array | undefined;
        try {
          [queryVector] = await this.embed(model, [query], "query", { deadlineMs: this.context.embedDeadlineMs });
        } catch (error) {
          if (mode === "vector" || DocDBError.isInstance(error)) {
            throw DocDBError.isInstance(error)
              ? error
              : new DocDBError("EMBEDDING_UNAVAILABLE", `could not embed the query: ${describeEmbeddingFailure(error)}`, { cause: error });
          }
          warnings.push(`keyword results only: could not embed the query (${describeEmbeddingFailure(error)})`);
        }
        if (queryVector) {
          const probe = queryVector;
          const withChunks = mode === "vector" && prefetched !== undefined;
          vector = await this.call(() =>
            this.store.vectorSearch(probe, { limit: options.fetch, filter, exact: options.exact, withChunks }),
          );
          if (withChunks) for (const hit of vector) if (hit.chunk) prefetched.set(hit.chunkId, hit.chunk);
        }
      }
    }

    return rank(mode, keyword, vector);
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
    const { topK, mode, threshold } = options;
    const warnings: string[] = [];
    // Fetch more than top_k when fusion or a threshold may drop some.
    const fetch = mode === "hybrid" || threshold !== undefined ? Math.max(topK * 4, 50) : topK;
    const prefetched = new Map<string, ChunkHit>();
    const ranked = await this.retrieve(query, { mode, fetch, filter: options.filter, exact: options.exact }, warnings, prefetched);
    const kept = ranked.filter((r) => threshold === undefined || r.score >= threshold).slice(0, topK);
    const hits = await this.chunkHitsOf(
      kept.map((r) => r.chunkId),
      prefetched,
    );
    const scored: RankedHit[] = kept.flatMap((r) => {
      const hit = hits.get(r.chunkId);
      return hit ? [{ hit, score: r.score, ...(r.distance !== undefined ? { distance: r.distance } : {}) }] : [];
    });
    return { results: groupPassages(scored, false).map(({ group }) => toPassage(group, undefined)), warnings };
  }

  private requireReranker(): Reranker {
    const reranker = this.context.reranker;
    if (!reranker) {
      const why = this.context.rerankerProblem ?? "no reranker is configured";
      throw new DocDBError(
        "RERANKER_UNAVAILABLE",
        `cannot rerank: ${why}. Set DOCDB_RERANKER=local (a cross-encoder on this machine) or DOCDB_RERANKER=cohere with DOCDB_RERANKER_URL, or search without rerank`,
      );
    }
    return reranker;
  }

  /** Reranker scores (0–1) for the hits, in their order; failures are RERANKER_UNAVAILABLE. */
  private async rerank(reranker: Reranker, query: string, hits: ChunkHit[]): Promise<number[]> {
    if (hits.length === 0) return [];
    const started = performance.now();
    let scores: number[];
    try {
      scores = await reranker.rerank(
        query,
        hits.map((h) => embeddingInput({ text: h.text, heading: h.heading, title: h.title })),
      );
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      throw new DocDBError("RERANKER_UNAVAILABLE", `cannot rerank: ${message}`, { cause: error });
    }
    if (scores.length !== hits.length || scores.some((s) => typeof s !== "number" || !Number.isFinite(s))) {
      throw new DocDBError("RERANKER_UNAVAILABLE", `reranker ${reranker.provider}/${reranker.modelId} did not score every passage`);
    }
    this.context.logger.debug(
      { provider: reranker.provider, model: reranker.modelId, size: hits.length, ms: Math.round(performance.now() - started) },
      "rerank call",
    );
    return scores.map((s) => Math.min(1, Math.max(0, s)));
  }

  /**
   * A document with its text and chunk layout; NOT_FOUND for an unknown id. With a range, only
   * that part: characters `start`..`end` (end exclusive, clamped to the length) or lines
   * `line_start`..`line_end` (1-based, inclusive, clamped to the last line), with the chunks
   * that overlap it.
   */
  async getDocument(id: string, range?: DocumentRange): Promise<DocumentView> {
    validateId(id);
    const doc = await this.call(() => this.store.getDocument(id));
    if (!doc) throw new DocDBError("NOT_FOUND", `no document with id "${id}" in database "${this.name}"`);
    const content = doc.content;
    const lineOf = lineIndex(content);
    const lines = lineOf(content.length);
    const part = resolveRange(content, range);
    const chunks = (await this.call(() => this.store.getChunks(id))).filter(
      (c) => !part || (c.start < part.end && c.end > part.start) || (c.start === c.end && c.start === part.start),
    );
    return {
      doc_id: doc.id,
      key: doc.key,
      title: doc.title,
      source: doc.source,
      text: part ? content.slice(part.start, part.end) : content,
      length: content.length,
      lines,
      ...(part
        ? {
            range: {
              start: part.start,
              end: part.end,
              line_start: lineOf(part.start),
              line_end: lineOf(Math.max(part.start, part.end - 1)),
            },
          }
        : {}),
      metadata: doc.metadata,
      collection: doc.collection,
      created_at: doc.createdAt,
      updated_at: doc.updatedAt,
      chunks: chunks.map((c) => ({
        chunk_id: c.id,
        index: c.idx,
        start: c.start,
        end: c.end,
        embedded: c.embedded,
        ...(c.lineStart !== null ? { line_start: c.lineStart } : {}),
        ...(c.lineEnd !== null ? { line_end: c.lineEnd } : {}),
        ...(c.symbol !== null ? { symbol: c.symbol } : {}),
        ...(c.symbolKind !== null ? { symbol_kind: c.symbolKind } : {}),
      })),
    };
  }

  /** Deletes a document with its chunks, vectors and keyword rows; NOT_FOUND for an unknown id. */
  async deleteDocument(id: string): Promise<{ deleted_chunks: number }> {
    const started = performance.now();
    validateId(id);
    const removed = await this.call(() => this.store.deleteDocuments([id]));
    if (removed.documents === 0) {
      throw new DocDBError("NOT_FOUND", `no document with id "${id}" in database "${this.name}"; nothing was deleted`);
    }
    this.context.logger.info({ db: this.name, doc_id: id, chunks: removed.chunks, ms: Math.round(performance.now() - started) }, "delete");
    return { deleted_chunks: removed.chunks };
  }

  /** Documents in creation order, optionally of one collection or matching a filter. */
  async listDocuments(
    options: { limit?: number; offset?: number; collection?: string; filter?: Record<string, unknown> } = {},
  ): Promise<DocumentListing[]> {
    const limit = options.limit ?? 100;
    const offset = options.offset ?? 0;
    if (!Number.isInteger(limit) || limit < 1 || limit > 10_000)
      throw new DocDBError("INVALID_REQUEST", "limit must be an integer from 1 to 10000");
    if (!Number.isInteger(offset) || offset < 0) throw new DocDBError("INVALID_REQUEST", "offset must be a whole number, 0 or more");
    const filter = allOf([
      parseFilter(options.filter),
      options.collection !== undefined
        ? { op: "eq", field: { builtin: "collection" }, value: options.collection }
        : await this.withoutMemory(),
    ]);
    const rows = await this.call(() => this.store.listDocuments({ limit, offset, filter }));
    return rows.map((d) => ({
      doc_id: d.id,
      key: d.key,
      title: d.title,
      source: d.source,
      metadata: d.metadata,
      collection: d.collection,
      chunk_count: d.chunkCount,
      length: d.length,
      created_at: d.createdAt,
      updated_at: d.updatedAt,
    }));
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
    const started = performance.now();
    const { sql, maxRows, timeoutMs } = validateSql(query, options);
    const store = this.store;
    if (!store.capabilities.readOnlySql || !store.querySql) {
      throw new DocDBError(
        "INVALID_REQUEST",
        `the ${this.context.engine} engine does not offer read-only SQL; use find, list and get instead (the SQLite and PostgreSQL engines offer it)`,
      );
    }
    const answer = await this.call(() => (store.querySql as NonNullable<Store["querySql"]>).call(store, sql, { maxRows, timeoutMs }));
    this.context.logger.info(
      { db: this.name, rows: answer.rows.length, truncated: answer.truncated, ms: Math.round(performance.now() - started) },
      "sql",
    );
    return {
      columns: answer.columns,
      rows: answer.rows,
      row_count: answer.rows.length,
      truncated: answer.truncated,
      limits: { max_rows: maxRows, timeout_ms: timeoutMs },
    };
  }

  /**
   * Counts and the embedding model of this database. Documents, chunks, embedded and pending
   * count the user's documents; agent memory is counted apart in `memory` (`embedPending`
   * embeds both).
   */
  async status(): Promise<DatabaseStatus> {
    const counts = await this.call(() => this.store.counts());
    const info = await this.call(() => this.store.getEmbeddingInfo());
    const healing = this.context.healing?.();
    const memory = { documents: 0, chunks: 0, embedded: 0, pending: 0 };
    for (const collection of Object.values(MEMORY_COLLECTIONS)) {
      const c = await this.call(() => this.store.collectionCounts(collection));
      memory.documents += c.documents;
      memory.chunks += c.chunks;
      memory.embedded += c.embedded;
      memory.pending += c.pending;
    }
    return {
      name: this.name,
      engine: this.context.engine,
      location: this.location,
      documents: counts.documents - memory.documents,
      chunks: counts.chunks - memory.chunks,
      embedded: counts.embedded - memory.embedded,
      pending: counts.pending - memory.pending,
      reused_vectors: counts.reusedVectors ?? 0,
      model: info ? { provider: info.provider, model: info.model, dimensions: info.dimensions } : null,
      ...(memory.documents > 0 ? { memory } : {}),
      ...(healing ? { healing } : {}),
    };
  }

  /**
   * The approximate vector index of this database (state, size, settings), or null when the
   * engine keeps none it can show (e.g. PostgreSQL, whose indexes live in the server).
   */
  async indexStatus(): Promise<VectorIndexStatus | null> {
    const index = this.store.vectorIndex;
    return index ? this.call(() => index.status()) : null;
  }

  /**
   * Builds the approximate vector index again from the stored vectors, reporting progress;
   * `settings` given are kept for this database. INVALID_REQUEST when the engine keeps none.
   */
  async rebuildIndex(
    options: { settings?: Partial<VectorIndexSettings>; onProgress?: (progress: VectorIndexProgress) => void } = {},
  ): Promise<VectorIndexStatus> {
    const index = this.store.vectorIndex;
    if (!index) {
      throw new DocDBError("INVALID_REQUEST", `the ${this.context.engine} engine keeps no vector index docdb can rebuild`);
    }
    return this.call(() => index.rebuild(options));
  }

  /**
   * Embeds every pending chunk in batches, committing each batch, so an interrupted run
   * loses at most one batch and the next run carries on.
   */
  async embedPending(options: EmbedOptions = {}): Promise<EmbedResult> {
    return this.embedChunks(options);
  }

  /**
   * Drops every vector and embeds all chunks again with the current model (after a model
   * change). Resumable: chunks are marked pending first, so an interrupted run is finished by
   * `embedPending` or another `reembed`.
   */
  async reembed(options: EmbedOptions = {}): Promise<EmbedResult> {
    const model = this.requireModel();
    // Prove the model works before any vector is dropped: a model that cannot load must not
    // leave the database with no vectors at all.
    try {
      await this.embed(model, ["docdb"], "document", { signal: options.signal });
    } catch (error) {
      if (DocDBError.isInstance(error) || options.signal?.aborted) throw error;
      const reason = error instanceof Error ? error.message : String(error);
      throw new DocDBError("EMBEDDING_UNAVAILABLE", `cannot re-embed, the stored vectors are unchanged: ${reason}`, { cause: error });
    }
    const info = await this.call(() => this.store.getEmbeddingInfo());
    const target = { provider: model.provider, model: model.modelId, dimensions: model.dimensions };
    const sameModel = info && info.provider === model.provider && info.model === model.modelId && info.dimensions === model.dimensions;
    const inProgress = (await this.call(() => this.store.getSetting("reembed_in_progress"))) === "1";
    if (!sameModel || !inProgress) {
      // Another model, or a fresh request to re-embed everything: drop the vectors, all pending.
      await this.call(() => this.store.setEmbeddingInfo(target, { replace: true }));
    }
    await this.call(() => this.store.setSetting("reembed_in_progress", "1"));
    const result = await this.embedChunks(options);
    if (result.remaining === 0) await this.call(() => this.store.setSetting("reembed_in_progress", undefined));
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

  private async embedChunks(options: EmbedOptions): Promise<EmbedResult> {
    const model = this.requireModel();
    assertSameModel(await this.call(() => this.store.getEmbeddingInfo()), model, this.name);
    const batchSize = options.batch_size ?? Math.max(model.maxBatchSize, 32);
    if (!Number.isInteger(batchSize) || batchSize < 1) throw new DocDBError("INVALID_REQUEST", "batch_size must be a positive integer");
    const total = (await this.call(() => this.store.counts())).pending;
    let done = 0;
    let after: string | undefined;
    for (;;) {
      options.signal?.throwIfAborted();
      const cursor = after;
      const batch = await this.call(() => this.store.pendingChunks(batchSize, cursor));
      if (batch.length === 0) break;
      let vectors: Float32Array[];
      try {
        vectors = await this.embed(model, batch.map(embeddingInput), "document", {
          signal: options.signal,
          retries: options.retries,
          deadlineMs: options.deadline_ms,
        });
      } catch (error) {
        if (DocDBError.isInstance(error) || options.signal?.aborted) throw error;
        const kept = done > 0 ? ` (the ${done} embedded are kept)` : "";
        throw new DocDBError(
          "EMBEDDING_UNAVAILABLE",
          `embedding stopped after ${done} of ${total} chunks${kept}: ${describeEmbeddingFailure(error)}. To fix: ${providerHint(model, error)}; ` +
            "then run `docdb embed --pending` again (a running `docdb serve` or docdb-mcp retries by itself)",
          { cause: error },
        );
      }
      await this.recordModel(model);
      await this.call(() => this.store.writeVectors(batch.map((c, i) => ({ chunkId: c.chunkId, vector: vectors[i] as Float32Array }))));
      done += batch.length;
      after = batch[batch.length - 1]?.chunkId;
      options.onProgress?.({ done, total });
    }
    return { embedded: done, remaining: (await this.call(() => this.store.counts())).pending };
  }
}

/** Orders candidates by mode and puts every score on a 0–1 scale (see SearchResult.score). */
function rank(
  mode: SearchMode,
  keyword: { chunkId: string; score: number }[],
  vector: { chunkId: string; distance: number }[],
): { chunkId: string; score: number; distance?: number }[] {
  if (mode === "keyword") {
    const best = keyword[0]?.score ?? 0;
    return keyword.map((k) => ({ chunkId: k.chunkId, score: best > 0 ? k.score / best : 0 }));
  }
  if (mode === "vector") return vector.map((v) => ({ chunkId: v.chunkId, score: Math.max(0, 1 - v.distance), distance: v.distance }));
  const fused = new Map<string, { chunkId: string; score: number; distance?: number }>();
  keyword.forEach((k, r) => {
    fused.set(k.chunkId, { chunkId: k.chunkId, score: 1 / (RRF_K + r + 1) });
  });
  vector.forEach((v, r) => {
    const entry = fused.get(v.chunkId) ?? { chunkId: v.chunkId, score: 0 };
    entry.score += 1 / (RRF_K + r + 1);
    entry.distance = v.distance;
    fused.set(v.chunkId, entry);
  });
  return [...fused.values()].map((e) => ({ ...e, score: e.score / RRF_MAX })).sort((a, b) => b.score - a.score);
}

function rangeNumber(value: unknown, name: string, min: number): number | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "number" || !Number.isInteger(value) || value < min) {
    throw new DocDBError("INVALID_REQUEST", `${name} must be an integer of at least ${min}, got ${JSON.stringify(value)}`);
  }
  return value;
}

/** A character range [start, end) of `content` from a DocumentRange, or undefined for the whole text. */
function resolveRange(content: string, range: DocumentRange | undefined): { start: number; end: number } | undefined {
  if (range === undefined || range === null) return undefined;
  if (typeof range !== "object") throw new DocDBError("INVALID_REQUEST", "range must be an object with start/end or line_start/line_end");
  const start = rangeNumber(range.start, "start", 0);
  const end = rangeNumber(range.end, "end", 0);
  const lineStart = rangeNumber(range.line_start, "line_start", 1);
  const lineEnd = rangeNumber(range.line_end, "line_end", 1);
  const chars = start !== undefined || end !== undefined;
  const lines = lineStart !== undefined || lineEnd !== undefined;
  if (chars && lines) {
    throw new DocDBError("INVALID_REQUEST", "give a character range (start, end) or a line range (line_start, line_end), not both");
  }
  if (!chars && !lines) return undefined;
  if (chars) {
    const from = start ?? 0;
    const to = Math.min(end ?? content.length, content.length);
    if (from > content.length) {
      throw new DocDBError("INVALID_REQUEST", `start ${from} is past the end of the document (${content.length} characters)`);
    }
    if (to < from) throw new DocDBError("INVALID_REQUEST", `end (${end}) must not be before start (${from})`);
    return { start: from, end: to };
  }
  const lineStarts = [0];
  for (let i = 0; i < content.length; i++) if (content.charCodeAt(i) === 10) lineStarts.push(i + 1);
  const first = lineStart ?? 1;
  const last = Math.min(lineEnd ?? lineStarts.length, lineStarts.length);
  if (first > lineStarts.length) {
    throw new DocDBError("INVALID_REQUEST", `line_start ${first} is past the last line of the document (${lineStarts.length})`);
  }
  if (last < first) throw new DocDBError("INVALID_REQUEST", `line_end (${lineEnd}) must not be before line_start (${first})`);
  const from = lineStarts[first - 1] as number;
  // Up to the end of the last line, its newline included (the next line's start).
  const to = last < lineStarts.length ? (lineStarts[last] as number) : content.length;
  return { start: from, end: to };
}
