// The keyword rows this process's writes gave FTS5, kept (bounded) after their transaction commits
// so that the live keyword index's catch-up takes them instead of analysing the chunk text again.
import type { IndexedRow } from "../keyword-index/index.js";

/** A keyword row a committed write gave FTS5, with the keyword_log entry its chunk insert made. */
export interface WrittenRow extends IndexedRow {
  logId: number;
}

/** Where writeDocuments hands the keyword rows of a committed write (write.ts). */
export interface WrittenRowsSink {
  /** Whether rows of a write whose last chunk got `lastSeq` are worth keeping (the index may use them). */
  wants(lastSeq: number): boolean;
  /** Rows of a write that committed (never called for one that rolled back: seqs and log ids are reused then). */
  committed(rows: WrittenRow[]): void;
}

/**
 * Characters of keyword rows kept at most (title and body strings; about 40,000 chunks of 600
 * characters, 48 MB at most): older rows are dropped first, and a dropped row is analysed again.
 */
export const WRITTEN_ROWS_CHARS = 24_000_000;

/** Rows kept by chunk seq, oldest first; the catch-up takes those still current and drops the rest. */
export class WrittenRows {
  private readonly rows = new Map<number, WrittenRow>();
  private chars = 0;

  constructor(private readonly maxChars = WRITTEN_ROWS_CHARS) {}

  get size(): number {
    return this.rows.size;
  }

  add(rows: WrittenRow[]): void {
    for (const row of rows) {
      this.drop(row.seq);
      this.rows.set(row.seq, row);
      this.chars += row.title.length + row.body.length;
    }
    for (const seq of this.rows.keys()) {
      if (this.chars <= this.maxChars) break;
      this.drop(seq);
    }
  }

  /**
   * The row kept for `seq` if it is still the chunk's keyword row: its log entry is the chunk's
   * last one up to the point replayed (`lastLogId`); a later entry (a title change, a delete, a
   * refill) means FTS5 got something else since. Taken or not, the kept row is dropped.
   */
  take(seq: number, lastLogId: number): IndexedRow | undefined {
    const row = this.rows.get(seq);
    if (!row) return undefined;
    this.drop(seq);
    return row.logId === lastLogId ? { seq: row.seq, title: row.title, body: row.body } : undefined;
  }

  /** The seqs of the rows kept. */
  seqs(): number[] {
    return [...this.rows.keys()];
  }

  /** The row kept for `seq` when it is still the chunk's keyword row (see take()), left kept. */
  peek(seq: number, lastLogId: number): IndexedRow | undefined {
    const row = this.rows.get(seq);
    return row && row.logId === lastLogId ? { seq: row.seq, title: row.title, body: row.body } : undefined;
  }

  /** Drops rows whose log entry the index has passed (a catch-up that ran before they were kept). */
  dropThrough(logId: number): void {
    for (const [seq, row] of this.rows) {
      if (row.logId > logId) break;
      this.drop(seq);
    }
  }

  clear(): void {
    this.rows.clear();
    this.chars = 0;
  }

  private drop(seq: number): void {
    const row = this.rows.get(seq);
    if (!row) return;
    this.rows.delete(seq);
    this.chars -= row.title.length + row.body.length;
  }
}
