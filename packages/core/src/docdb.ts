import { resolve } from "node:path";
import type { ChunkOptions } from "@docdb/chunker";
import type { EmbeddingModel } from "@docdb/embed";
import type { StoreEngine } from "@docdb/store";
import { createSqliteEngine } from "@docdb/store-sqlite";
import { Database } from "./database.js";
import { DocDBError, fromStoreError } from "./errors.js";
import { createLogger, type Logger } from "./logger.js";
import { resolveMemoryOptions } from "./memory/memory.js";
import type { MemoryOptions, ResolvedMemoryOptions } from "./memory/types.js";
import { createEmbeddingModel, type EmbeddingConfig, resolveEmbeddingConfig } from "./provider.js";
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
  logger?: Logger;
  /** Longest document accepted, in characters. Default 100,000. */
  maxTextLength?: number;
  chunkOptions?: ChunkOptions;
  /** Agent memory thresholds (0–1); default from `DOCDB_MEMORY_*` environment variables, else docdb's. */
  memory?: MemoryOptions;
}

function isModel(value: unknown): value is EmbeddingModel {
  return typeof value === "object" && value !== null && typeof (value as EmbeddingModel).embed === "function";
}

function isEngine(value: unknown): value is StoreEngine {
  return typeof value === "object" && value !== null && typeof (value as StoreEngine).openDatabase === "function";
}

/** True for a PostgreSQL connection URL. */
export function isPostgresUrl(value: string): boolean {
  return /^postgres(ql)?:\/\//i.test(value);
}

async function createEngine(store: string | undefined, dataDir: string): Promise<StoreEngine> {
  if (store !== undefined && isPostgresUrl(store)) {
    // Loaded only when asked for, so SQLite users never load the PostgreSQL driver.
    let module: { createPostgresEngine: (options: { url: string }) => StoreEngine };
    try {
      module = (await import("@docdb/store-postgres" as string)) as typeof module;
    } catch (error) {
      throw new DocDBError("INTERNAL", `the PostgreSQL engine (@docdb/store-postgres) is not installed: ${(error as Error).message}`, {
        cause: error,
      });
    }
    return module.createPostgresEngine({ url: store });
  }
  return createSqliteEngine({ dataDir: store ?? dataDir });
}

/** The entry point: named databases in one store, sharing one embedding model. */
export class DocDB {
  readonly embedding: EmbeddingModel | null;
  readonly logger: Logger;
  private readonly embeddingProblem: string | undefined;
  private readonly memoryOptions: ResolvedMemoryOptions;
  private readonly options: OpenDocDBOptions;
  private readonly open = new Map<string, Promise<Database>>();
  private enginePromise: Promise<StoreEngine> | undefined;

  constructor(options: OpenDocDBOptions = {}) {
    this.options = options;
    this.memoryOptions = resolveMemoryOptions(options.memory);
    this.logger = options.logger ?? createLogger();
    let embedding: EmbeddingModel | null = null;
    let problem: string | undefined;
    if (isModel(options.embedding)) embedding = options.embedding;
    else if (options.embedding !== null) {
      try {
        embedding = createEmbeddingModel(resolveEmbeddingConfig(options.embedding ?? {}));
      } catch (error) {
        if (!DocDBError.isInstance(error) || error.code !== "EMBEDDING_UNAVAILABLE") throw error;
        problem = error.message;
      }
    }
    this.embedding = embedding;
    this.embeddingProblem = problem;
  }

  /** The storage engine (created on first use). */
  engine(): Promise<StoreEngine> {
    this.enginePromise ??= (async () => {
      const { store } = this.options;
      if (isEngine(store)) return store;
      const dataDir = this.options.dataDir ?? process.env.DOCDB_DATA_DIR ?? "data";
      if (typeof dataDir !== "string" || dataDir.trim() === "") {
        throw new DocDBError("INVALID_REQUEST", "the data folder is empty: give a folder (--data-dir ./data) or leave it unset for ./data");
      }
      const location = store ?? (process.env.DOCDB_STORE_URL || undefined);
      try {
        return await createEngine(location, resolve(dataDir));
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
    let store: Awaited<ReturnType<StoreEngine["openDatabase"]>>;
    try {
      store = await engine.openDatabase(name, { create });
    } catch (error) {
      const converted = fromStoreError(error);
      if (DocDBError.isInstance(converted) && converted.code === "NOT_FOUND") {
        throw new DocDBError(
          "NOT_FOUND",
          `database "${name}" does not exist in ${engine.location}: create it with \`docdb db create ${name}\` or insert a document into it`,
        );
      }
      throw converted;
    }
    return new Database(name, store, {
      embedding: this.embedding,
      embeddingProblem: this.embeddingProblem,
      logger: this.logger,
      maxTextLength: this.options.maxTextLength ?? DEFAULT_MAX_TEXT_LENGTH,
      chunkOptions: this.options.chunkOptions ?? {},
      engine: engine.kind,
      memory: this.memoryOptions,
    });
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

  /** Names of the databases, sorted. */
  async databaseNames(): Promise<string[]> {
    const engine = await this.engine();
    try {
      return await engine.listDatabases();
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

  /** Closes every open database and the embedding model. */
  async close(): Promise<void> {
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
    await this.embedding?.close?.();
  }
}

/** Opens docdb (nothing is read until the first call that needs storage). */
export function openDocDB(options: OpenDocDBOptions = {}): DocDB {
  return new DocDB(options);
}
