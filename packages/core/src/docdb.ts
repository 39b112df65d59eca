import { resolve } from "node:path";
import type { ChunkOptions } from "@docdb/chunker";
import { type EmbeddingModel, LocalEmbeddingModel, type Reranker } from "@docdb/embed";
import type { StoreEngine } from "@docdb/store";
import { Access, SERVER_DB_NAME } from "./access.js";
import { AnalysisPool } from "./analysis.js";
import type { CopyOptions, CopyResult } from "./copy.js";
import { copyBetween } from "./copy-address.js";
import { Database } from "./database/database.js";
import { definedOnly, embeddingFrom, isReranker, rerankerFrom } from "./docdb-models.js";
import { createEngine, isPostgresUrl } from "./engines.js";
import { DocDBError, fromStoreError } from "./errors.js";
import { type HealerOptions, PendingHealer } from "./healer.js";
import { createLogger, type Logger, silentLogger } from "./logger.js";
import { resolveMemoryOptions } from "./memory/memory.js";
import type { MemoryOptions, ResolvedMemoryOptions } from "./memory/types.js";
import type { EmbeddingConfig } from "./provider.js";
import type { RerankerConfig } from "./reranker.js";
import { environmentSettings, type Settings } from "./settings/index.js";
import type { DatabaseStatus } from "./types.js";
import { DEFAULT_DB_NAME, DEFAULT_MAX_TEXT_LENGTH, validateDbName } from "./validate.js";

export interface OpenDocDBOptions {
  /**
   * Where the databases live: a storage engine, a `postgres://` URL (the PostgreSQL engine,
   * `@docdb/store-postgres`), or a folder of SQLite files. Default `DOCDB_STORE_URL`, else the
   * SQLite folder `dataDir`.
   */
  store?: StoreEngine | string;
  /** Folder holding one `<name>.db` SQLite file per database. Default `DOCDB_DATA_DIR` or `./data`. */
  dataDir?: string;
  /**
   * An embedding model, `null` for none (keyword search only, chunks stay pending), or a
   * config to build one (its settings override the environment's, key by key). Default: from
   * the environment: OpenAI when OPENAI_API_KEY is set, else the local model.
   */
  embedding?: EmbeddingModel | EmbeddingConfig | null;
  /**
   * The reranker `find` uses when asked to (`rerank: true`): a reranker, `null` for none, or a
   * config (over the environment's DOCDB_RERANKER* settings, key by key). Default: from the
   * environment; a local cross-encoder unless DOCDB_RERANKER says otherwise. Nothing is loaded
   * until the first reranked search.
   */
  reranker?: Reranker | RerankerConfig | null;
  /**
   * Where docdb logs (any pino logger, or `createLogger`). Default: nothing at all, unless
   * `DOCDB_LOG_LEVEL` is set, which logs JSON lines at that level on stderr.
   */
  logger?: Logger;
  /** Longest document accepted, in characters. Default 100,000. */
  maxTextLength?: number;
  chunkOptions?: ChunkOptions;
  /** Agent memory thresholds (0–1); default from `DOCDB_MEMORY_*` environment variables, else docdb's. */
  memory?: MemoryOptions;
  /**
   * Deadline of the provider calls of one insert or query, retries included, in ms: past it an
   * insert answers with its chunks pending. Default env DOCDB_EMBED_DEADLINE_MS, else 15,000.
   */
  embedDeadlineMs?: number;
  /**
   * Worker threads that analyse the words of bulk inserts (`insertDocuments`, imports) while the
   * main thread writes (the main thread analyses too, whenever it would wait for them): 0
   * analyses in the main thread only. Default env DOCDB_ANALYSIS_WORKERS, else one per core but
   * one (at least 1, at most 4). The terms are the same either way.
   */
  analysisWorkers?: number;
  /**
   * What the environment says (the `DOCDB_*` variables and their kin): the defaults of the
   * options above. Default: this process's environment (see `environmentSettings`).
   */
  settings?: Settings;
}

export { DEFAULT_EMBED_DEADLINE_MS } from "./settings/index.js";
export { isPostgresUrl };

