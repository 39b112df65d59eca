// Compaction: the segment's live rows and the rows added since, merged into a new segment in seq
// order (removed rows and terms left without rows dropped).
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
/** Postings' worth of work counted for a byte of positions read from a file. */
const WORK_PER_BYTE = 1 / 64;

/** Compacts at once (see compactSteps). */
export function compact(input: CompactInput): Segment {
  const steps = compactSteps(input);
  for (;;) {
    const next = steps.next();
    if (next.done) return next.value;
  }
}

/**
 * Compaction in steps: yields after every few thousand postings merged, so a caller can let other
 * work run between steps. The input must not change meanwhile, but rows added from `slots` on.
 * Positions the segment keeps in its file are read from there one term at a time. With `spill` (an
 * open file descriptor of an empty file, owned from then on), the new positions are written to that
 * file as they are merged rather than kept in memory, and the result reads them from there. With
 * `docSpill` too (another such file), so are the new postings (the result's docFile): what the
 * compaction holds in memory is then its per-term and per-block arrays alone.
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
  // The current term's positions: a window read from the file (at termBase), or all of them in memory.
  let window: Uint8Array = new Uint8Array(0);
  let termPos: Uint8Array = seg.posBytes;
  let termBase = 0;
  let work = 0;
  const baseRows = seg.seqs.length;
  // Live rows in seq order: the segment's are already sorted, the added ones are sorted then merged.
  const added = deltaSeqs.map((_, i) => baseRows + i).filter((slot) => dead[slot] === 0);
  added.sort((a, b) => (deltaSeqs[a - baseRows] as number) - (deltaSeqs[b - baseRows] as number));
  const newSlot = new Int32Array(baseRows + deltaSeqs.length).fill(-1);
  const seqs = new U32Writer();
  const sizes = new U32Writer();
  let a = 0;
  let s = 0;
  while (s < baseRows || a < added.length) {
    while (s < baseRows && dead[s] !== 0) s++;
    const baseSeq = s < baseRows ? (seg.seqs[s] as number) : Number.POSITIVE_INFINITY;
    const addedSlot = a < added.length ? (added[a] as number) : -1;
    const addedSeq = addedSlot >= 0 ? (deltaSeqs[addedSlot - baseRows] as number) : Number.POSITIVE_INFINITY;
    if (baseSeq === Number.POSITIVE_INFINITY && addedSeq === Number.POSITIVE_INFINITY) break;
    newSlot[baseSeq < addedSeq ? s : addedSlot] = seqs.length;
    if (baseSeq < addedSeq) {
      seqs.push(baseSeq);
      sizes.push(seg.sizes[s++] as number);
    } else {
      seqs.push(addedSeq);
      sizes.push(deltaSizes[addedSlot - baseRows] as number);
      a++;
    }
  }
  const newSizes = sizes.done();

  const terms: string[] = [];
  const termBlock = new U32Writer();
  const termCount = new U32Writer();
  const blockLast = new U32Writer();
  const blockMaxFreq = new U32Writer();
  const blockMinSize = new U32Writer();
  const blockDoc = new U32Writer();
  const blockPos = new U32Writer();
  // Sized from the start at most a little past what they will hold (an added posting takes at
  // most three varints, a position one), so no large buffer is copied in one step as it grows.
  const doc = docSpill === undefined ? new ByteWriter(seg.docBytes.length + 15 * delta.postings) : new PositionSpill(docSpill);
  const pos = spill === undefined ? new ByteWriter(seg.posBytes.length + delta.used) : new PositionSpill(spill);
  const addedList = new AddedList(1024);
  const buf = new BlockBuffer();
  // One term's postings gathered (new slot, counts, where its positions are), then merged by slot.
  const g = new Gathered();
  const fresh = new Gathered();
  for (let term = 0; term < input.terms.length; term++) {
    if (work >= stepPostings) {
      work = 0;
      yield;
    }
    g.length = 0;
    if (term < seg.terms.length) {
      const first = seg.termBlock[term] as number;
      const count = seg.termCount[term] as number;
      if (file) {
        const start = seg.blockPos[first] as number;
        const end = seg.blockPos[seg.termBlock[term + 1] as number] as number;
        window = file.read(window, start, end).bytes;
        termPos = window;
        termBase = start;
        work += (end - start) * WORK_PER_BYTE;
      }
      for (let k = 0; k * BLOCK < count; k++) {
        const n = Math.min(BLOCK, count - k * BLOCK);
        buf.decode(seg, first + k, k === 0, n);
        buf.counts();
        let at = (seg.blockPos[first + k] as number) - termBase;
        for (let i = 0; i < n; i++) {
          const t = buf.titleCounts[i] as number;
          const c = buf.bodyCounts[i] as number;
          const end = skipVarints(termPos, at, t + c);
          const slot = newSlot[buf.slots[i] as number] as number;
          if (slot >= 0) g.push(slot, t, c, at, end, 0);
          at = end;
        }
      }
    }
    const added = readAdded(delta, term, limit, addedList);
    if (added.length > 0) {
      fresh.length = 0;
      for (let i = 0; i < added.length; i++) {
        const slot = newSlot[added.slots[i] as number] as number;
        const t = added.titles[i] as number;
        const c = added.bodies[i] as number;
        const at = added.at[i] as number;
        if (slot >= 0) fresh.push(slot, t, c, at, skipVarints(delta.bytes, at, t + c), 1);
      }
      const order = Array.from({ length: fresh.length }, (_, i) => i).sort((x, y) => (fresh.slot[x] as number) - (fresh.slot[y] as number));
      // Merged into g from its end (no second list as long as the largest term's held meanwhile).
      let i = g.length - 1;
      let w = g.length + order.length - 1;
      g.reserve(w + 1);
      for (let k = order.length - 1; k >= 0; k--) {
        const j = order[k] as number;
        while (i >= 0 && (g.slot[i] as number) > (fresh.slot[j] as number)) g.put(w--, g, i--);
        g.put(w--, fresh, j);
      }
    }
    work += g.length + 16;
    if (g.length === 0) continue;
    terms.push(input.terms[term] as string);
    termBlock.push(blockLast.length);
    termCount.push(g.length);
    for (let start = 0; start < g.length; start += BLOCK) {
      const end = Math.min(g.length, start + BLOCK);
      blockDoc.push(doc.length);
      blockPos.push(pos.length);
      let prev = start === 0 ? 0 : (g.slot[start - 1] as number);
      let maxFreq = 0;
      let minSize = 0xffffffff;
      for (let j = start; j < end; j++) {
        doc.varint((g.slot[j] as number) - prev);
        prev = g.slot[j] as number;
      }
      for (let j = start; j < end; j++) {
        const slot = g.slot[j] as number;
        const t = g.title[j] as number;
        const c = g.body[j] as number;
        doc.varint(t);
        doc.varint(c);
        maxFreq = Math.max(maxFreq, 2 * t + c);
        minSize = Math.min(minSize, newSizes[slot] as number);
        pos.raw(g.fromDelta[j] === 0 ? termPos : delta.bytes, g.from[j] as number, g.to[j] as number);
      }
      blockLast.push(prev);
      blockMaxFreq.push(maxFreq);
      blockMinSize.push(minSize);
    }
  }
  termBlock.push(blockLast.length);
  blockDoc.push(doc.length);
  blockPos.push(pos.length);
  return {
    seqs: seqs.done(),
    sizes: newSizes,
    terms,
    termBlock: termBlock.done(),
    termCount: termCount.done(),
    blockLast: blockLast.done(),
    blockMaxFreq: blockMaxFreq.done(),
    blockMinSize: blockMinSize.done(),
    blockDoc: blockDoc.done(),
    blockPos: blockPos.done(),
    ...(doc instanceof PositionSpill ? { docBytes: new Uint8Array(0), docFile: doc.done() } : { docBytes: doc.done() }),
    ...(pos instanceof PositionSpill ? { posBytes: new Uint8Array(0), posFile: pos.done() } : { posBytes: pos.done(), posFile: null }),
  };
}

/** Postings gathered for one term, in growable typed arrays reused from term to term. */
class Gathered {
  length = 0;
  slot = new Int32Array(1024);
  title = new Int32Array(1024);
  body = new Int32Array(1024);
  from = new Int32Array(1024);
  to = new Int32Array(1024);
  fromDelta = new Uint8Array(1024);
  push(slot: number, title: number, body: number, from: number, to: number, fromDelta: number): void {
    if (this.length === this.slot.length) this.grow();
    const i = this.length++;
    this.slot[i] = slot;
    this.title[i] = title;
    this.body[i] = body;
    this.from[i] = from;
    this.to[i] = to;
    this.fromDelta[i] = fromDelta;
  }
  /** Room for `n` postings, and a length of `n` (the ones past the old length to be put()). */
  reserve(n: number): void {
    while (this.slot.length < n) this.grow();
    this.length = n;
  }
  /** Posting `i` of `other` (this list itself too) as posting `at`. */
  put(at: number, other: Gathered, i: number): void {
    this.slot[at] = other.slot[i] as number;
    this.title[at] = other.title[i] as number;
    this.body[at] = other.body[i] as number;
    this.from[at] = other.from[i] as number;
    this.to[at] = other.to[i] as number;
    this.fromDelta[at] = other.fromDelta[i] as number;
  }
  private grow(): void {
    const n = this.slot.length * 2;
    this.slot = grown(this.slot, n);
    this.title = grown(this.title, n);
    this.body = grown(this.body, n);
    this.from = grown(this.from, n);
    this.to = grown(this.to, n);
    this.fromDelta = grown(this.fromDelta, n);
  }
}
