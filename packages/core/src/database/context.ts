// The one path from a database's code to its storage and models: the Store with its errors
// translated once, the services DocDB opened it with, and the embedding calls they share.
import type { ChunkOptions } from "@docdb/chunker";
import { EmbeddingError, type EmbeddingModel, embedMany, type Reranker } from "@docdb/embed";
import type { Store } from "@docdb/store";
import type { Analyse, AnalyseHere } from "../analysis.js";
import { DocDBError, fromStoreError } from "../errors.js";
import type { HealingStatus } from "../healer.js";
import type { Logger } from "../logger.js";
import type { ResolvedMemoryOptions } from "../memory/types.js";

/** What a database needs from the DocDB that opened it. */
export interface DatabaseServices {
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
  /** Deadline of the provider calls of one insert, query or memory operation, retries included, in ms. */
  embedDeadlineMs: number;
  /** Deadline of each batch of bulk embedding (pending chunks, imports, re-embedding), retries included, in ms. */
  embedBatchDeadlineMs?: number;
  /** Deadline of one rerank, the reranker's retries included, in ms. */
  rerankDeadlineMs?: number;
  /** Called when an insert leaves chunks pending (a running server's healer embeds them). */
  onPending?: () => void;
  /**
   * Called when the engine answers NOT_FOUND (the database was dropped, perhaps by another
   * process): the DocDB forgets this open database, so the next use opens (or creates) it afresh.
   */
  onStoreNotFound?: () => void;
  /** How long the lease on embedding pending chunks lasts unless renewed, in ms (default 60,000). */
  embedLeaseMs?: number;
  /** The background embedder's state, when one runs. */
  healing?: () => HealingStatus | undefined;
  /** Analyses the words of bulk inserts (worker threads when they pay); default in this thread. */
  analyse?: Analyse;
  /** Analyses one queued piece of `analyse`'s work in this thread (while waiting for it); false when none is queued. */
  analyseHere?: AnalyseHere;
  /** Agent memory thresholds (default: the environment's, else docdb's defaults). */
  memory?: ResolvedMemoryOptions;
}

/** Options of one embedding call. */
export interface EmbedCallOptions {
  signal?: AbortSignal;
  retries?: number;
  deadlineMs?: number;
}

/**
 * A view of `target` whose methods throw DocDBErrors instead of the engine's StoreErrors (other
 * errors pass unchanged). The `vectorIndex` control is wrapped the same way.
 */
function translateErrors<T extends object>(target: T, onNotFound?: () => void): T {
  // One wrapper per method, made on first use (searches call the store several times each).
  const wrapped = new Map<PropertyKey, { of: unknown; as: unknown }>();
  return new Proxy(target, {
    get(object, property) {
      const value: unknown = Reflect.get(object, property, object);
      if (typeof value !== "function" && !(property === "vectorIndex" && typeof value === "object" && value !== null)) return value;
      const known = wrapped.get(property);
      if (known?.of === value) return known.as;
      const translate = (error: unknown) => {
        const translated = fromStoreError(error);
        if (DocDBError.isInstance(translated) && translated.code === "NOT_FOUND") onNotFound?.();
        throw translated;
      };
      // No async frame of its own: the store's promise with a rejection handler (a find calls
      // the store a few times; each frame is a few µs on a CPU-cold path).
      const as =
        typeof value === "function"
          ? (...args: unknown[]) => {
              try {
                return Promise.resolve(value.apply(object, args)).catch(translate);
              } catch (error) {
                return Promise.reject(error).catch(translate);
              }
            }
          : translateErrors(value as object, onNotFound);
      wrapped.set(property, { of: value, as });
      return as;
    },
  });
}

/**
 * Why embedding failed, in words to put after a colon: the provider's message, or a
 * DocDBError's own. Callers that wrap it in an EMBEDDING_UNAVAILABLE error must not add the
 * code again (the CLI prints it in front already).
 */
export function describeEmbeddingFailure(error: unknown): string {
  if (DocDBError.isInstance(error)) return error.code === "EMBEDDING_UNAVAILABLE" ? error.message : `${error.code}: ${error.message}`;
  return error instanceof Error ? error.message : String(error);
}

/**
 * Everything the rooms of one database (ingest, documents, maintenance, search, collections,
 * memory) share. Built once by `Database`; none of them holds the raw Store.
 */