/**
 * Workers start on a batch of this many chunks (starting them costs ~0.1 s; small batches stay in
 * the main thread): 100 documents of two chunks each (abstracts, Q&A passages) are enough.
 */
const ANALYSIS_POOL_MIN_CHUNKS = 128;

function isEngine(value: unknown): value is StoreEngine {
  return typeof value === "object" && value !== null && typeof (value as StoreEngine).openDatabase === "function";
}

/** The entry point: named databases in one store, sharing one embedding model. */
export class DocDB {
  readonly embedding: EmbeddingModel | null;
  /** The reranker for `rerank: true` searches; null when reranking is off or cannot be set up. */
  readonly reranker: Reranker | null;
  readonly logger: Logger;
  private readonly embeddingProblem: string | undefined;
  private readonly rerankerProblem: string | undefined;
  private readonly memoryOptions: ResolvedMemoryOptions;
  private readonly options: OpenDocDBOptions;
  private readonly settings: Settings;
  private readonly open = new Map<string, Promise<Database>>();
  private enginePromise: Promise<StoreEngine> | undefined;
  private healer: PendingHealer | undefined;
  private accessRoom: Access | undefined;
  private readonly embedDeadlineMs: number;
  /** Deadlines in ms: one insert's or query's embedding, one bulk batch, one rerank, a client's sampling answer. */
  readonly deadlines: Readonly<{ embedMs: number; embedBatchMs: number; rerankMs: number; samplingMs: number }>;
  private readonly analysis: AnalysisPool;

  constructor(options: OpenDocDBOptions = {}) {
    this.options = options;
    const settings = options.settings ?? environmentSettings();
    this.settings = settings;
    this.memoryOptions = resolveMemoryOptions({ ...settings.memory, ...definedOnly(options.memory ?? {}) });
    // A library is quiet: nothing on stderr unless given a logger or DOCDB_LOG_LEVEL.
    this.logger = options.logger ?? (settings.logLevel ? createLogger({ level: settings.logLevel }) : silentLogger());
    ({ embedding: this.embedding, problem: this.embeddingProblem } = embeddingFrom(options.embedding, settings));
    ({ reranker: this.reranker, problem: this.rerankerProblem } = rerankerFrom(options.reranker, settings));
    this.analysis = new AnalysisPool({
      size: options.analysisWorkers ?? settings.analysisWorkers ?? AnalysisPool.defaultSize(),
      minChunks: ANALYSIS_POOL_MIN_CHUNKS,
      logger: this.logger,
    });
    this.embedDeadlineMs = options.embedDeadlineMs ?? settings.embedDeadlineMs;
    this.deadlines = Object.freeze({
      embedMs: this.embedDeadlineMs,
      embedBatchMs: settings.embedBatchDeadlineMs,
      rerankMs: settings.rerankDeadlineMs,
      samplingMs: settings.samplingTimeoutMs,
    });
  }

  /**
   * How the current embedding model stands, without loading it: `ready` false with a `problem`
   * when it cannot be used as configured (a local model that is not on disk and cannot be
   * downloaded — its hub is asked with one quick HEAD request — or a provider that could not be
   * set up), `note` for what happens on first use.
   */
  async embeddingState(): Promise<{ model: string | null; ready: boolean; problem?: string; note?: string }> {
    const model = this.embedding;
    if (!model) return { model: null, ready: false, ...(this.embeddingProblem ? { problem: this.embeddingProblem } : {}) };
    const name = `${model.provider}/${model.modelId} (${model.dimensions})`;
    if (model instanceof LocalEmbeddingModel) return { model: name, ...(await model.probe()) };
    return { model: name, ready: true };
  }

