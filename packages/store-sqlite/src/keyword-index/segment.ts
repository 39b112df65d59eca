// The compacted part of the keyword index: rows in seq order and, per term, postings in blocks of
// BLOCK (per block: varint slot gaps, then per-column counts; positions apart), with each block's score bounds.
import type { PositionFile } from "./positions.js";

/** Postings per block. */
export const BLOCK = 128;

/** The compacted rows and postings, as saved (every array a view of one buffer once loaded). */
export interface Segment {
  /** Per row (slot), ascending. */
  seqs: Uint32Array;
  /** Per row: tokens in all columns. */
  sizes: Uint32Array;
  terms: string[];
  /** Per term: its first block (a last entry closes the list). */
  termBlock: Uint32Array;
  /** Per term: postings. */
  termCount: Uint32Array;
  /** Per block: its last slot, the largest weighted frequency and the smallest row size in it. */
  blockLast: Uint32Array;
  blockMaxFreq: Uint32Array;
  blockMinSize: Uint32Array;
  /** Per block: where its postings (slot gap, title count, body count) and positions start. */
  blockDoc: Uint32Array;
  blockPos: Uint32Array;
  docBytes: Uint8Array;
  /**
   * A compaction's postings written to its spill file rather than held in memory (docBytes then
   * empty): such a segment is written to the index file, then read from there (KeywordIndex.install).
   */
  docFile?: PositionFile | null;
  /** The positions, in memory; empty when they are left in the file (posFile). */
  posBytes: Uint8Array;
  posFile: PositionFile | null;
}

/** How many bytes of positions the segment has (in memory or in its file). */
export function positionsLength(seg: Segment): number {
  return seg.posFile ? seg.posFile.length : seg.posBytes.length;
}

/** How many bytes of postings (slot gaps and counts) the segment has (in memory or in a spill file). */
export function docLength(seg: Segment): number {
  return seg.docFile ? seg.docFile.length : seg.docBytes.length;
}

/** The segment with its postings in memory (read from its spill file, which is closed, when they are there). */
export function docsInMemory(seg: Segment): Segment {
  if (!seg.docFile) return seg;
  const docBytes = seg.docFile.all();
  seg.docFile.close();
  return { ...seg, docBytes, docFile: null };
}

/** The segment with its positions in memory (read from its file when they are there). */
export function positionsInMemory(seg: Segment): Segment {
  return seg.posFile ? { ...seg, posBytes: seg.posFile.all(), posFile: null } : seg;
}

export function emptySegment(): Segment {
  const none = new Uint32Array(0);
  return {
    seqs: none,
    sizes: none,
    terms: [],
    termBlock: new Uint32Array(1),
    termCount: none,
    blockLast: none,
    blockMaxFreq: none,
    blockMinSize: none,
    blockDoc: new Uint32Array(1),
    blockPos: new Uint32Array(1),
    docBytes: new Uint8Array(0),
    posBytes: new Uint8Array(0),
    posFile: null,
  };
}

/** A growable byte array of unsigned LEB128 varints. */
export class ByteWriter {
  bytes: Uint8Array;
  length = 0;
  /** `capacity`: bytes held from the start (a compaction's bound), so large writers are not copied as they grow. */
  constructor(capacity = 1024) {
    this.bytes = new Uint8Array(Math.max(1024, capacity));
  }
  varint(value: number): void {
    if (this.length + 5 > this.bytes.length) this.grow(5);
    let v = value;
    while (v >= 0x80) {
      this.bytes[this.length++] = (v & 0x7f) | 0x80;
      v >>>= 7;
    }
    this.bytes[this.length++] = v;
  }
  raw(source: Uint8Array, start: number, end: number): void {
    const n = end - start;
    if (this.length + n > this.bytes.length) this.grow(n);
    // A posting's few position bytes are copied in a loop: a subarray() and set() each cost more.
    if (n <= 64) {
      const bytes = this.bytes;
      const at = this.length - start;
      for (let i = start; i < end; i++) bytes[at + i] = source[i] as number;
    } else this.bytes.set(source.subarray(start, end), this.length);
    this.length += n;
  }
  private grow(need: number): void {
    const next = new Uint8Array(Math.max(this.bytes.length * 2, this.length + need));
    next.set(this.bytes.subarray(0, this.length));
    this.bytes = next;
  }
  /** The bytes written: a view when they fill most of the buffer (no copy of a large one), else a copy. */
  done(): Uint8Array {
    return this.length >= this.bytes.length * 0.75 ? this.bytes.subarray(0, this.length) : this.bytes.slice(0, this.length);
  }
}

/** A growable Uint32 array; `capacity`: values held from the start (a bound known ahead, so it is never copied). */
export class U32Writer {
  values: Uint32Array;
  length = 0;
  constructor(capacity = 256) {
    this.values = new Uint32Array(Math.max(16, capacity));
  }
  push(v: number): void {
    if (this.length === this.values.length) {
      const next = new Uint32Array(this.values.length * 2);
      next.set(this.values);
      this.values = next;
    }
    this.values[this.length++] = v;
  }
  /** The values pushed: a view when they fill nearly all of the array (no copy of a large one), else a copy. */
  done(): Uint32Array {
    const full = this.length >= this.values.length - (this.values.length >> 4);
    return full ? this.values.subarray(0, this.length) : this.values.slice(0, this.length);
  }
}

/** Skips `count` varints from `at`; returns the offset after them. */
export function skipVarints(bytes: Uint8Array, at: number, count: number): number {
  let p = at;
  for (let n = count; n > 0; p++) if ((bytes[p] as number) < 0x80) n--;
  return p;
}

