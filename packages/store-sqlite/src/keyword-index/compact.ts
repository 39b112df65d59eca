// Compaction: the segment's live rows and the rows added since, merged into a new segment in seq
// order (removed rows and terms left without rows dropped), a block at a time: what it holds in
// memory besides its result's per-row and per-block arrays is bounded by a block and a read window.
import { AddedList, type AddedView, readAdded } from "./added.js";
import { PositionSpill } from "./positions.js";
import { BLOCK, BlockBuffer, ByteWriter, grown, type Segment, skipVarints, U32Writer } from "./segment.js";

/** What compaction reads of the index. */
export interface CompactInput {
  seg: Segment;
  /** Every term: the segment's first, in order, then the added ones. */
  terms: string[];
  /** The postings of the rows added since (read as they were when the input was taken). */
  delta: AddedView;
  deltaSeqs: number[];
  deltaSizes: number[];
  dead: Uint8Array;
  /** Added rows from this slot on are left out (rows added after a snapshot was taken); all when absent. */
  slots?: number;
}

/** Postings merged between two yields of compactSteps() (a few milliseconds of work). */
const STEP_POSTINGS = 20_000;
/** The order of a term without added postings. */
const NONE: readonly number[] = [];
let IDENTITY: number[] = [];
/** 0 … n - 1 (one array, grown as needed: read, never written, by its users). */
function identity(n: number): readonly number[] {
  if (IDENTITY.length < n) IDENTITY = Array.from({ length: Math.max(n, 2 * IDENTITY.length) }, (_, i) => i);
  return IDENTITY;
}
/** Postings' worth of work counted for a byte of positions read from a file. */
const WORK_PER_BYTE = 1 / 64;
/**
 * Bytes of old positions read from a file at a time (whole blocks, at least one): a term found in
 * every row holds ~10 MB of them at 1M rows, which were read at once.
 */
export const COMPACT_READ_WINDOW = 256 * 1024;

/** Compacts at once (see compactSteps). */
export function compact(input: CompactInput): Segment {
  const steps = compactSteps(input);
  for (;;) {
    const next = steps.next();
    if (next.done) return next.value;
  }
}

/**
 * Compaction in steps: yields after every few thousand postings merged (within a term too), so a
 * caller can let other work run between steps. The input must not change meanwhile, but rows added
 * from `slots` on. Positions the segment keeps in its file are read from there a window of blocks at
 * a time (COMPACT_READ_WINDOW). With `spill` (an open file descriptor of an empty file, owned from
 * then on), the new positions are written to that file as they are merged rather than kept in
 * memory, and the result reads them from there. With `docSpill` too (another such file), so are the
 * new postings (the result's docFile): what the compaction holds in memory is then its per-row and
 * per-block arrays (allocated once, at a bound computed first), a block of postings and a window.
 */
