// KeywordIndex: an in-memory mirror of FTS5's chunks_fts (postings with positions per column, row
// sizes, statistics) answering keyword top-k as keyword.ts does over FTS5, with pruning.

import type { KeywordQuery } from "@docdb/analyzer";
import { AddedPostings } from "./added.js";
import { type CompactInput, compact } from "./compact.js";
import { Cursor, END, type Tail } from "./cursor.js";
import { segmentFromBuffer, segmentToBuffer } from "./format.js";
import { readWritten } from "./install.js";
import type { PositionFile } from "./positions.js";
import { type KeywordIndexHit, type KeywordSearchOptions, searchIndex } from "./search.js";
import { BLOCK, BlockBuffer, docsInMemory, emptySegment, positionsLength, type Segment } from "./segment.js";
import { TermIds } from "./term-ids.js";

export { COMPACT_READ_WINDOW, type CompactInput, compactSteps } from "./compact.js";
export { KeywordIndexFormatError, positionsSection, SEGMENT_HEADER, segmentParts } from "./format.js";
export { roomy } from "./install.js";
export { PositionFile } from "./positions.js";
export type { KeywordIndexHit, KeywordSearchOptions } from "./search.js";
export { positionsLength, type Segment } from "./segment.js";
export { tokenize } from "./tokenize.js";

/** One chunks_fts row: the exact strings given to its title and body columns. */
export interface IndexedRow {
  seq: number;
  title: string;
  body: string;
}

const MAX_SEQ = 0xffffffff;

export class KeywordIndex {
  private seg: Segment = emptySegment();
  /** Term ids: the segment's terms, then those first seen since the last compaction (`added`). */
  private termIds = new TermIds([]);
  /** The added rows' postings (the in-memory delta). */
  private added = new AddedPostings();
  private deltaSeqs: number[] = [];
  private deltaSizes: number[] = [];
  private deltaSlot = new Map<number, number>();
  /** A row's term ids, token by token (scratch for add()). */
  private rowIds = new Int32Array(256);
  /** Per slot (segment rows, then added rows): 1 when removed. */
  private dead = new Uint8Array(64);
  private removedInSegment = 0;
  /** Rows removed since the last compaction (none: cursors need not look at \`dead\`). */
  private removedRows = 0;
  private liveRows = 0;
  private liveTokens = 0;
  /** Per term: how many of its segment postings are removed rows (valid while `removedInSegment` is unchanged). */
  private removedCache = new Map<number, number>();
  private removedCacheAt = 0;

  static empty(): KeywordIndex {
    return new KeywordIndex();
  }

  /**
   * The index the bytes hold; with `positions`, the bytes lack its positions, which stay in the file
   * (see segmentFromBuffer). `own`: the bytes' whole buffer is the index's, for install() to reuse.
   */
  static fromBuffer(bytes: Uint8Array, positions?: PositionFile, own = false): KeywordIndex {
    const index = new KeywordIndex();
    index.load(segmentFromBuffer(bytes, positions));
    if (own && bytes.byteOffset === 0) index.buffer = bytes.buffer as ArrayBuffer;
    return index;
  }

  /** The buffer the compacted part is viewed in when read from a file (install() reuses it when it fits). */
  buffer: ArrayBuffer | null = null;

  /** Closes the file its positions are read from, if any (the index must not be searched after). */
  close(): void {
    this.seg.posFile?.close();
  }

  /** Changes whenever postings are merged (compaction, loading). */
  generation = 0;
  private static generations = 0;
  /** Changes whenever a row is added or removed (or postings merged): cached phrase matches are then stale. */
  version = 0;

  private load(seg: Segment): void {
    if (this.seg.posFile && this.seg.posFile !== seg.posFile) this.seg.posFile.close();
    this.generation = ++KeywordIndex.generations;
    this.version = this.generation;
    this.seg = seg;
    this.termIds = new TermIds(seg.terms);
    this.added = new AddedPostings();
    this.deltaSeqs = [];
    this.deltaSizes = [];
    this.deltaSlot = new Map();
    this.dead = new Uint8Array(seg.seqs.length + 1024);
    this.removedInSegment = 0;
    this.removedRows = 0;
    this.removedCache.clear();
    this.liveRows = seg.seqs.length;
    let tokens = 0;
    for (let i = 0; i < seg.sizes.length; i++) tokens += seg.sizes[i] as number;
    this.liveTokens = tokens;
    let postings = 0;
    for (let i = 0; i < seg.termCount.length; i++) postings += seg.termCount[i] as number;
    this.segmentPostings = postings;
  }
  private segmentPostings = 0;

  /** Removed rows dropped, added rows merged in seq order. */
  compact(): void {
    if (this.deltaSeqs.length === 0 && this.removedInSegment === 0) return;
    this.load(
      compact({
        seg: this.seg,
        terms: [...this.seg.terms, ...this.termIds.added],
        delta: this.added.view(),
        deltaSeqs: this.deltaSeqs,
        deltaSizes: this.deltaSizes,
        dead: this.dead,
      }),
    );
  }