/**
 * Past every slot: the largest small integer V8 keeps unboxed (2^30 - 1), so that a row variable
 * holding it or a slot never changes representation (which threw the ranking loop's optimised code
 * away on its first questions). An index holds fewer slots (KeywordIndex.add() checks).
 */
export const END = 2 ** 30 - 1;

/** Decoded block of one term's postings (slots, title and body counts, weighted frequencies). */
export class BlockBuffer {
  slots = new Int32Array(BLOCK);
  freqs = new Int32Array(BLOCK);
  titleCounts = new Int32Array(BLOCK);
  bodyCounts = new Int32Array(BLOCK);
  /** Offset of each posting's positions in posBytes, filled on demand. */
  posAt = new Int32Array(BLOCK);
  length = 0;

  /** Decodes a block's n postings: slots now, counts and positions on demand. */
  decode(seg: Segment, block: number, first: boolean, n: number): void {
    this.begin(seg, block, first, n);
    this.more(END);
  }

  /** Starts on a block, decoding nothing yet (see more()). */
  begin(seg: Segment, block: number, first: boolean, n: number): void {
    this.bytes = seg.docBytes;
    this.slotAt = seg.blockDoc[block] as number;
    this.prev = first ? 0 : (seg.blockLast[block - 1] as number);
    this.decoded = 0;
    this.length = n;
    this.countsReady = false;
    this.posDone = 0;
    this.posNext = seg.blockPos[block] as number;
    this.seg = seg;
    this.block = block;
  }
  private seg: Segment | null = null;
  private block = 0;
  /** The block after the term's last (set by a cursor; positions are read no further). */
  lastBlock = 0;
  private ahead = 0;

  /** The bytes holding the block's positions: `posView[p - posBase]` is byte p of the positions. */
  posView: Uint8Array = new Uint8Array(0);
  posBase = 0;
  private posEnd = -1;
  private posOf: Segment | null = null;
  private window: Uint8Array = new Uint8Array(0);

  private viewPositions(): void {
    const seg = this.seg as Segment;
    if (!seg.posFile) {
      this.posView = seg.posBytes;
      this.posBase = 0;
      return;
    }
    const start = seg.blockPos[this.block] as number;
    const end = seg.blockPos[this.block + 1] as number;
    if (this.posOf === seg && start >= this.posBase && end <= this.posEnd) return;
    // A cursor reading block after block reads further ahead each time (up to 64 KiB); one
    // jumping reads the block alone. Never past the term's last block.
    this.ahead = this.posOf === seg && start === this.posEnd ? Math.min(2 * this.ahead + 4096, 65536) : 0;
    const limit = this.lastBlock > this.block ? (seg.blockPos[this.lastBlock] as number) : end;
    const { bytes, length } = seg.posFile.read(this.window, start, end, this.ahead, limit);
    this.window = bytes;
    this.posView = bytes;
    this.posBase = start;
    this.posEnd = start + length;
    this.posOf = seg;
  }

  /** Slots decoded so far (from the block's start). */
  decoded = 0;
  private slotAt = 0;
  private prev = 0;

  /** Decodes slots up to the first at or past `target` (or the block's end); returns how many are decoded. */
  more(target: number): number {
    const bytes = this.bytes;
    const n = this.length;
    let p = this.slotAt;
    let slot = this.prev;
    let i = this.decoded;
    while (i < n) {
      let b = bytes[p++] as number;
      let gap = b & 0x7f;
      for (let shift = 7; b >= 0x80; shift += 7) {
        b = bytes[p++] as number;
        gap |= (b & 0x7f) << shift;
      }
      slot += gap;
      this.slots[i++] = slot;
      if (slot >= target) break;
    }
    this.slotAt = p;
    this.prev = slot;
    this.decoded = i;
    return i;
  }
  private countsReady = true;
  private bytes: Uint8Array = new Uint8Array(0);

  /** Decodes the block's title and body counts (after its slots), once. */
  counts(): void {
    if (this.countsReady) return;
    this.countsReady = true;
    if (this.decoded < this.length) this.more(END);
    const bytes = this.bytes;
    let p = this.slotAt;
    for (let i = 0; i < this.length; i++) {
      let t = bytes[p++] as number;
      if (t >= 0x80) {
        t &= 0x7f;
        for (let shift = 7, c = 0x80; c >= 0x80; shift += 7) {
          c = bytes[p++] as number;
          t |= (c & 0x7f) << shift;
        }
      }
      let c = bytes[p++] as number;
      if (c >= 0x80) {
        c &= 0x7f;
        for (let shift = 7, d = 0x80; d >= 0x80; shift += 7) {
          d = bytes[p++] as number;
          c |= (d & 0x7f) << shift;
        }
      }
      this.titleCounts[i] = t;
      this.bodyCounts[i] = c;
      this.freqs[i] = 2 * t + c;
    }
  }
  /** Postings whose positions offset is known, and the offset after the last of them. */
  private posDone = 0;
  private posNext = 0;

  /** Positions offsets for the decoded block's postings up to `last`. */
  positions(last: number): void {
    this.counts();
    this.viewPositions();
    const base = this.posBase;
    let p = this.posNext;
    for (let i = this.posDone; i <= last; i++) {
      this.posAt[i] = p;
      p = base + skipVarints(this.posView, p - base, (this.titleCounts[i] as number) + (this.bodyCounts[i] as number));
    }
    if (last >= this.posDone) {
      this.posDone = last + 1;
      this.posNext = p;
    }
  }
}

/** A copy of `array` in a new one of `length` elements (the rest zero), for arrays that grow. */
export function grown<T extends Int32Array | Uint8Array>(array: T, length: number): T {
  const copy = new (array.constructor as new (n: number) => T)(length);
  copy.set(array);
  return copy;
}