export function* compactSteps(
  input: CompactInput,
  stepPostings = STEP_POSTINGS,
  spill?: number,
  docSpill?: number,
): Generator<void, Segment> {
  const { delta, dead } = input;
  const limit = input.slots ?? input.seg.seqs.length + input.deltaSeqs.length;
  const deltaSeqs = input.deltaSeqs.slice(0, limit - input.seg.seqs.length);
  const deltaSizes = input.deltaSizes.slice(0, deltaSeqs.length);
  const seg = input.seg;
  const file = seg.posFile;
  // Where the positions being read sit: a window read from the file (at termBase), or all of them in memory.
  let window: Uint8Array = new Uint8Array(0);
  let termPos: Uint8Array = seg.posBytes;
  let termBase = 0;
  let work = 0;
  const baseRows = seg.seqs.length;
  // Live rows in seq order: the segment's are already sorted, the added ones are sorted then merged.
  const added = deltaSeqs.map((_, i) => baseRows + i).filter((slot) => dead[slot] === 0);
  added.sort((a, b) => (deltaSeqs[a - baseRows] as number) - (deltaSeqs[b - baseRows] as number));
  let rows = added.length;
  for (let s = 0; s < baseRows; s++) if (dead[s] === 0) rows++;
  const newSlot = new Int32Array(baseRows + deltaSeqs.length).fill(-1);
  // Counted first, so each is allocated once at its size (no growing copy, no trimming copy).
  const newSeqs = new Uint32Array(rows);
  const newSizes = new Uint32Array(rows);
  let a = 0;
  let s = 0;
  let r = 0;
  while (s < baseRows || a < added.length) {
    while (s < baseRows && dead[s] !== 0) s++;
    const baseSeq = s < baseRows ? (seg.seqs[s] as number) : Number.POSITIVE_INFINITY;
    const addedSlot = a < added.length ? (added[a] as number) : -1;
    const addedSeq = addedSlot >= 0 ? (deltaSeqs[addedSlot - baseRows] as number) : Number.POSITIVE_INFINITY;
    if (baseSeq === Number.POSITIVE_INFINITY && addedSeq === Number.POSITIVE_INFINITY) break;
    newSlot[baseSeq < addedSeq ? s : addedSlot] = r;
    if (baseSeq < addedSeq) {
      newSeqs[r] = baseSeq;
      newSizes[r++] = seg.sizes[s++] as number;
    } else {
      newSeqs[r] = addedSeq;
      newSizes[r++] = deltaSizes[addedSlot - baseRows] as number;
      a++;
    }
  }

  // A term's blocks number at most those of its old postings and of its added ones (each rounded up).
  const blocks = seg.blockLast.length + Math.ceil(delta.postings / BLOCK) + delta.terms;
  // Sized from the start at most a little past what they will hold (an added posting takes at
  // most three varints, a position one), so no large buffer is copied in one step as it grows.
  const doc = docSpill === undefined ? new ByteWriter(seg.docBytes.length + 15 * delta.postings) : new PositionSpill(docSpill);
  const pos = spill === undefined ? new ByteWriter(seg.posBytes.length + delta.used) : new PositionSpill(spill);
  const out = new BlockOut(newSizes, input.terms.length, blocks, doc, pos);
  const addedList = new AddedList(1024);
  const buf = new BlockBuffer();
  // A term's added postings (few: the delta is a small share of the index), put in slot order.
  const fresh = new Fresh();
  /** Writes the k-th of the current term's added postings. */
  const putAdded = (k: number) =>
    out.posting(
      fresh.slot[k] as number,
      fresh.title[k] as number,
      fresh.body[k] as number,
      delta.bytes,
      fresh.from[k] as number,
      fresh.to[k] as number,
    );
  for (let term = 0; term < input.terms.length; term++) {
    if (work >= stepPostings) {
      work = 0;
      yield;
    }
    const list = readAdded(delta, term, limit, addedList);
    fresh.length = 0;
    for (let i = 0; i < list.length; i++) {
      const slot = newSlot[list.slots[i] as number] as number;
      const t = list.titles[i] as number;
      const c = list.bodies[i] as number;
      const at = list.at[i] as number;
      if (slot >= 0) fresh.push(slot, t, c, at, skipVarints(delta.bytes, at, t + c));
    }
    // Most terms have no added postings: no array made or sorted for them; rows added in seq order
    // (the usual case) leave a term's added postings in slot order already.
    const order = fresh.length === 0 ? NONE : fresh.inSlotOrder() ? identity(fresh.length) : slotOrder(fresh);
    let j = 0;
    out.beginTerm(input.terms[term] as string);
    if (term < seg.terms.length) {
      const first = seg.termBlock[term] as number;
      const end = seg.termBlock[term + 1] as number;
      const count = seg.termCount[term] as number;
      let windowEnd = first;
      for (let b = first; b < end; b++) {
        if (file && b >= windowEnd) {
          // The next blocks' positions, as many whole blocks as fit in the window (at least one).
          const from = seg.blockPos[b] as number;
          let e = b + 1;
          while (e < end && (seg.blockPos[e + 1] as number) - from <= COMPACT_READ_WINDOW) e++;
          const to = seg.blockPos[e] as number;
          window = file.read(window, from, to).bytes;
          termPos = window;
          termBase = from;
          windowEnd = e;
          work += (to - from) * WORK_PER_BYTE;
        }
        const n = Math.min(BLOCK, count - (b - first) * BLOCK);
        buf.decode(seg, b, b === first, n);
        buf.counts();
        let at = (seg.blockPos[b] as number) - termBase;
        for (let i = 0; i < n; i++) {
          const t = buf.titleCounts[i] as number;
          const c = buf.bodyCounts[i] as number;
          const stop = skipVarints(termPos, at, t + c);
          const slot = newSlot[buf.slots[i] as number] as number;
          if (slot >= 0) {
            // The added postings before it first (slots are distinct).
            for (; j < fresh.length && (fresh.slot[order[j] as number] as number) < slot; j++) putAdded(order[j] as number);
            out.posting(slot, t, c, termPos, at, stop);
          }
          at = stop;
        }
        work += n;
        // A term found in most rows is merged over several steps (the window and `fresh` are this generator's own).
        if (work >= stepPostings) {
          work = 0;
          yield;
        }
      }
    }
    for (; j < fresh.length; j++) putAdded(order[j] as number);
    work += fresh.length + 16;
    out.endTerm();
  }
  const done = out.done();
  return {
    seqs: newSeqs,
    sizes: newSizes,
    ...done,
    ...(doc instanceof PositionSpill ? { docBytes: new Uint8Array(0), docFile: doc.done() } : { docBytes: doc.done() }),
    ...(pos instanceof PositionSpill ? { posBytes: new Uint8Array(0), posFile: pos.done() } : { posBytes: pos.done(), posFile: null }),
  };
}

