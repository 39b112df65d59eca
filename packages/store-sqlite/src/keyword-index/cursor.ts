// A cursor over one posting list: a term's compacted blocks then its rows added since (the tail),
// or a computed list (a phrase's matches). Skips removed rows; gives block bounds for pruning.
import { BLOCK, BlockBuffer, END, type Segment } from "./segment.js";

export { END } from "./segment.js";

/** Postings held outside the segment, in slot order: positions only for a term's added rows. */
export interface Tail {
  slots: Int32Array;
  freqs: Int32Array;
  /**
   * A term's added rows: per posting its title hits, and where its positions start in `bytes` (as
   * the segment keeps them: varint gaps from 0, title hits then body hits; see AddedPostings).
   */
  titles?: Int32Array;
  at?: Int32Array;
  bytes?: Uint8Array;
}

export class Cursor {
  slot = -1;
  /** The sequence's idf, set by the search. */
  idf = 0;
  readonly blocks: number;
  private readonly baseBlocks: number;
  private b = -1;
  /** Entries of `slots` decoded (from the loaded block's start). */
  private ready = 0;
  private i = 0;
  private n = 0;
  private slots: Int32Array;
  private freqs: Int32Array;
  private buf: BlockBuffer | null = null;
  private readonly tailLast: Int32Array;
  /** The tail blocks' score bounds, computed when first asked for (a phrase's bonus never asks). */
  private tailMaxFreq: Int32Array | null = null;
  private tailMinSize: Int32Array | null = null;

  constructor(
    private readonly seg: Segment,
    private readonly firstBlock: number,
    private readonly baseCount: number,
    private readonly tail: Tail | null,
    /** Per slot: 1 when removed; null when no row is. */
    private readonly dead: Uint8Array | null,
    private readonly sizeOf: (slot: number) => number,
  ) {
    this.baseBlocks = Math.ceil(baseCount / BLOCK);
    const tailLength = tail ? tail.slots.length : 0;
    const tailBlocks = Math.ceil(tailLength / BLOCK);
    this.tailLast = new Int32Array(tailBlocks);
    for (let k = 0; k < tailBlocks && tail; k++) this.tailLast[k] = tail.slots[Math.min(tailLength, (k + 1) * BLOCK) - 1] as number;
    this.blocks = this.baseBlocks + tailBlocks;
    this.slots = this.tailLast;
    this.freqs = this.tailLast;
  }

  private tailBounds(): void {
    const tail = this.tail as Tail;
    const tailLength = tail.slots.length;
    const tailBlocks = this.tailLast.length;
    const maxFreqs = new Int32Array(tailBlocks);
    const minSizes = new Int32Array(tailBlocks);
    for (let k = 0; k < tailBlocks; k++) {
      const end = Math.min(tailLength, (k + 1) * BLOCK);
      let maxFreq = 0;
      let minSize = 0x7fffffff;
      for (let j = k * BLOCK; j < end; j++) {
        maxFreq = Math.max(maxFreq, tail.freqs[j] as number);
        minSize = Math.min(minSize, this.sizeOf(tail.slots[j] as number));
      }
      maxFreqs[k] = maxFreq;
      minSizes[k] = minSize;
    }
    this.tailMaxFreq = maxFreqs;
    this.tailMinSize = minSizes;
  }

  /** The current posting's weighted frequency (2 × title hits + body hits). */
  get freq(): number {
    if (this.b < this.baseBlocks) (this.buf as BlockBuffer).counts();
    return this.freqs[this.i] as number;
  }

  /** The term, when the postings are a term's without added rows (their bounds may be cached). */
  term: string | null = null;

  /** The block the cursor is in. */
  get block(): number {
    return this.b;
  }

  /** Set by the search: the block bound's inputs. */
  avgdl = 1;
  private boundK = -1;
  private boundV = 0;
  /** The largest score a posting of block k can have (FTS5's bm25 formula at the block's largest frequency and smallest row). */
  bound(k: number): number {
    if (k === this.boundK) return this.boundV;
    const f = this.blockMaxFreq(k);
    const v = this.idf * ((f * (1.2 + 1.0)) / (f + 1.2 * (1 - 0.75 + (0.75 * this.blockMinSize(k)) / this.avgdl)));
    this.boundK = k;
    this.boundV = v;
    return v;
  }

  /** Postings, removed rows included. */
  get count(): number {
    return this.baseCount + (this.tail ? this.tail.slots.length : 0);
  }

  blockLast(k: number): number {
    return k < this.baseBlocks ? (this.seg.blockLast[this.firstBlock + k] as number) : (this.tailLast[k - this.baseBlocks] as number);
  }
  blockMaxFreq(k: number): number {
    if (k < this.baseBlocks) return this.seg.blockMaxFreq[this.firstBlock + k] as number;
    if (this.tailMaxFreq === null) this.tailBounds();
    return (this.tailMaxFreq as Int32Array)[k - this.baseBlocks] as number;
  }
  blockMinSize(k: number): number {
    if (k < this.baseBlocks) return this.seg.blockMinSize[this.firstBlock + k] as number;
    if (this.tailMinSize === null) this.tailBounds();
    return (this.tailMinSize as Int32Array)[k - this.baseBlocks] as number;
  }

