// Compaction: the segment's live rows and the rows added since, merged into a new segment in seq
// order (removed rows and terms left without rows dropped).
import { BLOCK, BlockBuffer, ByteWriter, type Segment, skipVarints, U32Writer } from "./segment.js";

/** A term's postings among the rows added since the last compaction (slots ascending). */
export interface DeltaList {
  slots: number[];
  title: number[][];
  body: number[][];
}

/** What compaction reads of the index. */
export interface CompactInput {
  seg: Segment;
  /** Every term: the segment's first, in order, then the added ones. */
  terms: string[];
  delta: Map<number, DeltaList>;
  deltaSeqs: number[];
  deltaSizes: number[];
  dead: Uint8Array;
}

export function compact(input: CompactInput): Segment {
  const { seg, delta, deltaSeqs, deltaSizes, dead } = input;
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
  const doc = new ByteWriter();
  const pos = new ByteWriter();
  const buf = new BlockBuffer();
  // One term's postings gathered: new slot, counts, and positions (bytes of the old segment, or lists).
  let pSlot: number[] = [];
  let pTitle: number[] = [];
  let pBody: number[] = [];
  let pFrom: number[] = [];
  let pTo: number[] = [];
  let pLists: (DeltaList | null)[] = [];
  for (let term = 0; term < input.terms.length; term++) {
    pSlot = [];
    pTitle = [];
    pBody = [];
    pFrom = [];
    pTo = [];
    pLists = [];
    if (term < seg.terms.length) {
      const first = seg.termBlock[term] as number;
      const count = seg.termCount[term] as number;
      for (let k = 0; k * BLOCK < count; k++) {
        const n = Math.min(BLOCK, count - k * BLOCK);
        buf.decode(seg, first + k, k === 0, n);
        buf.positions(seg);
        for (let i = 0; i < n; i++) {
          const slot = newSlot[buf.slots[i] as number] as number;
          if (slot < 0) continue;
          const t = buf.titleCounts[i] as number;
          const c = buf.bodyCounts[i] as number;
          pSlot.push(slot);
          pTitle.push(t);
          pBody.push(c);
          pFrom.push(buf.posAt[i] as number);
          pTo.push(skipVarints(seg.posBytes, buf.posAt[i] as number, t + c));
          pLists.push(null);
        }
      }
    }
    const list = delta.get(term);
    if (list) {
      const order: number[] = [];
      for (let j = 0; j < list.slots.length; j++) if ((newSlot[list.slots[j] as number] as number) >= 0) order.push(j);
      order.sort((x, y) => (newSlot[list.slots[x] as number] as number) - (newSlot[list.slots[y] as number] as number));
      const merged = mergeDelta(order, list, newSlot, { pSlot, pTitle, pBody, pFrom, pTo, pLists });
      ({ pSlot, pTitle, pBody, pFrom, pTo, pLists } = merged);
    }
    if (pSlot.length === 0) continue;
    terms.push(input.terms[term] as string);
    termBlock.push(blockLast.length);
    termCount.push(pSlot.length);
    for (let start = 0; start < pSlot.length; start += BLOCK) {
      const end = Math.min(pSlot.length, start + BLOCK);
      blockDoc.push(doc.length);
      blockPos.push(pos.length);
      let prev = start === 0 ? 0 : (pSlot[start - 1] as number);
      let maxFreq = 0;
      let minSize = 0xffffffff;
      for (let j = start; j < end; j++) {
        const slot = pSlot[j] as number;
        doc.varint(slot - prev);
        doc.varint(pTitle[j] as number);
        doc.varint(pBody[j] as number);
        prev = slot;
        maxFreq = Math.max(maxFreq, 2 * (pTitle[j] as number) + (pBody[j] as number));
        minSize = Math.min(minSize, newSizes[slot] as number);
        const from = pLists[j];
        if (from === null || from === undefined) pos.raw(seg.posBytes, pFrom[j] as number, pTo[j] as number);
        else {
          writePositions(pos, from.title[pFrom[j] as number] as number[]);
          writePositions(pos, from.body[pFrom[j] as number] as number[]);
        }
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
    docBytes: doc.done(),
    posBytes: pos.done(),
  };
}

interface Gathered {
  pSlot: number[];
  pTitle: number[];
  pBody: number[];
  pFrom: number[];
  pTo: number[];
  pLists: (DeltaList | null)[];
}

/** Merges a term's added postings (`order`: indexes into `list` by new slot) into the gathered ones. */
function mergeDelta(order: number[], list: DeltaList, newSlot: Int32Array, g: Gathered): Gathered {
  const out: Gathered = { pSlot: [], pTitle: [], pBody: [], pFrom: [], pTo: [], pLists: [] };
  let i = 0;
  let j = 0;
  while (i < g.pSlot.length || j < order.length) {
    const fromBase =
      j >= order.length || (i < g.pSlot.length && (g.pSlot[i] as number) < (newSlot[list.slots[order[j] as number] as number] as number));
    if (fromBase) {
      out.pSlot.push(g.pSlot[i] as number);
      out.pTitle.push(g.pTitle[i] as number);
      out.pBody.push(g.pBody[i] as number);
      out.pFrom.push(g.pFrom[i] as number);
      out.pTo.push(g.pTo[i] as number);
      out.pLists.push(null);
      i++;
    } else {
      const k = order[j++] as number;
      out.pSlot.push(newSlot[list.slots[k] as number] as number);
      out.pTitle.push((list.title[k] as number[]).length);
      out.pBody.push((list.body[k] as number[]).length);
      out.pFrom.push(k);
      out.pTo.push(k);
      out.pLists.push(list);
    }
  }
  return out;
}

function writePositions(w: ByteWriter, positions: number[]): void {
  let prev = 0;
  for (const p of positions) {
    w.varint(p - prev);
    prev = p;
  }
}