  /**
   * Starts embedding pending chunks in the background (for servers): now, whenever an insert
   * leaves chunks pending, and periodically, backing off while the provider fails. Its state
   * shows in every database's status as \`healing\`. Stopped by \`close\`.
   */
  startHealing(options: HealerOptions = {}): PendingHealer {
    this.healer ??= new PendingHealer(
      {
        logger: this.logger,
        hasModel: () => this.embedding !== null,
        databaseNames: () => this.databaseNames(),
        // Agent memory's pending chunks too: status counts them apart from the documents.
        pending: async (name) => {
          const status = await (await this.database(name)).status();
          return status.pending + (status.memory?.pending ?? 0);
        },
        embedPending: async (name, embedOptions) => (await this.database(name)).embedPending({ ...embedOptions, when_leased: "skip" }),
      },
      {
        deadlineMs: this.embedDeadlineMs,
        leaseMs: this.settings.heal.leaseMs,
        ...options,
        minDelayMs: options.minDelayMs ?? this.settings.heal.minDelayMs,
        maxDelayMs: options.maxDelayMs ?? this.settings.heal.maxDelayMs,
      },
    );
    return this.healer;
  }

  /** The storage engine (created on first use). */
  engine(): Promise<StoreEngine> {
    this.enginePromise ??= (async () => {
      const { store } = this.options;
      if (isEngine(store)) return store;
      const dataDir = this.options.dataDir ?? this.settings.dataDir ?? "data";
      if (typeof dataDir !== "string" || dataDir.trim() === "") {
        throw new DocDBError("INVALID_REQUEST", "the data folder is empty: give a folder (--data-dir ./data) or leave it unset for ./data");
      }
      const location = store ?? this.settings.store;
      try {
        return await createEngine(location ?? resolve(dataDir), { sqlRole: this.settings.postgresSqlRole });
      } catch (error) {
        throw fromStoreError(error);
      }
    })();
    return this.enginePromise;
  }

  /** Where the databases live (a folder, or a PostgreSQL host and database; never a password). */
  async location(): Promise<string> {
    return (await this.engine()).location;
  }

  /** True when a database of that name exists. */
  async exists(name: string): Promise<boolean> {
    const engine = await this.engine();
    return engine.databaseExists(validateDbName(name));
  }

  /** Creates the database when missing; an existing one is fine, not an error. */
  async createDatabase(name: string): Promise<{ success: true; location: string; created: boolean }> {
    const created = !(await this.exists(name));
    if (created) this.open.delete(name); // a handle kept from before another process dropped it
    const db = await this.database(name, { create: true });
    return { success: true, location: db.location, created };
  }

  /**
   * An open database. With `create: false` (the default for reads) a missing database is
   * NOT_FOUND rather than an empty one appearing by accident.
   */
  async database(name: string = DEFAULT_DB_NAME, options: { create?: boolean } = {}): Promise<Database> {
    validateDbName(name);
    const cached = this.open.get(name);
    if (cached) {
      const db = await cached.catch(() => undefined);
      if (db) return db;
    }
    const opening = this.openDatabase(name, options.create === true);
    this.open.set(name, opening);
    opening.catch(() => this.open.delete(name));
    return opening;
  }

