import { existsSync, mkdirSync, readdirSync } from "node:fs";
import { join, resolve } from "node:path";
import type { ChunkOptions } from "@docdb/chunker";
import type { EmbeddingModel } from "@docdb/embed";
import { SqliteStore } from "@docdb/store";
import { Database } from "./database.js";
import { DocDBError } from "./errors.js";
import { createLogger, type Logger } from "./logger.js";
import { createEmbeddingModel, type EmbeddingConfig, resolveEmbeddingConfig } from "./provider.js";
import type { DatabaseStatus } from "./types.js";
import { DEFAULT_DB_NAME, DEFAULT_MAX_TEXT_LENGTH, validateDbName } from "./validate.js";

export interface OpenDocDBOptions {
  /** Folder holding one `<name>.db` file per database. Default `DOCDB_DATA_DIR` or `./data`. */
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
}

function isModel(value: unknown): value is EmbeddingModel {
  return typeof value === "object" && value !== null && typeof (value as EmbeddingModel).embed === "function";
}

/** The entry point: a folder of databases sharing one embedding model. */
export class DocDB {
  readonly dataDir: string;
  readonly embedding: EmbeddingModel | null;
  readonly logger: Logger;
  private readonly embeddingProblem: string | undefined;
  private readonly options: OpenDocDBOptions;
  private readonly open = new Map<string, Database>();

  constructor(options: OpenDocDBOptions = {}) {
    this.options = options;
    this.dataDir = resolve(options.dataDir ?? process.env.DOCDB_DATA_DIR ?? "data");
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

  /** Absolute path of a database file (the name is validated first). */
  dbPath(name: string): string {
    return join(this.dataDir, `${validateDbName(name)}.db`);
  }

  exists(name: string): boolean {
    return existsSync(this.dbPath(name));
  }

  /** Creates the database when missing; an existing one is fine, not an error. */
  createDatabase(name: string): { success: true; db_path: string; created: boolean } {
    const created = !this.exists(name);
    this.database(name, { create: true });
    return { success: true, db_path: this.dbPath(name), created };
  }

  /**
   * An open database. With `create: false` (the default for reads) a missing database is
   * NOT_FOUND rather than an empty file appearing by accident.
   */
  database(name: string = DEFAULT_DB_NAME, options: { create?: boolean } = {}): Database {
    const path = this.dbPath(name);
    const cached = this.open.get(name);
    if (cached) return cached;
    if (!existsSync(path)) {
      if (!options.create) {
        throw new DocDBError(
          "NOT_FOUND",
          `database "${name}" does not exist in ${this.dataDir}: create it with \`docdb db create ${name}\` or insert a document into it`,
        );
      }
      mkdirSync(this.dataDir, { recursive: true });
    }
    let store: SqliteStore;
    try {
      store = SqliteStore.open(path);
    } catch (error) {
      throw new DocDBError("INTERNAL", `cannot open database "${name}" at ${path}: ${(error as Error).message}`, { cause: error });
    }
    const db = new Database(name, store, {
      embedding: this.embedding,
      embeddingProblem: this.embeddingProblem,
      logger: this.logger,
      maxTextLength: this.options.maxTextLength ?? DEFAULT_MAX_TEXT_LENGTH,
      chunkOptions: this.options.chunkOptions ?? {},
    });
    this.open.set(name, db);
    return db;
  }

  /** Names of the databases in the data folder, sorted. */
  databaseNames(): string[] {
    if (!existsSync(this.dataDir)) return [];
    return readdirSync(this.dataDir)
      .filter((f) => f.endsWith(".db"))
      .map((f) => f.slice(0, -3))
      .filter((n) => /^[A-Za-z0-9_-]{1,64}$/.test(n))
      .sort();
  }

  listDatabases(): DatabaseStatus[] {
    return this.databaseNames().map((name) => this.database(name).status());
  }

  async close(): Promise<void> {
    for (const db of this.open.values()) db.store.close();
    this.open.clear();
    await this.embedding?.close?.();
  }
}

export function openDocDB(options: OpenDocDBOptions = {}): DocDB {
  return new DocDB(options);
}
