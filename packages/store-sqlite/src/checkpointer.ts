// WAL checkpoints off the writing thread: after each commit the store looks at how far the WAL
// has grown (its size, from stat), and past a threshold a worker thread with its own connection
// runs `PRAGMA wal_checkpoint(PASSIVE)` (checkpoint-worker.mjs).
import { existsSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import type { Worker } from "node:worker_threads";
import type Database from "better-sqlite3";

/** SQLite's own autocheckpoint (pages), which the writing connection gets back when the checkpointer fails. */
export const SQLITE_AUTOCHECKPOINT_PAGES = 1000;
/**
 * The writing connection's autocheckpoint while the checkpointer runs: a safety net only, so the
 * WAL never grows past ~32 MB should the worker stall (it then checkpoints on the writing thread).
 */
export const SAFETY_NET_WAL_BYTES = 32 * 1024 * 1024;
/** Default frames (pages, ~4 MB at 4 KB pages) waiting in the WAL after which the worker copies them. */
export const DEFAULT_CHECKPOINT_AFTER_PAGES = 1000;

export interface WalCheckpointOptions {
  /** WAL frames not yet copied into the database after which the worker checkpoints. 0: no worker (SQLite's autocheckpoint). */
  afterPages?: number;
  /** The worker script; defaults to checkpoint-worker.mjs beside this module (or the bundle). */
  script?: string;
}

export interface WalCheckpointStatus {
  /** `idle` (no checkpoint running), `running`, `off` (SQLite's own autocheckpoint) or `closed`. */
  state: "idle" | "running" | "off" | "closed";
  /** Checkpoints the worker has completed (whether or not every frame could be copied). */
  checkpoints: number;
  /** The last checkpoint's answer: frames in the WAL and frames copied. */
  last?: { busy: number; log: number; checkpointed: number };
  /** Why the worker is off (it failed to start or a checkpoint failed). */
  offReason?: string;
  /** The writing connection's `wal_autocheckpoint` (pages). */
  autocheckpoint: number;
}

/** What a store shows of its checkpointer (tests, status). */
export interface WalCheckpointView {
  status(): WalCheckpointStatus;
  /** Resolves once no checkpoint runs or waits to run. */
  settled(): Promise<void>;
}

/** Atomics.waitAsync (Node.js 16 and later; TypeScript's ES2022 library does not name it). */
type AtomicsWaitAsync = {
  waitAsync(array: Int32Array, index: number, value: number, timeoutMs: number): { async: boolean; value: unknown };
};

/**
 * Slots of the memory shared with the worker, sent to it in `workerData.slotsAt` (one table for
 * both sides).
 */
const SLOTS = {
  /** 0 nothing, 1 checkpoint, 2 close (notified). */
  REQUEST: 0,
  /** Attempts finished (notified). */
  DONE: 1,
  /** The last checkpoint's answer: busy, frames in the WAL, frames copied. */
  BUSY: 2,
  LOG: 3,
  CHECKPOINTED: 4,
  /** 1: the worker gave up (its message says why). */
  FAILED: 5,
  /** 1 while a checkpoint runs. */
  RUNNING: 6,
  /** Checkpoints completed. */
  CHECKPOINTS: 7,
} as const;
const { REQUEST, DONE, BUSY, LOG, CHECKPOINTED, FAILED, RUNNING, CHECKPOINTS } = SLOTS;

/**
 * Once the worker has run, a checkpoint is also asked for this long after the last one whatever
 * the WAL's size (SQLite writes a restarted WAL from its start, inside the file's old size).
 */
const RECHECK_MS = 250;

export class WalCheckpointer implements WalCheckpointView {
  private worker: Worker | undefined;
  private readonly slots = new Int32Array(new SharedArrayBuffer(Object.keys(SLOTS).length * 4));
  private readonly afterPages: number;
  /** WAL bytes after which a checkpoint is asked for: afterPages frames (a page and a 24-byte header each). */
  private afterBytes = 0;
  /** The WAL's size and the time when a checkpoint was last asked for. */
  private askedAtSize = 0;
  private askedAt = 0;
  private state: "idle" | "off" | "closed" = "idle";
  private offReason: string | undefined;
  private fatal: string | undefined;

  constructor(
    private readonly db: Database.Database,
    private readonly path: string,
    private readonly nativeBinding: string | undefined,
    private readonly options: WalCheckpointOptions = {},
  ) {
    this.afterPages = options.afterPages ?? DEFAULT_CHECKPOINT_AFTER_PAGES;
    if (this.afterPages <= 0) {
      this.state = "off";
      this.offReason = "turned off";
      return;
    }
    const pageSize = db.pragma("page_size", { simple: true }) as number;
    this.afterBytes = this.afterPages * (pageSize + 24);
    db.pragma(`wal_autocheckpoint = ${Math.max(SQLITE_AUTOCHECKPOINT_PAGES, Math.ceil(SAFETY_NET_WAL_BYTES / pageSize))}`);
  }

  /**
   * After each commit of the writing connection: asks the worker for a checkpoint once the WAL
   * file has grown by `afterPages` frames since the last request, or, once the worker runs, when
   * RECHECK_MS have passed (a restarted WAL does not grow the file). Requests coalesce. Costs one
   * stat of the -wal file. The -shm file is never opened here: closing any descriptor of a file
   * drops every POSIX lock this process holds on it, SQLite's connections' included.
   */
  committed(): void {
    if (this.state !== "idle") return;
    const slots = this.slots;
    if (Atomics.load(slots, FAILED) === 1) {
      this.fallBack(this.fatal ?? "the checkpoint worker failed");
      return;
    }
    if (Atomics.load(slots, RUNNING) === 1 || Atomics.load(slots, REQUEST) === 1) return;
    let size: number;
    try {
      size = statSync(`${this.path}-wal`, { throwIfNoEntry: false })?.size ?? 0;
    } catch {
      return;
    }
    if (size < this.askedAtSize) this.askedAtSize = size;
    const now = performance.now();
    const grown = size - this.askedAtSize >= this.afterBytes;
    const due = this.worker !== undefined && now - this.askedAt >= RECHECK_MS;
    if (!grown && !due) return;
    if (!this.worker && !this.start()) return;
    this.askedAtSize = size;
    this.askedAt = now;
    if (Atomics.compareExchange(slots, REQUEST, 0, 1) === 0) Atomics.notify(slots, REQUEST);
  }

  /** Resolves once no checkpoint runs or waits to run (tests; close waits for the worker itself). */
  async settled(): Promise<void> {
    const worker = this.worker;
    if (!worker) return;
    const slots = this.slots;
    // Held while waiting: a wait on shared memory alone does not keep a process running.
    worker.ref();
    try {
      for (;;) {
        const done = Atomics.load(slots, DONE);
        if (Atomics.load(slots, REQUEST) !== 1 && Atomics.load(slots, RUNNING) === 0) return;
        if (this.worker !== worker || Atomics.load(slots, FAILED) === 1) return;
        const wait = (Atomics as unknown as AtomicsWaitAsync).waitAsync(slots, DONE, done, 1000);
        if (wait.async) await wait.value;
      }
    } finally {
      if (this.worker === worker) worker.unref();
    }
  }

  status(): WalCheckpointStatus {
    const slots = this.slots;
    const busy = Atomics.load(slots, REQUEST) === 1 || Atomics.load(slots, RUNNING) === 1;
    const checkpoints = Atomics.load(slots, CHECKPOINTS);
    const status: WalCheckpointStatus = {
      state: busy && this.state === "idle" ? "running" : this.state,
      checkpoints,
      autocheckpoint: this.db.open ? (this.db.pragma("wal_autocheckpoint", { simple: true }) as number) : 0,
    };
    if (checkpoints > 0) {
      status.last = { busy: Atomics.load(slots, BUSY), log: Atomics.load(slots, LOG), checkpointed: Atomics.load(slots, CHECKPOINTED) };
    }
    if (this.offReason) status.offReason = this.offReason;
    return status;
  }

  /**
   * Stops the worker after the checkpoint it runs (before the writing connection closes and
   * checkpoints itself).
   */
  async close(): Promise<void> {
    if (this.state !== "off") this.state = "closed";
    const worker = this.worker;
    this.worker = undefined;
    if (worker) await stop(worker, this.slots);
  }

  /** Starts the worker (unreferenced: it never holds a process open); false when it cannot. */
  private start(): boolean {
    let worker: Worker;
    try {
      const script = this.options.script ?? fileURLToPath(new URL("./checkpoint-worker.mjs", import.meta.url));
      if (!existsSync(script)) throw new Error(`the checkpoint worker script is missing (${script})`);
      // node:worker_threads is loaded here, on the first checkpoint (not at start-up).
      const { Worker } = createRequire(import.meta.url)("node:worker_threads") as typeof import("node:worker_threads");
      const workerData = { path: this.path, nativeBinding: this.nativeBinding, shared: this.slots.buffer, slotsAt: SLOTS };
      // A small heap: the worker runs one PRAGMA (a 1M-chunk server holds ~1.4 GB already).
      const resourceLimits = { maxYoungGenerationSizeMb: 1, maxOldGenerationSizeMb: 16 };
      worker = new Worker(script, { workerData, execArgv: [], resourceLimits });
    } catch (error) {
      this.fallBack(`the checkpoint worker cannot start: ${(error as Error).message}`);
      return false;
    }
    worker.unref();
    worker.on("message", (message: { fatal?: string }) => {
      this.fatal ??= message.fatal;
      if (this.worker === worker) this.fallBack(message.fatal ?? "the checkpoint worker failed");
    });
    worker.on("error", (error) => {
      if (this.worker === worker) this.fallBack(`the checkpoint worker failed: ${error.message}`);
    });
    worker.on("exit", (code) => {
      if (this.worker === worker) this.fallBack(`the checkpoint worker ended (exit code ${code})`);
    });
    this.worker = worker;
    return true;
  }

  /** SQLite's own autocheckpoint on the writing connection again; nothing is lost either way. */
  private fallBack(reason: string): void {
    if (this.state === "idle") this.state = "off";
    this.offReason ??= reason;
    if (this.db.open) this.db.pragma(`wal_autocheckpoint = ${SQLITE_AUTOCHECKPOINT_PAGES}`);
    const worker = this.worker;
    this.worker = undefined;
    if (worker) void stop(worker, this.slots);
  }
}

/** How long a worker may take to finish its checkpoint and close before it is terminated. */
const STOP_TIMEOUT_MS = 30_000;

/** Ends the worker: it closes its connection after the checkpoint it runs; held until it is gone. */
function stop(worker: Worker, slots: Int32Array): Promise<void> {
  if (worker.threadId === -1) return Promise.resolve(); // already ended
  return new Promise((resolve) => {
    const timer = setTimeout(() => void worker.terminate(), STOP_TIMEOUT_MS);
    worker.once("exit", () => {
      clearTimeout(timer);
      resolve();
    });
    worker.ref();
    Atomics.store(slots, REQUEST, 2);
    Atomics.notify(slots, REQUEST);
  });
}
