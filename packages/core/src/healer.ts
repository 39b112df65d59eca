import type { Logger } from "./logger.js";

/** What the background embedder is doing (shown by `status`). */
export interface HealingStatus {
  /**
   * off: no embedding model (nothing to heal with); idle: nothing pending when last checked;
   * embedding: a run is under way; waiting: the last run failed, the next is at `next_attempt_at`.
   */
  state: "off" | "idle" | "embedding" | "waiting";
  /** Why the last run failed, until a run succeeds. */
  last_error: string | null;
  /** When the next run starts (ISO time), when one is scheduled. */
  next_attempt_at: string | null;
  /** Chunks embedded in the background since the server started. */
  embedded: number;
}

export interface HealerOptions {
  /** First wait after a failure, in ms; doubles per failure. Default 2,000 (a DocDB passes env DOCDB_HEAL_MIN_MS). */
  minDelayMs?: number;
  /** Longest wait between attempts, in ms. Default 300,000 (a DocDB passes env DOCDB_HEAL_MAX_MS). */
  maxDelayMs?: number;
  /** How often to look for pending chunks when all is well (other processes add some). Default 60,000. */
  idleCheckMs?: number;
  /** Deadline of each provider call, in ms. Default: the DocDB's (DOCDB_EMBED_DEADLINE_MS, 15 s). */
  deadlineMs?: number;
  /**
   * How often to look again while another process holds a database's embedding lease (it may
   * die: its lease then expires and this process carries on). Default 5,000.
   */
  leasedCheckMs?: number;
  /** How long an embedding lease lasts (DOCDB_EMBED_LEASE_MS): the default `leasedCheckMs` is half of it, at most 5,000. */
  leaseMs?: number;
}

/** What the healer needs from its DocDB. */
export interface HealerHost {
  logger: Logger;
  hasModel(): boolean;
  databaseNames(): Promise<string[]>;
  pending(name: string): Promise<number>;
  /** A database's `embedPending` (its options and result, as far as the healer uses them). */
  embedPending(
    name: string,
    options: { signal: AbortSignal; retries: number; deadline_ms?: number },
  ): Promise<{ embedded: number; remaining: number; leased_elsewhere?: boolean }>;
}

/**
 * Embeds pending chunks in the background while a server runs: when an insert leaves chunks
 * pending (`kick`), and every `idleCheckMs`. A failed run waits with exponential backoff
 * (doubling from `minDelayMs`, capped at `maxDelayMs`) before the next; a success resets it.
 * Its timer is unref'd: it never keeps a process alive.
 */
export class PendingHealer {
  private state: HealingStatus["state"] = "idle";
  private lastError: string | null = null;
  private nextAt: number | null = null;
  private embedded = 0;
  private delay: number;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private closed = false;
  private readonly abort = new AbortController();
  private readonly minDelay: number;
  private readonly maxDelay: number;
  private readonly idleCheck: number;
  private readonly leasedCheck: number;

  constructor(
    private readonly host: HealerHost,
    private readonly options: HealerOptions = {},
  ) {
    this.minDelay = options.minDelayMs ?? 2_000;
    this.maxDelay = Math.max(this.minDelay, options.maxDelayMs ?? 300_000);
    this.idleCheck = options.idleCheckMs ?? 60_000;
    const leasedCheck = options.leasedCheckMs ?? Math.max(100, Math.min(5_000, Math.floor((options.leaseMs ?? 60_000) / 2)));
    this.leasedCheck = Math.min(this.idleCheck, leasedCheck);
    this.delay = this.minDelay;
    if (!host.hasModel()) this.state = "off";
    else this.schedule(0);
  }

  status(): HealingStatus {
    return {
      state: this.state,
      last_error: this.lastError,
      next_attempt_at: this.nextAt !== null ? new Date(this.nextAt).toISOString() : null,
      embedded: this.embedded,
    };
  }

  /** Chunks were left pending: run soon, unless a failure's backoff is running. */
  kick(): void {
    if (this.closed || this.state === "off" || this.state === "waiting" || this.running) return;
    this.schedule(0);
  }

  private schedule(ms: number): void {
    if (this.closed) return;
    clearTimeout(this.timer);
    this.nextAt = Date.now() + ms;
    this.timer = setTimeout(() => {
      this.running = this.run().finally(() => {
        this.running = undefined;
      });
    }, ms);
    this.timer.unref();
  }

  private async run(): Promise<void> {
    this.nextAt = null;
    try {
      let remaining = 0;
      let leasedElsewhere = false;
      for (const name of await this.host.databaseNames()) {
        if (this.closed) return;
        if ((await this.host.pending(name)) === 0) continue;
        this.state = "embedding";
        const result = await this.host.embedPending(name, {
          signal: this.abort.signal,
          retries: 0,
          deadline_ms: this.options.deadlineMs,
        });
        this.embedded += result.embedded;
        // Another process embeds this database: it is not this process's to go on with now.
        if (result.leased_elsewhere) leasedElsewhere = true;
        else remaining += result.remaining;
        if (result.embedded > 0)
          this.host.logger.info({ db: name, embedded: result.embedded, remaining: result.remaining }, "embedded pending chunks");
      }
      if (this.closed) return;
      this.state = "idle";
      this.lastError = null;
      this.delay = this.minDelay;
      // Chunks still pending (added meanwhile): go on at once; else look again later.
      this.schedule(remaining > 0 ? 0 : leasedElsewhere ? this.leasedCheck : this.idleCheck);
    } catch (error) {
      if (this.closed) return;
      this.lastError = error instanceof Error ? error.message : String(error);
      this.state = "waiting";
      const wait = this.delay;
      this.delay = Math.min(this.maxDelay, this.delay * 2);
      this.host.logger.info({ err: this.lastError, retry_in_ms: wait }, "background embedding failed; will retry");
      this.schedule(wait);
    }
  }

  /** Stops: no more runs; a run under way is aborted. */
  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.timer);
    this.nextAt = null;
    this.abort.abort(new Error("docdb is closing"));
    await this.running?.catch(() => undefined);
  }
}
