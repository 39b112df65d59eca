// Saving the live keyword index: the changes since its file was written are appended to the delta
// file (a cost in proportion to the changes); now and then the index is compacted and the whole
// file written again, in steps (the event loop runs between them), off the finds' path.
import { closeSync, openSync, rmSync } from "node:fs";
import { setImmediate as yieldToEventLoop } from "node:timers/promises";
import type { Connection } from "../connection.js";
import { compactSteps, type IndexedRow, type KeywordIndex, positionsLength, type Segment } from "../keyword-index/index.js";
import { type ChangedRows, type DeltaBase, DeltaFile, rowsOf } from "./delta.js";
import type { KeywordFile } from "./file.js";
import { POSITIONS_IN_FILE } from "./file-read.js";
import type { KeywordLog } from "./log.js";

/** An index in memory with the log position it reflects, and what of it the files hold. */
export interface Live {
  index: KeywordIndex;
  highWater: number;
  /** Changes applied since the file (or its delta) was read or written. */
  unsaved: number;
  /** The index file this index extends (from when it was read or written); undefined before. */
  base?: DeltaBase;
  /** The log position the delta file reaches for this index. */
  deltaMark: number;
  /**
   * Chunks changed since the base (what the delta file holds, or will): their seqs only, the rows
   * being in the delta file, the log and the index already.
   */
  sinceBase: Set<number>;
  /** Changes not yet in the delta file. */
  pending: ChangedRows;
  /** Changes after the snapshot of a compaction under way (applied again to its result). */
  afterSnapshot?: ChangedRows;
}

export function newLive(index: KeywordIndex, highWater: number, unsaved: number, base?: DeltaBase): Live {
  return { index, highWater, unsaved, ...(base ? { base } : {}), deltaMark: highWater, sinceBase: new Set(), pending: new Map() };
}

/** Applies a chunk's new row (null: gone) and records it where the files and a compaction under way need it. */
export function apply(live: Live, seq: number, row: IndexedRow | null): void {
  if (row) live.index.add(row);
  else live.index.remove(seq);
  if (live.base) {
    live.sinceBase.add(seq);
    live.pending.set(seq, row);
  }
  live.afterSnapshot?.set(seq, row);
}

/**
 * The delta is folded into a new compacted file once it holds more changed rows than this share of
 * the index (1/32: at 1M chunks about 31,000 rows, some 50 MB of delta) and than twice the rows
 * saved at a time. Until then finds read those rows from the in-memory part of the index.
 */
const COMPACT_SHARE = 32;
/** Milliseconds of compaction between two turns of the event loop. */
const SLICE_MS = 8;

export class KeywordSaver {
  readonly delta: DeltaFile;

  constructor(
    private readonly conn: Connection,
    private readonly files: KeywordFile,
    private readonly log: KeywordLog,
    private readonly warn: (message: string) => void,
    /** Whether this is still the index in use (a compaction's result is taken only then). */
    private readonly inUse: (live: Live) => boolean,
    /** Positions of at least this many bytes stay in the file. */
    private readonly positionsInFileFrom: number,
    /** Postings a compaction step merges, yielding after each (tests); undefined: the default, 8 ms slices. */
    private readonly step?: number,
  ) {
    this.delta = new DeltaFile(files.file);
  }

  /** Whether the next save writes a compacted file rather than a delta record. */
  wantsCompaction(live: Live, saveAfter: number, after?: number): boolean {
    return !live.base || live.sinceBase.size >= (after ?? Math.max(2 * saveAfter, live.index.rows / COMPACT_SHARE));
  }

  /** The changes the delta file holds after the index file just loaded, applied to it. */
  async applyDelta(live: Live): Promise<void> {
    if (!live.base) return;
    const read = await this.delta.read(live.base, this.log.high());
    if (!read) return;
    let mark = live.base.highWater;
    let damaged = read.damaged;
    let n = 0;
    // A record at a time: its rows are dropped once applied (the index and the file hold them).
    for (const record of read.records) {
      const rows = rowsOf(record.payload);
      if (!rows) {
        damaged = true;
        break;
      }
      for (const [seq, row] of rows) {
        live.index.remove(seq);
        if (row) live.index.add(row);
        live.sinceBase.add(seq);
        if (++n % 500 === 0) await yieldToEventLoop();
      }
      mark = record.to;
    }
    if (damaged) {
      this.warn(`the keyword index delta ${this.delta.file} has a damaged record: the changes from there are read from the database`);
    }
    live.highWater = mark;
    live.deltaMark = mark;
  }

