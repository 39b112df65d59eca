// Leases: a `meta` row per lease naming its holder, its process and when it runs out, taken or
// renewed in one write transaction (SQLite has one writer at a time, so the check and the write agree).
import { StoreError } from "@docdb/store";
import type { Connection } from "./connection.js";

const LEASE_PREFIX = "lease:";

function checkArguments(name: string, holder: string, ttlMs?: number): void {
  if (name === "" || holder === "") throw new StoreError("INVALID_REQUEST", "a lease needs a name and a holder");
  if (ttlMs !== undefined && (!Number.isInteger(ttlMs) || ttlMs < 1)) {
    throw new StoreError("INVALID_REQUEST", `a lease's time must be a positive whole number of ms, not ${ttlMs}`);
  }
}

/** True while a process of this machine with that id runs (a SQLite database is on one machine). */
function running(pid: unknown): boolean {
  if (typeof pid !== "number" || !Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/**
 * Takes the lease when it is free, run out, already `holder`'s, or held by a process that is no
 * longer running (killed: nobody need wait for the lease to run out, unlike across machines).
 */
export async function claimLease(conn: Connection, name: string, holder: string, ttlMs: number): Promise<boolean> {
  checkArguments(name, holder, ttlMs);
  return conn.write(() => {
    const now = Date.now();
    const row = conn.statement("SELECT value FROM meta WHERE key = ?").get(LEASE_PREFIX + name) as { value: string } | undefined;
    if (row) {
      const held = JSON.parse(row.value) as { holder?: string; until?: number; pid?: number };
      if (held.holder !== holder && (held.until ?? 0) > now && running(held.pid)) return false;
    }
    conn
      .statement("INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value")
      .run(LEASE_PREFIX + name, JSON.stringify({ holder, until: now + ttlMs, pid: process.pid }));
    return true;
  });
}

export async function releaseLease(conn: Connection, name: string, holder: string): Promise<void> {
  checkArguments(name, holder);
  await conn.write(() => {
    conn.statement("DELETE FROM meta WHERE key = ? AND json_extract(value, '$.holder') = ?").run(LEASE_PREFIX + name, holder);
  });
}
