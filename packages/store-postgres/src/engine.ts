// The PostgreSQL StoreEngine: each docdb database is a schema of one server database; lists,
// opens (migrating first, see migrate.ts), creates and drops them.
import { createHash } from "node:crypto";
import { type EngineCapabilities, type Store, type StoreEngine, StoreError } from "@docdb/store";
import type pg from "pg";
import { Database, quoteIdent, type ServerInfo } from "./db.js";
import {
  findMigrationsDir,
  LOCK_CLASS,
  loadMigrations,
  loadServerInfo,
  type Migration,
  migrateSchema,
  SCHEMA_COMMENT,
  schemaExists,
} from "./migrate.js";
import { refreshKeywordIndex } from "./reindex.js";
import { PostgresStore } from "./store.js";

export interface PostgresEngineOptions {
  /** `postgres://user:password@host:5432/database` (any form the `pg` driver accepts). */
  url: string;
  /** Connection pool size (default 10). */
  pool?: { max?: number; connectionTimeoutMillis?: number; idleTimeoutMillis?: number };
  /** TLS options handed to `pg` (default: whatever the URL says). */
  ssl?: pg.PoolConfig["ssl"];
  /** Prefix of the schema of every docdb database (default `docdb_`): lower-case letters, digits, `_`. */
  schemaPrefix?: string;
  /** Folder of the `NNNN_name.sql` migrations (default: the ones shipped with the package). */
  migrationsDir?: string;
  /**
   * A role read-only SQL (`Store.querySql`) runs as (`SET LOCAL ROLE`), for a server where docdb
   * connects as a role that may write: give it SELECT on the views only (docs: "SQL on PostgreSQL").
   * The connecting role must be a member of it.
   */
  sqlRole?: string;
}

/** Database names as core accepts them. */
const DATABASE_NAME = /^[A-Za-z0-9_-]{1,64}$/;
/** PostgreSQL identifiers are at most 63 bytes. */
const MAX_IDENTIFIER = 63;

/**
 * The schema of a docdb database: the prefix and the lower-cased name (names are
 * case-insensitively unique); a name too long for a PostgreSQL identifier keeps its first
 * characters and gets a hash of the whole name.
 */
export function schemaNameFor(name: string, prefix = "docdb_"): string {
  const lower = name.toLowerCase();
  const plain = prefix + lower;
  if (Buffer.byteLength(plain) <= MAX_IDENTIFIER) return plain;
  const hash = createHash("sha256").update(lower).digest("hex").slice(0, 16);
  return `${prefix}${lower.slice(0, MAX_IDENTIFIER - prefix.length - hash.length - 1)}_${hash}`;
}

export class PostgresEngine implements StoreEngine {
  readonly kind = "postgres";
  readonly location: string;
  readonly capabilities: EngineCapabilities = {
    approximateVectorSearch: true,
    concurrentWriters: true,
    // pgvector's `vector` type; HNSW indexes it up to 2,000 dimensions (larger ones scan exactly).
    maxDimensions: 16_000,
    readOnlySql: true,
  };
  readonly db: Database;
  readonly prefix: string;
  readonly sqlRole: string | undefined;
  private readonly migrationsDir: string | undefined;
  private migrations: Migration[] | undefined;
  private serverInfo: Promise<ServerInfo> | undefined;
  private readonly stores = new Set<PostgresStore>();
  private closed = false;

  constructor(options: PostgresEngineOptions) {
    const prefix = options.schemaPrefix ?? "docdb_";
    if (!/^[a-z_][a-z0-9_]{0,19}$/.test(prefix)) {
      throw new StoreError("INVALID_REQUEST", "schemaPrefix must be 1-20 lower-case letters, digits or _ (not starting with a digit)");
    }
    this.prefix = prefix;
    this.sqlRole = options.sqlRole || undefined;
    this.migrationsDir = options.migrationsDir;
    this.db = new Database(options.url, { ...options.pool, ssl: options.ssl });
    const { host, port, database, user } = this.db.address;
    this.location = `postgres://${user ? `${encodeURIComponent(user)}@` : ""}${host}:${port}/${database}`;
  }