  /**
   * What compaction needs to merge the rows held now (compactSteps), left as it is by later adds
   * and removes: a compaction can run in steps while the index keeps changing.
   */
  snapshot(): CompactInput {
    const slots = this.slots;
    return {
      seg: this.seg,
      terms: [...this.seg.terms, ...this.termIds.added],
      delta: this.added.view(),
      deltaSeqs: this.deltaSeqs,
      deltaSizes: this.deltaSizes,
      dead: this.dead.slice(0, slots),
      slots,
    };
  }

  /**
   * Takes a snapshot's compacted segment as its own (the rows added and removed since are dropped:
   * the caller applies them again). Postings in a spill file are read into memory.
   */
  adopt(seg: Segment): void {
    this.load(docsInMemory(seg));
    this.buffer = null;
  }

  /** Compacted (removed rows dropped, added rows merged), ready to write to a file. */
  toBuffer(): Uint8Array {
    this.compact();
    return segmentToBuffer(this.seg);
  }

  /**
   * Like adopt(), for the segment `written` just written to a file (`fd`, taken; body at `offset`):
   * read back from there (readWritten: into this index's buffer when it fits; positions left in the
   * file); its spill files closed. Throws when the file cannot be read; `broken` if the index was overwritten.
   */
  install(fd: number, offset: number, written?: Segment): void {
    try {
      const seg = readWritten(fd, offset, this.buffer, written?.terms, () => {
        // The segment served is overwritten from here: until the new one is in, the index is empty.
        this.load(emptySegment());
        this.buffer = null;
        this.broken = true;
      });
      this.load(seg);
      this.buffer = seg.seqs.buffer as ArrayBuffer;
      this.broken = false;
    } finally {
      written?.docFile?.close();
      written?.posFile?.close();
    }
  }
  /** A failed install() overwrote part of the index: it must not serve. */
  broken = false;

  get rows(): number {
    return this.liveRows;
  }
  get tokens(): number {
    return this.liveTokens;
  }

