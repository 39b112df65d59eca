// The lease on embedding a database's pending chunks: one process at a time embeds them, so
// several servers over one PostgreSQL never pay for a chunk twice; a killed holder's lease expires.
import type { Store } from "@docdb/store";
import { DocDBError } from "../errors.js";

/** The lease's name in every database. */
export const EMBED_LEASE = "embed-pending";
/** How long a lease lasts unless renewed (its holder renews it every third of this while it works). */
export const DEFAULT_EMBED_LEASE_MS = 60_000;

/** A lease holder's name: unique per call, and naming the process (its pid) for people reading `meta`. */
export function leaseHolder(): string {
  return `pid${process.pid}-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 10)}`;
}

export interface EmbedLease {
  /** Takes the lease, or renews it; false when another process holds it. */
  claim(): Promise<boolean>;
  release(): Promise<void>;
}

/**
 * Renews a held lease every third of its length while `work` runs (a slow provider call must
 * not let it run out under a live holder), and gives it back after.
 */
export async function holdingLease<T>(lease: EmbedLease, ttlMs: number, work: () => Promise<T>): Promise<T> {
  const timer = setInterval(() => void lease.claim().catch(() => undefined), Math.max(10, Math.floor(ttlMs / 3)));
  timer.unref();
  try {
    return await work();
  } finally {
    clearInterval(timer);
    await lease.release().catch(() => undefined);
  }
}

/** The lease for `store`; one that always holds for engines without leases. */
export function embedLease(store: Store, holder: string, ttlMs: number): EmbedLease {
  const { claimLease, releaseLease } = store;
  if (!claimLease || !releaseLease) return { claim: async () => true, release: async () => undefined };
  return {
    claim: () => claimLease.call(store, EMBED_LEASE, holder, ttlMs),
    release: () => releaseLease.call(store, EMBED_LEASE, holder),
  };
}

/**
 * Waits until the lease is ours (true) or nothing is pending any more (false: the holder did
 * the work). Looks again every `everyMs`, stops on `signal`.
 */
export async function waitForLease(
  lease: EmbedLease,
  pending: () => Promise<number>,
  options: { signal?: AbortSignal; everyMs: number },
): Promise<boolean> {
  for (;;) {
    options.signal?.throwIfAborted();
    if (await lease.claim()) return true;
    if ((await pending()) === 0) return false;
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(resolve, options.everyMs);
      options.signal?.addEventListener(
        "abort",
        () => {
          clearTimeout(timer);
          reject(options.signal?.reason ?? new DocDBError("INTERNAL", "aborted"));
        },
        { once: true },
      );
    });
  }
}
