import { readdirSync, readFileSync, readlinkSync } from "node:fs";
import { setTimeout as sleep } from "node:timers/promises";
import { StoreError } from "@docdb/store";
import type Database from "better-sqlite3";

/**
 * How long one attempt waits inside SQLite for the write lock. Short, because better-sqlite3
 * waits synchronously: the event loop stays free between attempts, which back off in async sleeps.
 */
export const BUSY_ATTEMPT_MS = 50;

/** Default total wait for the write lock before a write gives up with CONFLICT. */
export const DEFAULT_BUSY_TIMEOUT_MS = 60_000;

function isBusy(error: unknown): boolean {
  const code = (error as { code?: unknown })?.code;
  return typeof code === "string" && (code.startsWith("SQLITE_BUSY") || code.startsWith("SQLITE_LOCKED"));
}

/**
 * Other processes that have the database file open (Linux: from /proc), described as
 * "pid 123 (node docdb import …)", so a person knows which process to wait for or stop.
 */
export function processesHolding(path: string): string[] {
  const found: string[] = [];
  let pids: string[];
  try {
    pids = readdirSync("/proc").filter((p) => /^\d+$/.test(p) && Number(p) !== process.pid);
  } catch {
    return found;
  }
  const targets = new Set([path, `${path}-wal`, `${path}-shm`]);
  for (const pid of pids) {
    try {
      const holds = readdirSync(`/proc/${pid}/fd`).some((fd) => {
        try {
          return targets.has(readlinkSync(`/proc/${pid}/fd/${fd}`));
        } catch {
          return false;
        }
      });
      if (!holds) continue;
      const command = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").filter(Boolean).join(" ");
      found.push(`pid ${pid} (${command.length > 120 ? `${command.slice(0, 117)}...` : command})`);
    } catch {
      // The process ended or is not ours to inspect.
    }
  }
  return found;
}

/**
 * Runs `work` in a transaction that takes the write lock up front (BEGIN IMMEDIATE), so it can
 * never fail half-way on a lock another writer took after it read (SQLITE_BUSY_SNAPSHOT). While
 * another process writes, it waits — retrying with backoff, the event loop free — and only after
 * `timeoutMs` fails with CONFLICT naming the processes that hold the file.
 */
export async function writeTransaction<T>(db: Database.Database, path: string, timeoutMs: number, work: () => T): Promise<T> {
  const transaction = db.transaction(work);
  return waitForLock(path, timeoutMs, () => transaction.immediate());
}

/** Runs `attempt` until it is not refused for a lock another process holds (see writeTransaction). */
export async function waitForLock<T>(path: string, timeoutMs: number, attempt: () => T): Promise<T> {
  const started = Date.now();
  let delay = 10;
  for (;;) {
    try {
      return attempt();
    } catch (error) {
      if (!isBusy(error)) throw error;
      const waited = Date.now() - started;
      if (waited >= timeoutMs) {
        const holders = processesHolding(path);
        const who = holders.length > 0 ? `; open in ${holders.join(", ")}` : "";
        throw new StoreError(
          "CONFLICT",
          `database ${path} is busy: another process kept it locked for writing for ${Math.round(waited / 1000)} s${who}. Wait for it to finish, or stop it, and try again`,
          { cause: error },
        );
      }
      await sleep(Math.min(delay, timeoutMs - waited));
      delay = Math.min(delay * 2, 250);
    }
  }
}