  /** The segment slot of a seq, or -1. */
  private segmentSlot(seq: number): number {
    const seqs = this.seg.seqs;
    let lo = 0;
    let hi = seqs.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      const s = seqs[mid] as number;
      if (s < seq) lo = mid + 1;
      else if (s > seq) hi = mid - 1;
      else return mid;
    }
    return -1;
  }

  private liveSlot(seq: number): number {
    const added = this.deltaSlot.get(seq);
    if (added !== undefined) return added;
    const slot = this.segmentSlot(seq);
    return slot >= 0 && this.dead[slot] === 0 ? slot : -1;
  }

  has(seq: number): boolean {
    return this.liveSlot(seq) >= 0;
  }

  get compactedSizes(): Uint32Array {
    return this.seg.sizes;
  }
  sizeOf = (slot: number): number => {
    const base = this.seg.seqs.length;
    return slot < base ? (this.seg.sizes[slot] as number) : (this.deltaSizes[slot - base] as number);
  };
  seqOf = (slot: number): number => {
    const base = this.seg.seqs.length;
    return slot < base ? (this.seg.seqs[slot] as number) : (this.deltaSeqs[slot - base] as number);
  };

  /** Adds a row, or replaces the row with that seq. */
  add(row: IndexedRow): void {
    const { seq } = row;
    if (!Number.isInteger(seq) || seq < 0 || seq > MAX_SEQ) {
      throw new RangeError(`keyword index: row seq ${seq} is not an integer from 0 to ${MAX_SEQ}`);
    }
    this.remove(seq);
    this.version = ++KeywordIndex.generations;
    const slot = this.seg.seqs.length + this.deltaSeqs.length;
    if (slot >= END) throw new RangeError(`keyword index: full at ${END} rows (compact it, or rebuild it)`);
    // Room for a token per character and one more per column (a bound, not a count).
    const room = row.title.length + row.body.length + 2;
    if (room > this.rowIds.length) this.rowIds = new Int32Array(Math.max(room, 2 * this.rowIds.length));
    const titles = this.termIds.ids(row.title, this.rowIds, 0);
    const tokens = titles + this.termIds.ids(row.body, this.rowIds, titles);
    this.added.addRow(slot, this.rowIds, titles, tokens);
    this.deltaSeqs.push(seq);
    this.deltaSizes.push(tokens);
    this.deltaSlot.set(seq, slot);
    if (slot >= this.dead.length) {
      const next = new Uint8Array(Math.max(2 * this.dead.length, slot + 1024));
      next.set(this.dead);
      this.dead = next;
    }
    this.liveRows++;
    this.liveTokens += tokens;
    if (this.added.postings > Math.max(1_000_000, this.segmentPostings)) this.compact();
  }

  /** Removes a row; false when it was not there. */
  remove(seq: number): boolean {
    const slot = this.liveSlot(seq);
    if (slot < 0) return false;
    this.version = ++KeywordIndex.generations;
    this.dead[slot] = 1;
    this.removedRows++;
    this.deltaSlot.delete(seq);
    if (slot < this.seg.seqs.length) this.removedInSegment++;
    this.liveRows--;
    this.liveTokens -= this.sizeOf(slot);
    if (this.removedInSegment > 1024 + this.seg.seqs.length / 4) this.compact();
    return true;
  }

  /** Rows holding the term (one FTS5 token). */
  df(term: string): number {
    const id = this.termIds.get(term);
    if (id < 0) return 0;
    let n = 0;
    if (id < this.seg.terms.length) n += (this.seg.termCount[id] as number) - this.removedIn(id);
    return n + this.added.live(id, this.removedRows === 0 ? null : this.dead);
  }

  /**
   * Up to n compacted terms (none before the first compaction) with `least` to `most` postings, in
   * term order, else the n with the most postings: what warmUp() searches for.
   */
  termsHeld(least: number, most: number, n: number): string[] {
    const { terms, termCount } = this.seg;
    const inRange: string[] = [];
    for (let id = 0; id < terms.length && inRange.length < n; id++) {
      const count = termCount[id] as number;
      if (count >= least && count <= most) inRange.push(terms[id] as string);
    }
    if (inRange.length >= n) return inRange;
    // The n largest, in one pass (a sort of every term would cost seconds at millions of terms).
    const best: number[] = [];
    for (let id = 0; id < terms.length; id++) {
      const count = termCount[id] as number;
      if (best.length === n && count <= (termCount[best[n - 1] as number] as number)) continue;
      let at = Math.min(best.length, n - 1);
      best[at] = id;
      while (at > 0 && (termCount[best[at - 1] as number] as number) < count) {
        best[at] = best[at - 1] as number;
        best[--at] = id;
      }
    }
    return best.map((id) => terms[id] as string);
  }

  /** How many of a segment term's postings are removed rows. */
  private removedIn(id: number): number {
    if (this.removedInSegment === 0) return 0;
    if (this.removedCacheAt !== this.removedInSegment) {
      this.removedCache.clear();
      this.removedCacheAt = this.removedInSegment;
    }
    const cached = this.removedCache.get(id);
    if (cached !== undefined) return cached;
    const buf = new BlockBuffer();
    const first = this.seg.termBlock[id] as number;
    const count = this.seg.termCount[id] as number;
    let n = 0;
    for (let k = 0; k * BLOCK < count; k++) {
      const m = Math.min(BLOCK, count - k * BLOCK);
      buf.decode(this.seg, first + k, k === 0, m);
      for (let i = 0; i < m; i++) n += this.dead[buf.slots[i] as number] as number;
    }
    this.removedCache.set(id, n);
    return n;
  }

  /** A cursor over a term's postings, or null when no row ever held it. */
  cursor(term: string): Cursor | null {
    const id = this.termIds.get(term);
    if (id < 0) return null;
    const inSegment = id < this.seg.terms.length;
    let tail: Tail | null = null;
    if (this.added.countOf(id) > 0) {
      const bytes = this.added.arena;
      const list = this.added.list(id, END);
      const freqs = new Int32Array(list.length);
      for (let i = 0; i < list.length; i++) freqs[i] = 2 * (list.titles[i] as number) + (list.bodies[i] as number);
      tail = { slots: list.slots, freqs, titles: list.titles, at: list.at, bytes };
    }
    const cursor = new Cursor(
      this.seg,
      inSegment ? (this.seg.termBlock[id] as number) : 0,
      inSegment ? (this.seg.termCount[id] as number) : 0,
      tail,
      this.removedRows === 0 ? null : this.dead,
      this.sizeOf,
    );
    if (!tail) cursor.term = term;
    return cursor;
  }

  /** A cursor over computed postings (a phrase's matches). */
  listCursor(tail: Tail): Cursor {
    return new Cursor(this.seg, 0, 0, tail, this.removedRows === 0 ? null : this.dead, this.sizeOf);
  }

  /** All slots so far (removed ones included). */
  get slots(): number {
    return this.seg.seqs.length + this.deltaSeqs.length;
  }

  /** The same answer as keywordSearch() in keyword.ts over FTS5 holding the same rows (ids, order, scores). */
  search(query: KeywordQuery, limit: number, options: KeywordSearchOptions): KeywordIndexHit[] {
    return searchIndex(this, query, limit, options);
  }

  /** Bytes held by the compacted postings (for reports). */
  get postingBytes(): number {
    const s = this.seg;
    return s.docBytes.length + positionsLength(s) + 4 * (5 * s.blockLast.length + 2 * s.termCount.length);
  }
  /** Bytes of the compacted postings' positions (in memory or in a file). */
  get positionBytes(): number {
    return positionsLength(this.seg);
  }
  /** Whether the compacted postings' positions are read from a file (not held in memory). */
  get positionsInFile(): boolean {
    return this.seg.posFile !== null;
  }
  get postings(): number {
    return this.segmentPostings + this.added.postings;
  }
  /** Bytes held for the added rows' postings (the in-memory delta; see AddedPostings). */
  get addedBytes(): number {
    return this.added.heldBytes;
  }
}
