// The keyword index of a SQLite database kept live: loaded from `<name>.db.keywords` or built in
// the background above a size threshold, caught up from keyword_log before each query, saved.
import { setImmediate as yieldToEventLoop } from "node:timers/promises";
import type { KeywordQuery } from "@docdb/analyzer";
import type { Filter, KeywordIndexStatus } from "@docdb/store";
import type { Connection } from "../connection.js";
import { KeywordIndex, type KeywordIndexHit, type KeywordSearchOptions } from "../keyword-index/index.js";
import { warmUpOnce } from "../keyword-index/warm.js";
import { changeToken } from "../meta.js";
import { KeywordFile } from "./file.js";
import { POSITIONS_IN_FILE_FROM } from "./file-read.js";
import { KeywordLog, type KeywordRowCounts } from "./log.js";
import type { KeywordIndexOptions } from "./options.js";
import { apply, KeywordSaver, type Live, newLive } from "./saver.js";
import { keywordStatus } from "./status.js";
import { type WrittenRow, WrittenRows, type WrittenRowsSink } from "./written.js";

export type { KeywordIndexOptions } from "./options.js";

/*
 * SQLite (FTS5's chunks_fts) stays the truth and answers whenever the index cannot: below the
 * threshold, while the index is built or far behind, and when it cannot be trusted. Every chunk
 * written or deleted appends its seq to keyword_log in the writing transaction (migration 0011);
 * the index remembers the last log id it applied and, before every query, re-derives each touched
 * chunk's row (remove, then add when it still exists: idempotent), which catches up with other
 * processes' writes and with changes a crash kept out of the files. Rows this process's own writes
 * gave FTS5 are taken after commit (WrittenRows). No query waits for a build: FTS5 answers until
 * it is ready. Saves append to a delta file and now and then compact (saver.ts). A damaged file is
 * set aside (`.corrupt-<time>`) with a warning and built again; another version is built again.
 */

/**
 * Chunks below which keyword finds use FTS5 alone and no index is kept: at 9,925 chunks FTS5 took
 * 1.8 ms a find and the index 3.0 (`scripts/bench-compare.mjs`); at 163,062 FTS5 19 and the index 3.1.
 */
export const KEYWORD_INDEX_THRESHOLD = 20_000;
/**
 * Chunks analysed per step of a build (the event loop runs between steps). Analysis costs about
 * 0.3 ms of CPU a chunk, so a step holds other work (a server's finds) up for some 30 ms at most.
 */
const BUILD_BATCH = 100;
/** Log entries replayed per step of a background catch-up (as short as a build's step). */
const CATCH_UP_BATCH = 100;
/** At most this many log entries behind (~60 ms of analysis), a query catches up itself; more, and FTS5 answers while the background does. */
const QUICK_BACKLOG = 200;
/** More log entries than this (and than the index holds) behind: the index is built again instead. */
const REBUILD_BACKLOG = 50_000;
/** The file is written again when this many changes were applied since it was read or written. */
const SAVE_AFTER_CHANGES = 1000;

/** What a SqliteStore shows of its keyword index (tests, benches): its file, its answers, its state. */
export interface KeywordIndexView {
  readonly file: string;
  search(query: KeywordQuery, limit: number, filter: Filter | undefined): KeywordIndexHit[] | undefined;
  /** Resolves when no load, build, catch-up or save runs in the background. */
  settled(): Promise<void>;
  status(): KeywordIndexStatus;
  /** Keyword rows analysed again from chunk text, and taken from this process's writes, since the store opened. */
  rowCounts(): KeywordRowCounts;
}