  /** The loaded block's last slot. */
  private last = -1;

  private load(k: number): void {
    this.b = k;
    this.last = this.blockLast(k);
    if (k < this.baseBlocks) {
      if (this.buf === null) {
        this.buf = new BlockBuffer();
        this.buf.lastBlock = this.firstBlock + this.baseBlocks;
      }
      const buf = this.buf;
      const n = Math.min(BLOCK, this.baseCount - k * BLOCK);
      buf.begin(this.seg, this.firstBlock + k, k === 0, n);
      this.slots = buf.slots;
      this.freqs = buf.freqs;
      this.i = 0;
      this.n = n;
      this.ready = 0;
    } else {
      const tail = this.tail as Tail;
      const t = k - this.baseBlocks;
      this.slots = tail.slots;
      this.freqs = tail.freqs;
      this.i = t * BLOCK;
      this.n = Math.min(tail.slots.length, (t + 1) * BLOCK);
      this.ready = this.n;
    }
  }

  /** Settles on the first live posting from index i of the loaded block on. */
  private settle(): void {
    for (;;) {
      while (this.i < this.n) {
        if (this.i >= this.ready) this.ready = (this.buf as BlockBuffer).more(END);
        const s = this.slots[this.i] as number;
        if (this.dead === null || this.dead[s] === 0) {
          this.slot = s;
          return;
        }
        this.i++;
      }
      if (this.b + 1 >= this.blocks) {
        this.slot = END;
        this.b = this.blocks;
        return;
      }
      this.load(this.b + 1);
    }
  }

  /** The first posting. */
  start(): void {
    if (this.blocks === 0) {
      this.slot = END;
      return;
    }
    this.load(0);
    this.settle();
  }

  next(): void {
    if (this.slot === END) return;
    const i = ++this.i;
    // Mostly the next posting is decoded and live.
    if (i < this.ready && this.dead === null) this.slot = this.slots[i] as number;
    else this.settle();
  }

  /** The block holding the first posting at or after `target` (this.blocks when none). */
  findBlock(target: number): number {
    let k = Math.max(this.b, 0);
    if (k >= this.blocks || this.blockLast(k) >= target) return k;
    let step = 1;
    let hi = k + 1;
    while (hi < this.blocks && this.blockLast(hi) < target) {
      k = hi;
      step *= 2;
      hi = k + step;
    }
    if (hi > this.blocks) hi = this.blocks;
    // blockLast(k) < target; the answer is in (k, hi]
    let lo = k + 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.blockLast(mid) < target) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** Moves to the first live posting at or after `target`. */
  advance(target: number): void {
    if (this.slot >= target) return;
    const k = target <= this.last ? this.b : this.findBlock(target);
    if (k >= this.blocks) {
      this.slot = END;
      this.b = this.blocks;
      return;
    }
    if (k !== this.b) this.load(k);
    // Only the slots up to the target are decoded (the rest when the cursor moves on).
    const slots = this.slots;
    let i = this.i;
    let ready = this.ready;
    for (;;) {
      while (i < ready && (slots[i] as number) < target) i++;
      if (i < ready || ready >= this.n) break;
      ready = (this.buf as BlockBuffer).more(target);
    }
    this.i = i;
    this.ready = ready;
    // Mostly a live posting already decoded: settled here.
    if (i < ready && (this.dead === null || this.dead[slots[i] as number] === 0)) this.slot = slots[i] as number;
    else this.settle();
  }

  /** How many hits the current posting has in one column (0 title, 1 body). */
  columnCount(column: number): number {
    if (this.b < this.baseBlocks) {
      const buf = this.buf as BlockBuffer;
      buf.counts();
      return (column === 0 ? buf.titleCounts[this.i] : buf.bodyCounts[this.i]) as number;
    }
    const tail = this.tail as Tail;
    const titles = (tail.titles as Int32Array)[this.i] as number;
    return column === 0 ? titles : (tail.freqs[this.i] as number) - 2 * titles;
  }

  /** The current posting's positions bytes (see raw()): the view, and its title and body counts. */
  rawView: Uint8Array = new Uint8Array(0);
  rawTitles = 0;
  rawBodies = 0;

  /**
   * Where the current posting's positions start in `rawView` (varint gaps: its title hits, then its
   * body hits, each from 0), with rawTitles and rawBodies set; -1 for computed postings (no positions).
   */
  raw(): number {
    if (this.b >= this.baseBlocks) {
      const tail = this.tail as Tail;
      if (!tail.bytes) return -1;
      const titles = (tail.titles as Int32Array)[this.i] as number;
      this.rawView = tail.bytes;
      this.rawTitles = titles;
      this.rawBodies = (tail.freqs[this.i] as number) - 2 * titles;
      return (tail.at as Int32Array)[this.i] as number;
    }
    const buf = this.buf as BlockBuffer;
    buf.positions(this.i);
    this.rawView = buf.posView;
    this.rawTitles = buf.titleCounts[this.i] as number;
    this.rawBodies = buf.bodyCounts[this.i] as number;
    return (buf.posAt[this.i] as number) - buf.posBase;
  }
}
