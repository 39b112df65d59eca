import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type Database from "better-sqlite3";

/**
 * The SQL migrations ship inside the built package (`dist/migrations`); from source they are
 * read from the repository's `migrations/` folder.
 */
export function findMigrationsDir(): string {
  const here = dirname(fileURLToPath(import.meta.url));
  const candidates = [
    join(here, "migrations"),
    join(here, "..", "..", "..", "migrations"),
    join(here, "..", "..", "..", "..", "migrations"),
  ];
  for (const candidate of candidates) if (existsSync(join(candidate, "0001_init.sql"))) return candidate;
  throw new Error(`docdb migrations not found (looked in ${candidates.join(", ")})`);
}

export interface AppliedMigration {
  version: string;
  applied_at: string;
}

/** Applies, in file-name order, every `NNNN_name.sql` not yet recorded; each in its own transaction. */
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
    db.transaction(() => {
      db.exec(sql);
      db.prepare("INSERT INTO schema_migrations (version, applied_at) VALUES (?, ?)").run(version, new Date().toISOString());
    })();
    done.push(version);
  }
  return done;
}