/** What the merged postings are written through: the block being filled, the per-term and per-block arrays. */
class BlockOut {
  private readonly terms: string[] = [];
  private readonly termBlock: U32Writer;
  private readonly termCount: U32Writer;
  private readonly blockLast: U32Writer;
  private readonly blockMaxFreq: U32Writer;
  private readonly blockMinSize: U32Writer;
  private readonly blockDoc: U32Writer;
  private readonly blockPos: U32Writer;
  // The block being filled: its postings' slots and per-column counts (positions go out at once).
  private readonly slot = new Int32Array(BLOCK);
  private readonly title = new Int32Array(BLOCK);
  private readonly body = new Int32Array(BLOCK);
  private n = 0;
  private maxFreq = 0;
  private minSize = 0;
  /** The slot before the block's first (the term's previous block's last; 0 at a term's first). */
  private prev = 0;
  private count = 0;
  private term = "";

  constructor(
    private readonly sizes: Uint32Array,
    terms: number,
    blocks: number,
    private readonly doc: ByteWriter | PositionSpill,
    private readonly pos: ByteWriter | PositionSpill,
  ) {
    this.termBlock = new U32Writer(terms + 1);
    this.termCount = new U32Writer(terms);
    this.blockLast = new U32Writer(blocks);
    this.blockMaxFreq = new U32Writer(blocks);
    this.blockMinSize = new U32Writer(blocks);
    this.blockDoc = new U32Writer(blocks + 1);
    this.blockPos = new U32Writer(blocks + 1);
  }

  beginTerm(term: string): void {
    this.term = term;
    this.count = 0;
    this.prev = 0;
    this.n = 0;
  }

  /** A posting, in slot order within its term, with its positions (`bytes` from `from` to `to`). */
  posting(slot: number, title: number, body: number, bytes: Uint8Array, from: number, to: number): void {
    if (this.n === 0) {
      // A term without live postings is left out: it is written from its first one.
      if (this.count === 0) {
        this.terms.push(this.term);
        this.termBlock.push(this.blockLast.length);
      }
      this.blockPos.push(this.pos.length);
      this.maxFreq = 0;
      this.minSize = 0xffffffff;
    }
    const i = this.n++;
    this.slot[i] = slot;
    this.title[i] = title;
    this.body[i] = body;
    this.maxFreq = Math.max(this.maxFreq, 2 * title + body);
    this.minSize = Math.min(this.minSize, this.sizes[slot] as number);
    this.pos.raw(bytes, from, to);
    this.count++;
    if (this.n === BLOCK) this.flush();
  }

  endTerm(): void {
    if (this.n > 0) this.flush();
    if (this.count > 0) this.termCount.push(this.count);
  }

  /** The block's slot gaps, then its per-column counts; its bounds. */
  private flush(): void {
    const doc = this.doc;
    this.blockDoc.push(doc.length);
    let prev = this.prev;
    for (let j = 0; j < this.n; j++) {
      doc.varint((this.slot[j] as number) - prev);
      prev = this.slot[j] as number;
    }
    for (let j = 0; j < this.n; j++) {
      doc.varint(this.title[j] as number);
      doc.varint(this.body[j] as number);
    }
    this.blockLast.push(prev);
    this.blockMaxFreq.push(this.maxFreq);
    this.blockMinSize.push(this.minSize);
    this.prev = prev;
    this.n = 0;
  }

  done(): Pick<Segment, "terms" | "termBlock" | "termCount" | "blockLast" | "blockMaxFreq" | "blockMinSize" | "blockDoc" | "blockPos"> {
    this.termBlock.push(this.blockLast.length);
    this.blockDoc.push(this.doc.length);
    this.blockPos.push(this.pos.length);
    return {
      terms: this.terms,
      termBlock: this.termBlock.done(),
      termCount: this.termCount.done(),
      blockLast: this.blockLast.done(),
      blockMaxFreq: this.blockMaxFreq.done(),
      blockMinSize: this.blockMinSize.done(),
      blockDoc: this.blockDoc.done(),
      blockPos: this.blockPos.done(),
    };
  }
}

/** A term's added postings (new slot, counts, where their positions lie in the arena), in growable typed arrays reused from term to term. */
class Fresh {
  length = 0;
  slot = new Int32Array(1024);
  title = new Int32Array(1024);
  body = new Int32Array(1024);
  from = new Int32Array(1024);
  to = new Int32Array(1024);
  push(slot: number, title: number, body: number, from: number, to: number): void {
    if (this.length === this.slot.length) {
      const n = this.slot.length * 2;
      this.slot = grown(this.slot, n);
      this.title = grown(this.title, n);
      this.body = grown(this.body, n);
      this.from = grown(this.from, n);
      this.to = grown(this.to, n);
    }
    const i = this.length++;
    this.slot[i] = slot;
    this.title[i] = title;
    this.body[i] = body;
    this.from[i] = from;
    this.to[i] = to;
  }
  inSlotOrder(): boolean {
    for (let i = 1; i < this.length; i++) if ((this.slot[i] as number) < (this.slot[i - 1] as number)) return false;
    return true;
  }
}

/** The postings' indexes in slot order. */
function slotOrder(fresh: Fresh): number[] {
  return Array.from({ length: fresh.length }, (_, i) => i).sort((x, y) => (fresh.slot[x] as number) - (fresh.slot[y] as number));
}
