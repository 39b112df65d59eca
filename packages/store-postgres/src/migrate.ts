// Preparing a database's schema: the pgvector extension, and the package's `migrations/NNNN_name.sql`
// applied in order under an advisory lock, each recorded in the schema's `schema_migrations`.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { StoreError } from "@docdb/store";
import { atLeast, type Database, type Queryable, quoteIdent, quoteLiteral, type ServerInfo } from "./db.js";

/** First key of the advisory locks docdb takes (the second is the schema's hash): "docd". */
export const LOCK_CLASS = 0x646f6364;
/** The start of a docdb schema's comment; the database's name as created follows it. */
export const SCHEMA_COMMENT = "docdb database: ";

/**
 * The migrations ship in the package's `migrations/` folder, one level above this file both in
 * `src/` and in the built `dist/index.js`.
 */
export function findMigrationsDir(): string {
  const dir = fileURLToPath(new URL("../migrations/", import.meta.url));
  if (existsSync(join(dir, "0001_init.sql"))) return dir;
  throw new StoreError("INTERNAL", `docdb PostgreSQL migrations not found (looked in ${dir})`);
}

export interface Migration {
  version: string;
  sql: string;
}

export function loadMigrations(dir: string): Migration[] {
  return readdirSync(dir)
    .filter((name) => /^\d{4}_[\w-]+\.sql$/.test(name))
    .sort()
    .map((file) => ({ version: file.replace(/\.sql$/, ""), sql: readFileSync(join(dir, file), "utf8") }));
}

/** The pgvector extension (created when missing, under an advisory lock): its schema and version. */
export async function loadServerInfo(db: Database): Promise<ServerInfo> {
  const find = async (client: Queryable) => {
    const { rows } = await client.query<{ schema: string; version: string }>(
      `SELECT n.nspname AS schema, e.extversion AS version FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace WHERE e.extname = 'vector'`,
    );
    return rows[0];
  };
  const row = await db.transaction(async (client) => {
    const found = await find(client);
    if (found) return found;
    await client.query("SELECT pg_advisory_xact_lock($1, 0)", [LOCK_CLASS]);
    try {
      await client.query("CREATE EXTENSION IF NOT EXISTS vector");
    } catch (error) {
      throw new StoreError(
        "UNAVAILABLE",
        `PostgreSQL at ${db.where} has no pgvector extension and it could not be created (install pgvector 0.5 or later, or run CREATE EXTENSION vector as a superuser): ${(error as Error).message}`,
      );
    }
    return find(client);
  });
  if (!row) throw new StoreError("UNAVAILABLE", `pgvector is not available on PostgreSQL at ${db.where}`);
  const vectorVersion = row.version.split(".").map((p) => Number.parseInt(p, 10) || 0);
  if (!atLeast(vectorVersion, [0, 5, 0])) {
    throw new StoreError("UNAVAILABLE", `PostgreSQL at ${db.where} has pgvector ${row.version}; docdb needs 0.5 or later`);
  }
  return { vectorSchema: row.schema, vectorVersion };
}

/** True when the schema exists and is a docdb database (holds `schema_migrations`). */
export async function schemaExists(client: Queryable, schema: string): Promise<boolean> {
  const { rows } = await client.query(
    `SELECT 1 FROM pg_namespace n WHERE n.nspname = $1
       AND EXISTS (SELECT 1 FROM pg_class c WHERE c.relnamespace = n.oid AND c.relname = 'schema_migrations')`,
    [schema],
  );
  return rows.length > 0;
}

/**
 * Brings the schema of database `name` up to date in one transaction; a missing one is created
 * when `create` is set, and otherwise `notFound()` is thrown.
 */
export async function migrateSchema(
  db: Database,
  target: {
    name: string;
    schema: string;
    info: ServerInfo;
    migrations: Migration[];
    create: boolean | undefined;
    notFound: () => StoreError;
  },
): Promise<void> {
  const { name, schema, info, migrations } = target;
  const q = quoteIdent(schema);
  await db.transaction(async (client) => {
    // Quick path: everything applied already (no lock needed to read).
    const exists = await schemaExists(client, schema);
    if (exists) {
      const { rows } = await client.query<{ version: string }>(`SELECT version FROM ${q}.schema_migrations`);
      const applied = new Set(rows.map((r) => r.version));
      if (migrations.every((m) => applied.has(m.version))) return;
    } else if (!target.create) {
      throw target.notFound();
    }
    // Two processes opening together: the second waits here, then sees what the first did.
    await client.query("SELECT pg_advisory_xact_lock($1, hashtext($2))", [LOCK_CLASS, schema]);
    if (!(await schemaExists(client, schema))) {
      if (!target.create) throw target.notFound();
      await client.query(`CREATE SCHEMA IF NOT EXISTS ${q}`);
      await client.query(`COMMENT ON SCHEMA ${q} IS ${quoteLiteral(SCHEMA_COMMENT + name)}`);
      await client.query(`CREATE TABLE ${q}.schema_migrations (version TEXT PRIMARY KEY, applied_at TEXT NOT NULL)`);
    }
    const { rows } = await client.query<{ version: string }>(`SELECT version FROM ${q}.schema_migrations`);
    const applied = new Set(rows.map((r) => r.version));
    await client.query(`SELECT set_config('search_path', $1, true)`, [`${q}, ${quoteIdent(info.vectorSchema)}`]);
    for (const migration of migrations) {
      if (applied.has(migration.version)) continue;
      await client.query(migration.sql);
      await client.query(`INSERT INTO ${q}.schema_migrations (version, applied_at) VALUES ($1, $2)`, [
        migration.version,
        new Date().toISOString(),
      ]);
    }
  });
}
