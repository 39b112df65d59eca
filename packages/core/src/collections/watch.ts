import { type FSWatcher, watch } from "node:fs";
import { DocDBError, toDocDBError } from "../errors.js";
import { isBinaryName, isNoiseName } from "./file-kind.js";
import type { CollectionInfo, ImportSummary, WatchedCollections } from "./types.js";
import { inExcludedDirectory } from "./walk.js";

export interface WatchOptions {
  /** Quiet time after the last change before re-importing, in ms. Default 2000. */
  debounceMs?: number;
  /**
   * Also re-check every watched folder this often (ms), for changes the OS did not report
   * (network drives, exhausted inotify watches). Default 0: only when a watch fails.
   */
  rescanMs?: number;
  /** How often changes to the collections themselves (by other processes) are noticed, in ms. Default 1000. */
  pollMs?: number;
  onEvent?: (event: WatchEvent) => void;
}

export type WatchEvent =
  | { type: "watching"; collection: string; source: string }
  | { type: "unwatched"; collection: string }
  | { type: "imported"; collection: string; reason: "start" | "change" | "rescan"; summary: ImportSummary }
  | { type: "error"; collection: string; error: DocDBError };

interface Watched {
  info: CollectionInfo;
  watcher?: FSWatcher;
  rescan?: NodeJS.Timeout;
  timer?: NodeJS.Timeout;
}

/** Writes the database makes next to itself: a data folder inside a watched folder must not loop. */
const DATABASE_FILE = /\.(db|sqlite3?)(-wal|-shm|-journal)?$/i;

function worthImporting(path: string): boolean {
  return !inExcludedDirectory(path) && !isBinaryName(path) && !isNoiseName(path) && !DATABASE_FILE.test(path);
}

/**
 * Keeps the enabled collections of a database in step with their folders: catches up on what
 * changed while nothing ran, then re-imports (`update` mode) a collection `debounceMs` after
 * its folder last changed. Follows collections being added, disabled or moved, also by other
 * processes. Imports are incremental, so a burst of events costs one walk of stat calls.
 */
export class CollectionWatcher {
  private readonly watched = new Map<string, Watched>();
  private readonly inFlight = new Set<Promise<unknown>>();
  private stopListening?: () => void;
  private closed = false;
  private readonly debounceMs: number;

  constructor(
    private readonly collections: WatchedCollections,
    private readonly options: WatchOptions = {},
  ) {
    this.debounceMs = options.debounceMs ?? 2000;
    if (!Number.isFinite(this.debounceMs) || this.debounceMs < 0) {
      throw new DocDBError("INVALID_REQUEST", `debounce must be a number of milliseconds >= 0, got ${String(options.debounceMs)}`);
    }
  }

  /** Starts watching and catches up on every enabled collection; resolves when caught up. */
  async start(): Promise<void> {
    this.stopListening = this.collections.onChange((list) => this.reconcile(list), { intervalMs: this.options.pollMs });
    this.reconcile(await this.collections.list());
    await this.idle();
  }

  /** Names of the collections being watched. */
  get names(): string[] {
    return [...this.watched.keys()].sort();
  }

  /** Resolves once no import is waiting or running. */
  async idle(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.allSettled([...this.inFlight]);
  }

  async close(): Promise<void> {
    this.closed = true;
    this.stopListening?.();
    for (const name of [...this.watched.keys()]) this.unwatch(name);
    await this.idle();
  }

  private emit(event: WatchEvent): void {
    this.options.onEvent?.(event);
  }

  private reconcile(list: CollectionInfo[]): void {
    if (this.closed) return;
    const wanted = new Map(list.filter((c) => c.enabled).map((c) => [c.name, c]));
    for (const [name, entry] of this.watched) {
      const next = wanted.get(name);
      if (!next || next.source !== entry.info.source) this.unwatch(name);
      else entry.info = next;
    }
    for (const [name, info] of wanted) {
      if (this.watched.has(name)) continue;
      this.startWatching(info);
      this.runImport(name, "start");
    }
  }

  private startWatching(info: CollectionInfo): void {
    const entry: Watched = { info };
    this.watched.set(info.name, entry);
    try {
      entry.watcher = watch(info.source, { recursive: true, persistent: false }, (_event, filename) => {
        if (filename === null || worthImporting(filename.toString())) this.schedule(info.name);
      });
      entry.watcher.on("error", (error) => this.fallBackToRescan(entry, error));
    } catch (error) {
      this.fallBackToRescan(entry, error);
    }
    if (this.options.rescanMs && !entry.rescan) {
      entry.rescan = setInterval(() => this.runImport(info.name, "rescan"), this.options.rescanMs);
      entry.rescan.unref();
    }
    this.emit({ type: "watching", collection: info.name, source: info.source });
  }

  private fallBackToRescan(entry: Watched, error: unknown): void {
    entry.watcher?.close();
    entry.watcher = undefined;
    const every = this.options.rescanMs || Math.max(this.debounceMs, 10_000);
    this.emit({
      type: "error",
      collection: entry.info.name,
      error: new DocDBError(
        "INTERNAL",
        `cannot watch ${entry.info.source} (${(error as Error).message}); checking it every ${every / 1000} s instead`,
      ),
    });
    if (!entry.rescan) {
      entry.rescan = setInterval(() => this.runImport(entry.info.name, "rescan"), every);
      entry.rescan.unref();
    }
  }

  private unwatch(name: string): void {
    const entry = this.watched.get(name);
    if (!entry) return;
    entry.watcher?.close();
    if (entry.rescan) clearInterval(entry.rescan);
    if (entry.timer) clearTimeout(entry.timer);
    this.watched.delete(name);
    this.emit({ type: "unwatched", collection: name });
  }

  private schedule(name: string): void {
    const entry = this.watched.get(name);
    if (!entry || this.closed) return;
    if (entry.timer) clearTimeout(entry.timer);
    entry.timer = setTimeout(() => {
      entry.timer = undefined;
      this.runImport(name, "change");
    }, this.debounceMs);
  }

  private runImport(name: string, reason: "start" | "change" | "rescan"): void {
    if (this.closed) return;
    const run = this.collections
      .import(name, { mode: "update" })
      .then((summary) => this.emit({ type: "imported", collection: name, reason, summary }))
      .catch((error) => this.emit({ type: "error", collection: name, error: toDocDBError(error) }));
    this.inFlight.add(run);
    void run.finally(() => this.inFlight.delete(run));
  }
}