export class LiveKeywordIndex implements KeywordIndexView, WrittenRowsSink {
  private readonly log: KeywordLog;
  private readonly files: KeywordFile;
  private readonly saver: KeywordSaver;
  private readonly threshold: number;
  private readonly saveAfter: number;
  private live: Live | undefined;
  /** A load, build or long catch-up running in the background: FTS5 answers until it ends. */
  private job: Promise<void> | undefined;
  private saving: Promise<unknown> | undefined;
  /** The change token when the index was last brought up to date. */
  private checkedAt: string | undefined;
  private chunkCount: { token: string; n: number } | undefined;
  private readonly warned = new Set<string>();
  /** A build (not a load or catch-up) runs in the background. */
  private building = false;
  private closing = false;
  /** Keyword rows this process's committed writes gave FTS5, for the next catch-up. */
  private readonly written = new WrittenRows();
  /**
   * SQLite's ln(), one function for the index's life: the index keeps its answers per function,
   * so a new closure each find would ask SQLite again every time.
   */
  private readonly ln = (x: number): number => (this.conn.statement("SELECT ln(?) AS v").get(x) as { v: number }).v;

  constructor(
    private readonly conn: Connection,
    private readonly options: KeywordIndexOptions = {},
  ) {
    this.log = new KeywordLog(conn);
    const inFileFrom = options.positionsInFileFrom ?? POSITIONS_IN_FILE_FROM;
    this.files = new KeywordFile(conn, this.log, inFileFrom);
    this.saver = new KeywordSaver(
      conn,
      this.files,
      this.log,
      (m) => this.warn(m),
      (live) => this.live === live,
      inFileFrom,
      options.compactStep,
    );
    this.threshold = Math.max(1, options.threshold ?? KEYWORD_INDEX_THRESHOLD);
    this.saveAfter = Math.max(1, options.saveAfterChanges ?? SAVE_AFTER_CHANGES);
  }

  get file(): string {
    return this.files.file;
  }

  rowCounts(): KeywordRowCounts {
    return { ...this.log.counts };
  }

  /** Rows are kept when an index is (or may soon be) in use: loaded, being prepared, or chunk seqs past the threshold. */
  wants(lastSeq: number): boolean {
    // Seqs are never below the number of chunks: a write whose last seq is under the threshold cannot cross it.
    return this.live !== undefined || this.job !== undefined || lastSeq >= this.threshold;
  }

  committed(rows: WrittenRow[]): void {
    this.written.add(rows);
  }

  private chunks(): number {
    const token = changeToken(this.conn);
    if (this.chunkCount?.token !== token) this.chunkCount = { token, n: this.log.chunks() };
    return this.chunkCount.n;
  }

  /** Whether keyword finds should go to the index (enough chunks). */
  active(): boolean {
    return this.chunks() >= this.threshold;
  }

  /**
   * The best `limit` hits from the index (the same as FTS5's: ids, order, scores), or undefined
   * when FTS5 must answer: below the threshold, while the index is loaded, built or far behind.
   */
  search(query: KeywordQuery, limit: number, filter: Filter | undefined): KeywordIndexHit[] | undefined {
    if (!this.active()) return undefined;
    const live = this.current();
    if (!live) return undefined;
    const accept = this.log.acceptor(filter);
    const totals = this.log.ftsTotals();
    const options: KeywordSearchOptions = { ln: this.ln, totals, ...(accept ? { accept } : {}) };
    return live.index.search(query, limit, options);
  }

  /** With `waitForIndex`: waits until the index can answer the next find (a no-op otherwise). */
  async beforeFind(): Promise<void> {
    if (!this.options.waitForIndex || !this.active()) return;
    if (!this.current()) await this.settled();
  }

  /** The index brought up to date with the log, or undefined (and the background started) when it cannot be now. */
  private current(): Live | undefined {
    if (this.job) return undefined;
    const live = this.live;
    if (!live || live.index.broken /* a compaction's result not read back left it empty */) {
      this.start();
      return undefined;
    }
    const token = changeToken(this.conn);
    if (token === this.checkedAt) return live;
    // Another process wrote a newer file and pruned the log past this index: it is read again.
    if (live.highWater < this.log.floor() || this.log.backlog(live.highWater) > QUICK_BACKLOG) {
      this.start();
      return undefined;
    }
    this.catchUp(live, Number.POSITIVE_INFINITY);
    this.checkedAt = token;
    if (live.unsaved >= this.saveAfter) this.saveSoon(live);
    return live;
  }

