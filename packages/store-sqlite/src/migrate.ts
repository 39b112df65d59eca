import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type Database from "better-sqlite3";

/**
 * The SQLite migrations ship inside the built package (`dist/migrations/sqlite`) and beside
 * each bundled program (`apps/cli/dist/migrations/sqlite`, `apps/mcp-server/dist/…`: there
 * `import.meta.url` is the program's launcher, so the first candidate is the one found); from
 * source they are read from the repository's `migrations/sqlite/` folder.
 */
export function findMigrationsDir(): string {
  const here = dirname(fileURLToPath(import.meta.url));
  const candidates = [
    join(here, "migrations", "sqlite"),
    join(here, "..", "..", "..", "migrations", "sqlite"),
    join(here, "..", "..", "..", "..", "migrations", "sqlite"),
  ];
  for (const candidate of candidates) if (existsSync(join(candidate, "0001_init.sql"))) return candidate;
  throw new Error(`docdb migrations not found (looked in ${candidates.join(", ")})`);
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
