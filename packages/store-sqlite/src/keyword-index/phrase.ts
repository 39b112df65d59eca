// A phrase's matches over the index: the rows where its tokens follow each other in one column
// (led by the rarest token, checked by position), with the phrase's weighted frequency per row.
import { type Cursor, END } from "./cursor.js";
import { rowFreq } from "./phrase-many.js";
import { skipVarints } from "./segment.js";

/** Rows where the tokens follow each other in one column, with the phrase's weighted frequency. */
export function matchPhrase(cursors: Cursor[], stats?: { phraseRows?: number }): { slots: Int32Array; freqs: Int32Array } {
  const m = cursors.length;
  if (m === 2) return matchPair(cursors[0] as Cursor, cursors[1] as Cursor, stats);
  const out = new RowList();
  // Rows holding every token: led by the rarest, the others asked in order of size (a common token
  // such as "of" is moved only once the rarer ones agree).
  const bySize = [...cursors].sort((a, b) => a.count - b.count);
  const lead = bySize[0] as Cursor;
  for (const c of cursors) c.start();
  const order = new Int32Array(m);
  const counts = new Int32Array(m);
  let target = lead.slot;
  while (target !== END) {
    let i = 1;
    for (; i < m; i++) {
      const c = bySize[i] as Cursor;
      c.advance(target);
      if (c.slot !== target) break;
    }
    if (i < m) {
      const ahead = (bySize[i] as Cursor).slot;
      if (ahead === END) break;
      lead.advance(ahead);
      target = lead.slot;
      continue;
    }
    if (stats) stats.phraseRows = (stats.phraseRows ?? 0) + 1;
    const freq = rowFreq(cursors, order, counts);
    if (freq > 0) out.push(target, freq);
    lead.next();
    target = lead.slot;
  }
  return out.done();
}

/**
 * matchPhrase() for two tokens (most phrases), with the same answers: the rows holding both, and
 * per column the positions of the one with fewer hits there (the first on a tie) that the other follows.
 */
function matchPair(a: Cursor, b: Cursor, stats?: { phraseRows?: number }): { slots: Int32Array; freqs: Int32Array } {
  const out = new RowList();
  a.start();
  b.start();
  const lead = a.count <= b.count ? a : b;
  const other = lead === a ? b : a;
  let target = lead.slot;
  let rows = 0;
  while (target !== END) {
    other.advance(target);
    const s = other.slot;
    if (s !== target) {
      if (s === END) break;
      lead.advance(s);
      target = lead.slot;
      continue;
    }
    rows++;
    // Merged straight from their position bytes (the segment's, or the added rows' arena).
    let freq = 0;
    const pa = a.raw();
    const aView = a.rawView;
    const aTitles = a.rawTitles;
    const pb = b.raw();
    const bView = b.rawView;
    const bTitles = b.rawTitles;
    if (aTitles > 0 && bTitles > 0) freq += 2 * followsIn(aView, pa, aTitles, bView, pb, bTitles);
    if (a.rawBodies > 0 && b.rawBodies > 0)
      freq += followsIn(aView, skipVarints(aView, pa, aTitles), a.rawBodies, bView, skipVarints(bView, pb, bTitles), b.rawBodies);
    if (freq > 0) out.push(target, freq);
    lead.next();
    target = lead.slot;
  }
  if (stats) stats.phraseRows = (stats.phraseRows ?? 0) + rows;
  return out.done();
}

/**
 * In one column, over two varint position lists (gaps from 0): how many of the rarer list's positions
 * (a's on a tie) have b's position right after (a's right before) them.
 */
function followsIn(aView: Uint8Array, aAt: number, aCount: number, bView: Uint8Array, bAt: number, bCount: number): number {
  const aRare = aCount <= bCount;
  const rView = aRare ? aView : bView;
  const oView = aRare ? bView : aView;
  const rCount = aRare ? aCount : bCount;
  const oCount = aRare ? bCount : aCount;
  const offset = aRare ? 1 : -1;
  let rp = aRare ? aAt : bAt;
  let op = aRare ? bAt : aAt;
  let n = 0;
  // The other list's current position (its oi-th), decoded one at a time.
  let byte = oView[op++] as number;
  let ov = byte & 0x7f;
  for (let shift = 7; byte >= 0x80; shift += 7) {
    byte = oView[op++] as number;
    ov |= (byte & 0x7f) << shift;
  }
  let oi = 0;
  let r = 0;
  for (let k = 0; k < rCount; k++) {
    byte = rView[rp++] as number;
    let gap = byte & 0x7f;
    for (let shift = 7; byte >= 0x80; shift += 7) {
      byte = rView[rp++] as number;
      gap |= (byte & 0x7f) << shift;
    }
    r += gap;
    const want = r + offset;
    while (ov < want) {
      if (++oi >= oCount) return n;
      byte = oView[op++] as number;
      let g = byte & 0x7f;
      for (let shift = 7; byte >= 0x80; shift += 7) {
        byte = oView[op++] as number;
        g |= (byte & 0x7f) << shift;
      }
      ov += g;
    }
    if (ov === want) n++;
  }
  return n;
}

/** The matching rows of a phrase as they are found, with their weighted frequencies (grown by doubling). */
class RowList {
  private slots = new Int32Array(1024);
  private freqs = new Int32Array(1024);
  private found = 0;

  push(slot: number, freq: number): void {
    if (this.found === this.slots.length) {
      const slots = new Int32Array(2 * this.found);
      const freqs = new Int32Array(2 * this.found);
      slots.set(this.slots);
      freqs.set(this.freqs);
      this.slots = slots;
      this.freqs = freqs;
    }
    this.slots[this.found] = slot;
    this.freqs[this.found++] = freq;
  }

  done(): { slots: Int32Array; freqs: Int32Array } {
    return { slots: this.slots.slice(0, this.found), freqs: this.freqs.slice(0, this.found) };
  }
}