  /** Replays up to `limit` log entries after the index's mark; the number of chunks applied. */
  private catchUp(live: Live, limit: number): number {
    const high = this.log.high();
    if (high <= live.highWater) return 0;
    const { last, through } = this.log.touched(live.highWater, high, Math.min(limit, 1 << 30));
    for (const seq of last.keys()) apply(live, seq, null);
    for (const row of this.log.rowsOf(last, this.written)) apply(live, row.seq, row);
    live.highWater = through;
    this.written.dropThrough(through);
    live.unsaved += last.size;
    return last.size;
  }

  private warn(message: string): void {
    if (this.warned.has(message)) return;
    this.warned.add(message);
    (this.options.warn ?? ((m) => process.stderr.write(`docdb: warning: ${m}\n`)))(message);
  }

  /** Starts loading, building or catching up in the background (once). */
  private start(): void {
    this.job ??= (async () => {
      try {
        await this.prepare();
      } catch (error) {
        this.live = undefined;
        this.warn(`the keyword index ${this.file} could not be prepared (keyword finds use FTS5): ${(error as Error).message}`);
      } finally {
        this.job = undefined;
      }
    })();
  }

  private async prepare(): Promise<void> {
    let live = this.live;
    this.live = undefined;
    let built = false;
    for (let attempt = 0; attempt < 3; attempt++) {
      if (!live || live.index.broken || !this.canCatchUp(live)) {
        live?.index.close();
        const loaded = await this.load();
        if (loaded && !this.canCatchUp(loaded)) loaded.index.close();
        live = loaded && this.canCatchUp(loaded) ? loaded : await this.build();
        built = live !== loaded;
      }
      // Catch up in steps, the event loop running between them, until a query can do the rest.
      while (live.highWater >= this.log.floor() && this.log.backlog(live.highWater) > QUICK_BACKLOG) {
        this.catchUp(live, CATCH_UP_BATCH);
        await yieldToEventLoop();
      }
      // Another process pruned the log past this index meanwhile: its newer file is read.
      if (live.highWater >= this.log.floor()) break;
      live.index.close();
      live = undefined;
    }
    if (!live) return;
    // V8 compiles the search loops before the first find, not during it (warm.ts); not for a store closing.
    await warmUpOnce(live.index, () => yieldToEventLoop(!this.closing));
    this.checkedAt = undefined;
    this.live = live;
    // A new index is written at once (the next open loads it); one caught up, after many changes.
    await this.saving;
    if (built || live.unsaved >= this.saveAfter) await this.save(live, true);
  }

  /** Whether replaying the log is the way to bring this index up to date (not pruned past it, not far behind). */
  private canCatchUp(live: Live): boolean {
    return live.highWater >= this.log.floor() && this.log.backlog(live.highWater) <= Math.max(REBUILD_BACKLOG, live.index.rows);
  }

  /** The stored index when usable; a damaged file is set aside (with a warning). */
  private async load(): Promise<Live | undefined> {
    const found = await this.files.load();
    if (found && "index" in found) {
      const { checksum, highWater } = found.header;
      const live = newLive(found.index, highWater, 0, { checksum, highWater });
      // The rows changed since the file was written, from its delta file (the log replays the rest).
      await this.saver.applyDelta(live);
      return live;
    }
    if (found && "damage" in found) {
      try {
        const note = await this.files.setAside(found.damage, found.seen);
        if (note) {
          this.warn(
            `the keyword index ${this.file} ${note.reason}: set aside as ${note.setAside}; keyword finds use FTS5 while it is built again`,
          );
        }
      } catch (error) {
        this.warn(
          `the keyword index ${this.file} ${found.damage}, and it could not be moved aside (${(error as Error).message}); it is built again and written over`,
        );
      }
    }
    return undefined;
  }

