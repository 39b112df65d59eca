import type Database from "better-sqlite3";

/**
 * The number of chunk vectors this database has carried over from replaced documents (their
 * embedding input did not change) instead of having them computed again: a running total kept
 * in `meta`, added to in the same transaction as the write that reused them, so it is exact
 * across processes and crashes. `StoreCounts.reusedVectors` reports it.
 */
export const REUSED_VECTORS_KEY = "reused_vectors";

/** Adds `n` to the total (inside the caller's write transaction). */
export function addReusedVectors(db: Database.Database, n: number): void {
  if (n <= 0) return;
  db.prepare(
    `INSERT INTO meta (key, value) VALUES (?, ?)
     ON CONFLICT(key) DO UPDATE SET value = CAST(CAST(value AS INTEGER) + CAST(excluded.value AS INTEGER) AS TEXT)`,
  ).run(REUSED_VECTORS_KEY, String(n));
}

/** The total so far (0 when nothing was ever reused). */
export function reusedVectors(db: Database.Database): number {
  const row = db.prepare("SELECT value FROM meta WHERE key = ?").get(REUSED_VECTORS_KEY) as { value: string } | undefined;
  return row ? Number(row.value) : 0;
}
