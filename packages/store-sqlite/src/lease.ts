// Leases: a `meta` row per lease naming its holder and when it runs out, taken or renewed in
// one write transaction (SQLite has one writer at a time, so the check and the write agree).
import { StoreError } from "@docdb/store";
import type { Connection } from "./connection.js";

const LEASE_PREFIX = "lease:";

function checkArguments(name: string, holder: string, ttlMs?: number): void {
  if (name === "" || holder === "") throw new StoreError("INVALID_REQUEST", "a lease needs a name and a holder");
  if (ttlMs !== undefined && (!Number.isInteger(ttlMs) || ttlMs < 1)) {
    throw new StoreError("INVALID_REQUEST", `a lease's time must be a positive whole number of ms, not ${ttlMs}`);
  }
}

export async function claimLease(conn: Connection, name: string, holder: string, ttlMs: number): Promise<boolean> {
  checkArguments(name, holder, ttlMs);
  return conn.write(() => {
    const now = Date.now();
    const result = conn
      .statement(
        `INSERT INTO meta (key, value) VALUES (?, json_object('holder', ?, 'until', ?))
         ON CONFLICT(key) DO UPDATE SET value = excluded.value
           WHERE json_extract(meta.value, '$.holder') = ? OR json_extract(meta.value, '$.until') <= ?`,
      )
      .run(LEASE_PREFIX + name, holder, now + ttlMs, holder, now);
    return result.changes > 0;
  });
}

export async function releaseLease(conn: Connection, name: string, holder: string): Promise<void> {
  checkArguments(name, holder);
  await conn.write(() => {
    conn.statement("DELETE FROM meta WHERE key = ? AND json_extract(value, '$.holder') = ?").run(LEASE_PREFIX + name, holder);
  });
}