  /**
   * Saves what was applied: a delta record, or (`compact`, or when the delta has grown) a new
   * compacted file. True when the files now hold the index at `live.highWater` as of the call.
   */
  async save(live: Live, options: { wait: boolean; compact: boolean }): Promise<boolean> {
    // Emptied by a compaction's result that could not be read back: never written (see install()).
    if (live.index.broken) return false;
    if (live.base && !options.compact) {
      const appended = await this.append(live, options.wait);
      if (appended !== "compact instead") return appended === "saved";
    }
    return this.compactAndWrite(live, options.wait);
  }

  /**
   * Where a compaction writes its positions when they will stay in the file (the index's are at
   * least that large already): a temporary file beside the index, removed at once (it is read
   * through its descriptor, and nothing is left behind if the process dies), so a compaction does
   * not hold a second copy of them in memory (nor, in a second such file, of the postings).
   * Undefined: in memory.
   */
  private spill(positions: number, what: string): number | undefined {
    if (!POSITIONS_IN_FILE || positions < this.positionsInFileFrom) return undefined;
    const path = `${this.files.file}.tmp-${process.pid}-${Math.random().toString(36).slice(2, 8)}-${what}`;
    try {
      const fd = openSync(path, "w+");
      rmSync(path, { force: true });
      return fd;
    } catch {
      return undefined;
    }
  }

  /** Appends the pending changes to the delta file under the write lock. */
  private async append(live: Live, wait: boolean): Promise<"saved" | "busy" | "compact instead"> {
    const base = live.base as DeltaBase;
    let outcome: "saved" | "busy" | "compact instead" = "busy";
    const work = () => {
      // Another process wrote a newer index file: a delta of the old one would not be read.
      if (this.files.readHeader()?.checksum !== base.checksum) {
        outcome = "compact instead";
        return;
      }
      const to = live.highWater;
      // The file lacks changes this process no longer holds: a compacted file is written instead.
      if (!this.delta.append(base, live.deltaMark, to, live.pending)) {
        outcome = "compact instead";
        return;
      }
      live.pending = new Map();
      live.deltaMark = to;
      outcome = "saved";
    };
    if (wait) await this.conn.write(work);
    else this.conn.tryWrite(work);
    return outcome;
  }

  /**
   * Compacts a snapshot of the index in steps while finds go on, writes it as the new file, and
   * takes the result as the index in memory, with the changes applied since the snapshot.
   */
  private async compactAndWrite(live: Live, wait: boolean): Promise<boolean> {
    const mark = live.highWater;
    const snapshot = live.index.snapshot();
    // Positions and postings both spilled (or neither), so the result holds neither in memory.
    const spill = this.spill(positionsLength(snapshot.seg), "positions");
    const steps = compactSteps(
      snapshot,
      this.step,
      spill,
      spill === undefined ? undefined : this.spill(positionsLength(snapshot.seg), "postings"),
    );
    live.afterSnapshot = new Map();
    const slice = this.step === undefined ? SLICE_MS : 0;
    let seg: Segment;
    try {
      let until = performance.now() + slice;
      let next = steps.next();
      while (!next.done) {
        if (performance.now() >= until) {
          await yieldToEventLoop();
          until = performance.now() + slice;
        }
        next = steps.next();
      }
      seg = next.value;
    } catch (error) {
      live.afterSnapshot = undefined;
      throw error;
    }
    let adopted = false;
    const adopt = (fd?: number, bodyAt = 0): void => {
      if (!this.inUse(live)) {
        if (fd !== undefined) closeSync(fd);
        return;
      }
      adopted = true;
      if (fd === undefined) live.index.adopt(seg);
      else {
        // Read back from the file just written, into the buffer the index uses when it fits.
        try {
          live.index.install(fd, bodyAt, seg);
        } catch (error) {
          // The index, unless broken (then read again from the file: FTS5 answers meanwhile), holds every row still.
          this.warn(`the keyword index ${this.files.file} could not be read back after a compaction: ${(error as Error).message}`);
          return;
        }
      }
      for (const [seq, row] of live.afterSnapshot ?? []) {
        live.index.remove(seq);
        if (row) live.index.add(row);
      }
    };
    try {
      const installed = await this.files.save(seg, mark, { wait }, ({ fd, bodyAt, checksum }) => {
        adopt(fd, bodyAt);
        // The delta extended the file just replaced: it goes too. Changes since the snapshot start the next.
        this.delta.remove();
        const since = live.afterSnapshot ?? new Map();
        live.base = { checksum, highWater: mark };
        live.deltaMark = mark;
        live.sinceBase = new Set(since.keys());
        live.pending = new Map(since);
      });
      // Not written (another process holds the lock or wrote a newer file): the compacted rows are
      // still taken, but for positions that belong in a file, which stay where they are.
      if (!adopted && positionsLength(seg) < this.positionsInFileFrom) adopt();
      if (!adopted) seg.posFile?.close();
      if (!adopted) seg.docFile?.close();
      return installed;
    } finally {
      live.afterSnapshot = undefined;
    }
  }
}