  /** A new index from every chunk's keyword row, read batch by batch; later changes come from the log. */
  private async build(): Promise<Live> {
    // Changes after this mark are replayed afterwards (idempotent), so batches need no snapshot.
    const highWater = this.log.high();
    const index = KeywordIndex.empty();
    // Rows this process's writes analysed, when still their chunk's row as of the mark, are not analysed again.
    const last = this.written.size > 0 ? this.log.lastEntries(this.written.seqs(), highWater) : undefined;
    const kept =
      last &&
      ((seq: number) => {
        const id = last.get(seq);
        return id === undefined ? undefined : this.written.peek(seq, id);
      });
    this.building = true;
    try {
      for (let after = 0; ; ) {
        const rows = this.log.rowsAfter(after, BUILD_BATCH, kept);
        if (rows.length === 0) break;
        for (const row of rows) index.add(row);
        after = (rows[rows.length - 1] as { seq: number }).seq;
        await yieldToEventLoop();
      }
    } finally {
      this.building = false;
    }
    return newLive(index, highWater, Math.max(1, index.rows));
  }

  /** Saves a delta record, or a compacted file when the delta grew large (or `compact`), or when there is no file yet. */
  private async save(
    live: Live,
    wait: boolean,
    compact = this.saver.wantsCompaction(live, this.saveAfter, this.options.compactAfterChanges),
  ): Promise<void> {
    const unsaved = live.unsaved;
    try {
      if (await this.saver.save(live, { wait, compact })) live.unsaved -= unsaved;
    } catch (error) {
      this.warn(`the keyword index ${this.file} could not be written (it is built or caught up next time): ${(error as Error).message}`);
    }
  }

  /** Writes the file without holding up the query that asked (written later when the write lock is busy). */
  private saveSoon(live: Live): void {
    this.saving ??= this.save(live, false).finally(() => {
      this.saving = undefined;
    });
  }

  /** Resolves when no load, build, catch-up or save runs in the background (tests, benchmarks). */
  async settled(): Promise<void> {
    while (this.job || this.saving) {
      await this.job;
      await this.saving;
    }
  }

  /**
   * Builds the index again from every chunk and writes it (`docdb index rebuild`), waiting for it;
   * nothing below the threshold. Finds meanwhile use the index in memory or FTS5, as before.
   */
  async rebuild(): Promise<void> {
    await this.settled();
    if (!this.active()) return;
    const live = await this.build();
    this.catchUp(live, Number.POSITIVE_INFINITY);
    this.live?.index.close();
    this.live = live;
    this.checkedAt = undefined;
    await this.save(live, true);
  }

  /** On close: finishes a background job and writes what was applied since the file was. */
  async flush(): Promise<void> {
    this.closing = true;
    if (this.building) {
      this.warn(`finishing the keyword index ${this.file} (${this.chunks()} chunks) before closing; done once, later opens load it`);
    }
    await this.job;
    await this.saving;
    const live = this.live;
    if (!live) return;
    if (live.highWater >= this.log.floor()) this.catchUp(live, Number.POSITIVE_INFINITY);
    // A delta record when the file exists (a compaction waits for the next time).
    if (live.unsaved > 0) await this.save(live, false, live.base === undefined);
    // The store is closing: the file its positions are read from is closed too.
    live.index.close();
    this.live = undefined;
    this.written.clear();
  }

  /** After the keyword rows were refilled (analyser change): the index in memory is dropped. */
  reset(): void {
    this.written.clear();
    this.live?.index.close();
    this.live = undefined;
    this.checkedAt = undefined;
  }

  /** Removes the file (the database is dropped). */
  removeFile(): void {
    this.written.clear();
    this.live?.index.close();
    this.live = undefined;
    this.files.remove();
    this.saver.delta.remove();
  }

  /** What `docdb index status` shows of the keyword index. */
  status(): KeywordIndexStatus {
    const parts = { files: this.files, delta: this.saver.delta, log: this.log };
    return keywordStatus({ ...parts, chunks: this.chunks(), threshold: this.threshold, live: this.live, busy: this.job !== undefined });
  }
}