  private checkOpen(): void {
    if (this.closed) throw new StoreError("INVALID_REQUEST", "this PostgreSQL engine is closed");
  }

  private checkName(name: string): void {
    if (typeof name !== "string" || !DATABASE_NAME.test(name)) {
      throw new StoreError("INVALID_REQUEST", `invalid database name ${JSON.stringify(name)}: use 1-64 letters, digits, _ or -`);
    }
  }

  /** The pgvector extension (created when missing, under an advisory lock), read once. */
  info(): Promise<ServerInfo> {
    this.serverInfo ??= loadServerInfo(this.db).catch((error: unknown) => {
      this.serverInfo = undefined;
      throw error;
    });
    return this.serverInfo;
  }

  private loadedMigrations(): Migration[] {
    this.migrations ??= loadMigrations(this.migrationsDir ?? findMigrationsDir());
    return this.migrations;
  }

  async listDatabases(): Promise<string[]> {
    this.checkOpen();
    const rows = await this.db.read<{ schema: string; comment: string | null }>(
      `SELECT n.nspname AS schema, obj_description(n.oid, 'pg_namespace') AS comment FROM pg_namespace n
       WHERE starts_with(n.nspname, $1::text)
         AND EXISTS (SELECT 1 FROM pg_class c WHERE c.relnamespace = n.oid AND c.relname = 'schema_migrations')`,
      [this.prefix],
    );
    const names = rows.map((r) =>
      r.comment?.startsWith(SCHEMA_COMMENT) ? r.comment.slice(SCHEMA_COMMENT.length) : r.schema.slice(this.prefix.length),
    );
    return names.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  }

  async databaseExists(name: string): Promise<boolean> {
    this.checkOpen();
    this.checkName(name);
    const schema = schemaNameFor(name, this.prefix);
    const rows = await this.db.read(
      `SELECT 1 FROM pg_namespace n WHERE n.nspname = $1
         AND EXISTS (SELECT 1 FROM pg_class c WHERE c.relnamespace = n.oid AND c.relname = 'schema_migrations')`,
      [schema],
    );
    return rows.length > 0;
  }

  async openDatabase(name: string, options: { create?: boolean } = {}): Promise<Store> {
    this.checkOpen();
    this.checkName(name);
    const info = await this.info();
    const schema = schemaNameFor(name, this.prefix);
    const migrations = this.loadedMigrations();
    const q = quoteIdent(schema);
    await migrateSchema(this.db, {
      name,
      schema,
      info,
      migrations,
      create: options.create,
      notFound: () => new StoreError("NOT_FOUND", `no database named ${JSON.stringify(name)} at ${this.location}`),
    });
    await refreshKeywordIndex(this.db, q);
    const store = new PostgresStore(this, name, schema, info, () => this.stores.delete(store));
    this.stores.add(store);
    return store;
  }

  async dropDatabase(name: string): Promise<boolean> {
    this.checkOpen();
    this.checkName(name);
    const schema = schemaNameFor(name, this.prefix);
    return this.db.transaction(async (client) => {
      await client.query("SELECT pg_advisory_xact_lock($1, hashtext($2))", [LOCK_CLASS, schema]);
      if (!(await schemaExists(client, schema))) return false;
      await client.query(`DROP SCHEMA ${quoteIdent(schema)} CASCADE`);
      return true;
    });
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const store of [...this.stores]) await store.close();
    await this.db.end();
  }
}

/** A StoreEngine keeping docdb databases as schemas of one PostgreSQL database (pgvector required). */
export function createPostgresEngine(options: PostgresEngineOptions): StoreEngine {
  return new PostgresEngine(options);
}
