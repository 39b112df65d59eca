// WAL checkpoints off the writing thread: after each commit the store reads how many WAL frames
// wait to be copied (from the WAL index), and past a threshold a worker thread with its own
// connection runs `PRAGMA wal_checkpoint(PASSIVE)` (checkpoint-worker.mjs).
import { closeSync, existsSync, openSync, readSync } from "node:fs";
import { createRequire } from "node:module";
import { endianness } from "node:os";
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

// Slots of the memory shared with the worker (checkpoint-worker.mjs names them the same).
const REQUEST = 0; // 0 nothing, 1 checkpoint, 2 close
const DONE = 1; // attempts finished (notified)
const BUSY = 2;
const LOG = 3;
const CHECKPOINTED = 4;
const FAILED = 5;
const RUNNING = 6;
const CHECKPOINTS = 7;

// Offsets in the WAL index (the -shm file, https://sqlite.org/walformat.html): the header's
// version, its "initialised" flag and mxFrame (frames in the WAL), and the checkpoint info's
// nBackfill (frames already copied into the database). Native byte order.
const WAL_INDEX_VERSION = 3007000;
const HEADER_BYTES = 136;

export class WalCheckpointer implements WalCheckpointView {
  private worker: Worker | undefined;
  private readonly slots = new Int32Array(new SharedArrayBuffer(8 * 4));
  /**
   * The -shm file, opened for reading. Closed only after the writing connection (closeIndexFile):
   * closing any descriptor of a file drops every POSIX lock this process holds on it, SQLite's included.
   */
  private shm: number | undefined;
  private readonly header = Buffer.alloc(HEADER_BYTES);
  private readonly read32 = endianness() === "LE" ? this.header.readUInt32LE.bind(this.header) : this.header.readUInt32BE.bind(this.header);
  private readonly afterPages: number;
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
    db.pragma(`wal_autocheckpoint = ${Math.max(SQLITE_AUTOCHECKPOINT_PAGES, Math.ceil(SAFETY_NET_WAL_BYTES / pageSize))}`);
  }

  /**
   * After each commit of the writing connection: asks the worker for a checkpoint once enough
   * frames wait and none runs (requests coalesce). Costs one 136-byte read of the WAL index.
   */
  committed(): void {
    if (this.state !== "idle") return;
    const slots = this.slots;
    if (Atomics.load(slots, FAILED) === 1) {
      this.fallBack(this.fatal ?? "the checkpoint worker failed");
      return;
    }
    const waiting = this.waitingFrames();
    if (waiting === undefined) {
      this.fallBack("the WAL index cannot be read");
      return;
    }
    if (waiting < this.afterPages || Atomics.load(slots, RUNNING) === 1) return;
    if (!this.worker && !this.start()) return;
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
   * checkpoints itself); then the store closes that connection, then calls closeIndexFile().
   */
  async close(): Promise<void> {
    if (this.state !== "off") this.state = "closed";
    const worker = this.worker;
    this.worker = undefined;
    if (worker) await stop(worker, this.slots);
  }

  /** Frames in the WAL not yet copied into the database (mxFrame − nBackfill); undefined when the index cannot be read. */
  private waitingFrames(): number | undefined {
    try {
      this.shm ??= openSync(`${this.path}-shm`, "r");
      if (readSync(this.shm, this.header, 0, HEADER_BYTES, 0) < HEADER_BYTES) return undefined;
    } catch {
      return undefined;
    }
    if (this.read32(0) !== WAL_INDEX_VERSION) return undefined;
    if (this.header[12] !== 1) return 0; // not initialised yet: nothing written since the WAL was made
    const frames = this.read32(16);
    const copied = this.read32(96);
    return frames > copied ? frames - copied : 0;
  }

  /** Starts the worker (unreferenced: it never holds a process open); false when it cannot. */
  private start(): boolean {
    let worker: Worker;
    try {
      const script = this.options.script ?? fileURLToPath(new URL("./checkpoint-worker.mjs", import.meta.url));
      if (!existsSync(script)) throw new Error(`the checkpoint worker script is missing (${script})`);
      // node:worker_threads is loaded here, on the first checkpoint (not at start-up).
      const { Worker } = createRequire(import.meta.url)("node:worker_threads") as typeof import("node:worker_threads");
      const workerData = { path: this.path, nativeBinding: this.nativeBinding, shared: this.slots.buffer };
      worker = new Worker(script, { workerData, execArgv: [] });
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

  /** Closes the WAL index file; call only once the writing connection is closed (see `shm`). */
  closeIndexFile(): void {
    if (this.shm === undefined) return;
    closeSync(this.shm);
    this.shm = undefined;
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
