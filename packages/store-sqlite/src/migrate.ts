// The migrations runner: applies the package's `migrations/NNNN_name.sql` files in order and
// records them in `schema_migrations`.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type Database from "better-sqlite3";

/** Set by the programs' bundles (scripts/tsup-bundle.ts): where they put the migrations, from the bundle. */
declare const __DOCDB_SQLITE_MIGRATIONS__: string | undefined;

/**
 * The SQLite migrations ship in the package's own `migrations/` folder, one level up from this
 * module both in `src/` and in the built `dist/index.js`. Bundled into a program (`docdb`,
 * `docdb-mcp`: `import.meta.url` is then the program's launcher in its `dist/`), the build copies
 * them beside the bundle and says where (`dist/migrations/sqlite`).
 */
export function findMigrationsDir(): string {
  const relative = typeof __DOCDB_SQLITE_MIGRATIONS__ === "string" ? __DOCDB_SQLITE_MIGRATIONS__ : "../migrations";
  const dir = fileURLToPath(new URL(relative, import.meta.url));
  if (existsSync(join(dir, "0001_init.sql"))) return dir;
  throw new Error(`docdb migrations not found (looked in ${dir})`);
}

export interface AppliedMigration {
  version: string;
  applied_at: string;
}

/**
 * Applies, in file-name order, every `NNNN_name.sql` not yet recorded. Call inside a write
 * transaction (BEGIN IMMEDIATE) so two processes opening a new database never both migrate it.
 */
export function migrate(db: Database.Database, dir: string = findMigrationsDir()): string[] {
  db.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (version TEXT PRIMARY KEY, applied_at TEXT NOT NULL)`);
  const applied = new Set((db.prepare("SELECT version FROM schema_migrations").all() as AppliedMigration[]).map((m) => m.version));
  const files = readdirSync(dir)
    .filter((name) => /^\d{4}_[\w-]+\.sql$/.test(name))
    .sort();
  const done: string[] = [];
  for (const file of files) {
    const version = file.replace(/\.sql$/, "");
    if (applied.has(version)) continue;
    const sql = readFileSync(join(dir, file), "utf8");
    db.exec(sql);
    db.prepare("INSERT INTO schema_migrations (version, applied_at) VALUES (?, ?)").run(version, new Date().toISOString());
    done.push(version);
  }
  return done;
}

/** True when some migration in `dir` is not recorded yet (a read; no lock taken). */
export function hasPendingMigrations(db: Database.Database, dir: string = findMigrationsDir()): boolean {
  const table = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'").get();
  const applied = table
    ? new Set((db.prepare("SELECT version FROM schema_migrations").all() as AppliedMigration[]).map((m) => m.version))
    : new Set<string>();
  return readdirSync(dir).some((name) => /^\d{4}_[\w-]+\.sql$/.test(name) && !applied.has(name.replace(/\.sql$/, "")));
}