  private async openDatabase(name: string, create: boolean): Promise<Database> {
    const engine = await this.engine();
    // Names differing only in case are one file on case-insensitive file systems (macOS, Windows).
    const names = await engine.listDatabases().catch((error: unknown) => {
      throw fromStoreError(error);
    });
    const twin = names.find((other) => other !== name && other.toLowerCase() === name.toLowerCase());
    if (twin !== undefined && !names.includes(name)) {
      throw new DocDBError(
        create ? "CONFLICT" : "NOT_FOUND",
        `database "${twin}" exists, and names that differ only in case are one file on some systems: use "${twin}", or choose another name`,
      );
    }
    let store: Awaited<ReturnType<StoreEngine["openDatabase"]>>;
    try {
      store = await engine.openDatabase(name, { create });
    } catch (error) {
      const converted = fromStoreError(error);
      if (DocDBError.isInstance(converted) && converted.code === "NOT_FOUND") {
        // `details.database` lets a program say how it creates one (the CLI's --create, MCP's create_database).
        throw new DocDBError(
          "NOT_FOUND",
          `database "${name}" does not exist in ${engine.location}: create it with \`docdb db create ${name}\` (createDatabase in code)`,
          { details: { database: name, location: engine.location } },
        );
      }
      throw converted;
    }
    const database: Database = new Database(name, store, {
      embedding: this.embedding,
      embeddingProblem: this.embeddingProblem,
      reranker: this.reranker,
      rerankerProblem: this.rerankerProblem,
      logger: this.logger,
      maxTextLength: this.options.maxTextLength ?? DEFAULT_MAX_TEXT_LENGTH,
      chunkOptions: this.options.chunkOptions ?? {},
      engine: engine.kind,
      embedDeadlineMs: this.embedDeadlineMs,
      embedBatchDeadlineMs: this.deadlines.embedBatchMs,
      rerankDeadlineMs: this.deadlines.rerankMs,
      embedLeaseMs: this.settings.heal.leaseMs,
      // Dropped by another process: forget this handle, so the next use opens (or creates) it afresh.
      onStoreNotFound: () =>
        void this.open.get(name)?.then(
          (db) => db === database && this.open.delete(name),
          () => undefined,
        ),
      onPending: () => this.healer?.kick(),
      healing: () => this.healer?.status(),
      analyse: this.analysis.analyse,
      analyseHere: this.analysis.analyseHere,
      memory: this.memoryOptions,
    });
    return database;
  }

  /** Deletes a database and everything in it; false when there was none. */
  async dropDatabase(name: string): Promise<boolean> {
    validateDbName(name);
    const opening = this.open.get(name);
    this.open.delete(name);
    (await opening?.catch(() => undefined))?.collections.close();
    const engine = await this.engine();
    try {
      return await engine.dropDatabase(name);
    } catch (error) {
      throw fromStoreError(error);
    }
  }

  /** Scoped tokens and the audit trail of this location (in its reserved server database). */
  access(): Access {
    this.accessRoom ??= new Access(async () => (await this.engine()).openDatabase(SERVER_DB_NAME, { create: true }));
    return this.accessRoom;
  }

  /** Names of the databases, sorted (never the reserved server database). */
  async databaseNames(): Promise<string[]> {
    const engine = await this.engine();
    try {
      return (await engine.listDatabases()).filter((name) => name.toLowerCase() !== SERVER_DB_NAME);
    } catch (error) {
      throw fromStoreError(error);
    }
  }

  /** Status of every database. */
  async listDatabases(): Promise<DatabaseStatus[]> {
    const statuses: DatabaseStatus[] = [];
    for (const name of await this.databaseNames()) statuses.push(await (await this.database(name)).status());
    return statuses;
  }

  /**
   * Copies a database to another, on this store or another engine. Addresses: a bare NAME (this
   * store), `sqlite:NAME` (in the data folder), `sqlite:/path/to/NAME.db`, or
   * `postgres://user@host/db#NAME` (NAME defaults to "vectors"). See `copyStore`.
   */
  copyDatabase(from: string, to: string, options: CopyOptions = {}): Promise<CopyResult> {
    return copyBetween(
      {
        engine: () => this.engine(),
        dataDir: resolve(this.options.dataDir ?? this.settings.dataDir ?? "data"),
        sqlRole: this.settings.postgresSqlRole,
      },
      from,
      to,
      options,
    );
  }

  /** Closes every open database and the embedding model. */
  async close(): Promise<void> {
    await this.healer?.close();
    this.healer = undefined;
    for (const opening of this.open.values()) {
      const db = await opening.catch(() => undefined);
      db?.collections.close();
    }
    this.open.clear();
    if (this.enginePromise) {
      const engine = await this.enginePromise.catch(() => undefined);
      if (engine && !isEngine(this.options.store)) await engine.close();
    }
    this.enginePromise = undefined;
    this.accessRoom = undefined;
    await this.embedding?.close?.();
    if (!isReranker(this.options.reranker)) await this.reranker?.close?.();
    await this.analysis.close();
  }
}

/** Opens docdb (nothing is read until the first call that needs storage). */
export function openDocDB(options: OpenDocDBOptions = {}): DocDB {
  return new DocDB(options);
}