export class DatabaseContext {
  /** The database's storage; every method throws DocDBErrors (engine errors translated here, once). */
  readonly store: Store;
  /** Shared by every view of this context (withDeadline). */
  private readonly seen: { memory: boolean; noMemoryAt?: string } = { memory: false };
  /** When this view's embedding budget ends (performance.now() time), and how long it was. */
  private readonly budget: { endsAt: number; ms: number } | undefined;

  constructor(
    readonly name: string,
    store: Store,
    readonly services: DatabaseServices,
  ) {
    this.store = translateErrors(store, services.onStoreNotFound);
  }

  /** Agent memory has been seen in this database (see search/filters.ts withoutMemory). */
  get holdsMemory(): boolean {
    return this.seen.memory;
  }

  set holdsMemory(value: boolean) {
    this.seen.memory = value;
  }

  /** The store's change token when the database was last found to hold no memory. */
  get noMemoryAt(): string | undefined {
    return this.seen.noMemoryAt;
  }

  set noMemoryAt(token: string | undefined) {
    this.seen.noMemoryAt = token;
  }

  /**
   * A view of this context whose embedding calls share one deadline, `ms` from now (default the
   * insert deadline): an operation of several provider calls (store_qa matches the topic, may
   * create it, stores the question and compares it) answers within it. Calls once it has passed
   * fail at once, as a provider past its deadline does, so what they would embed stays pending.
   */
  withDeadline(ms: number = this.services.embedDeadlineMs): DatabaseContext {
    const view = Object.create(this) as DatabaseContext;
    Object.defineProperty(view, "budget", { value: { endsAt: performance.now() + ms, ms } });
    return view;
  }

  get logger(): Logger {
    return this.services.logger;
  }

  /** The configured embedding model, or null. */
  get embedding(): EmbeddingModel | null {
    return this.services.embedding;
  }

  /** The embedding model; EMBEDDING_UNAVAILABLE (saying why and how to configure one) when there is none. */
  requireModel(): EmbeddingModel {
    const model = this.services.embedding;
    if (!model) {
      const why = this.services.embeddingProblem ?? "no embedding provider is configured";
      throw new DocDBError(
        "EMBEDDING_UNAVAILABLE",
        `cannot embed: ${why}. Configure a provider (DOCDB_EMBEDDING=local, openai or ollama; \`docdb models\` lists local models) and run again`,
      );
    }
    return model;
  }

  /** Vectors for texts from the provider, with its calls and retries logged. */
  async embed(model: EmbeddingModel, texts: string[], kind: "query" | "document", options: EmbedCallOptions = {}): Promise<Float32Array[]> {
    const logger = this.services.logger;
    let deadlineMs = options.deadlineMs;
    let deadlineTotalMs: number | undefined;
    if (this.budget) {
      const left = Math.floor(this.budget.endsAt - performance.now());
      if (left <= 0) {
        throw new EmbeddingError(`${model.provider} did not answer within ${Math.round(this.budget.ms / 100) / 10} s`, {
          provider: model.provider,
          retryable: true,
        });
      }
      // The operation's whole deadline binds: the message names it, not what was left of it.
      if (deadlineMs === undefined || left <= deadlineMs) deadlineTotalMs = this.budget.ms;
      deadlineMs = Math.min(deadlineMs ?? left, left);
    }
    return embedMany(model, texts, {
      kind,
      signal: options.signal,
      maxRetries: options.retries,
      deadlineMs,
      deadlineTotalMs,
      onBatch: ({ size, ms }) =>
        logger.debug({ provider: model.provider, model: model.modelId, size, ms: Math.round(ms) }, "embedding call"),
      onRetry: ({ attempt, delayMs, error }) =>
        logger.warn(
          { provider: model.provider, attempt, delay_ms: Math.round(delayMs), err: error.message },
          "embedding call failed; retrying",
        ),
    });
  }

  /** The model is recorded with its first vectors, so a model that never embedded anything binds nothing. */
  async recordModel(model: EmbeddingModel): Promise<void> {
    if (await this.store.getEmbeddingInfo()) return;
    await this.store.setEmbeddingInfo({ provider: model.provider, model: model.modelId, dimensions: model.dimensions });
  }
}
