import { existsSync, mkdirSync, readdirSync, rmSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { type Store, type StoreEngine, StoreError, type VectorIndexSettings } from "@docdb/store";
import type { WalCheckpointOptions } from "./checkpointer.js";
import type { KeywordIndexOptions } from "./keyword-live/live.js";
import { SQLITE_CAPABILITIES } from "./meta.js";
import { SqliteStore } from "./store.js";
import { DEFAULT_BUSY_TIMEOUT_MS } from "./write-lock.js";

export interface SqliteEngineOptions {
  /** Folder holding one `<name>.db` file per database. */
  dataDir: string;
  /** How long a write waits for another process's write lock before CONFLICT. Default 60 s. */
  busyTimeoutMs?: number;
  /** Migrations folder; defaults to the one shipped with the package. */
  migrationsDir?: string;
  /**
   * Defaults of the approximate vector index (HNSW beside each database file): threshold,
   * connectivity, expansionAdd, expansionSearch, quantization. A database's own settings
   * (`docdb index rebuild --threshold …`) take precedence.
   */
  vectorIndex?: Partial<VectorIndexSettings>;
  /** The keyword index beside each database file: `threshold`, chunks below which FTS5 answers alone (default 5,000). */
  keywordIndex?: KeywordIndexOptions;
  /** The background WAL checkpointer of each database: `afterPages` (default 1,000; 0 leaves checkpoints to SQLite). */
  walCheckpoint?: WalCheckpointOptions;
}

const FILE_NAME = /^([A-Za-z0-9_-]{1,64})\.db$/;

/** The embedded default: a folder of SQLite files, one per database; nothing to start. */
export class SqliteEngine implements StoreEngine {
  readonly kind = "sqlite";
  readonly capabilities = SQLITE_CAPABILITIES;
  readonly location: string;
  private readonly open = new Map<string, SqliteStore>();

  constructor(private readonly options: SqliteEngineOptions) {
    if (typeof options.dataDir !== "string" || options.dataDir.trim() === "") {
      throw new StoreError("INVALID_REQUEST", "the data folder must be a non-empty path");
    }
    this.location = resolve(options.dataDir);
  }

  /** The file of a database. */
  path(name: string): string {
    if (!/^[A-Za-z0-9_-]{1,64}$/.test(name)) throw new StoreError("INVALID_REQUEST", `invalid database name "${name}"`);
    return join(this.location, `${name}.db`);
  }

  async listDatabases(): Promise<string[]> {
    if (!existsSync(this.location)) return [];
    return readdirSync(this.location)
      .flatMap((f) => {
        const match = FILE_NAME.exec(f);
        return match ? [match[1] as string] : [];
      })
      .sort();
  }

  async databaseExists(name: string): Promise<boolean> {
    return existsSync(this.path(name));
  }

  async openDatabase(name: string, options: { create?: boolean } = {}): Promise<Store> {
    const path = this.path(name);
    const cached = this.open.get(name);
    if (cached) return cached;
    if (!existsSync(path)) {
      if (!options.create) throw new StoreError("NOT_FOUND", `database "${name}" does not exist in ${this.location}`);
      mkdirSync(this.location, { recursive: true });
    } else if (!statSync(path).isFile()) {
      throw new StoreError("INVALID_REQUEST", `${path} is not a database file`);
    }
    let store: SqliteStore;
    try {
      store = await SqliteStore.open(name, path, {
        busyTimeoutMs: this.options.busyTimeoutMs ?? DEFAULT_BUSY_TIMEOUT_MS,
        migrationsDir: this.options.migrationsDir,
        vectorIndex: this.options.vectorIndex,
        keywordIndex: this.options.keywordIndex,
        walCheckpoint: this.options.walCheckpoint,
      });
    } catch (error) {
      if (StoreError.isInstance(error)) throw error;
      throw new StoreError("INTERNAL", `cannot open database "${name}" at ${path}: ${(error as Error).message}`, { cause: error });
    }
    this.open.set(name, store);
    return store;
  }

  async dropDatabase(name: string): Promise<boolean> {
    const path = this.path(name);
    await this.open.get(name)?.close();
    this.open.delete(name);
    if (!existsSync(path)) return false;
    for (const suffix of ["", "-wal", "-shm", "-journal", ".hnsw", ".hnsw.json", ".keywords", ".keywords.delta"])
      rmSync(`${path}${suffix}`, { force: true });
    // Index files set aside as damaged (hnsw/verify.ts) go with their database.
    const aside = [`${name}.db.hnsw.`, `${name}.db.keywords.`];
    for (const file of readdirSync(this.location)) {
      if (aside.some((a) => file.startsWith(a)) && file.includes(".corrupt-")) {
        rmSync(join(this.location, file), { recursive: true, force: true });
      }
    }
    return true;
  }

  async close(): Promise<void> {
    for (const store of this.open.values()) await store.close();
    this.open.clear();
  }
}

/** A SQLite engine over a data folder. */
export function createSqliteEngine(options: SqliteEngineOptions): SqliteEngine {
  return new SqliteEngine(options);
}
