// The weighted frequency of a phrase of three or more tokens in the current row, for matchPhrase():
// positions read straight from the stored bytes (the segment's, or the added rows' arena).
import type { Cursor } from "./cursor.js";
import { skipVarints } from "./segment.js";

/** Possible phrase starts (position of the phrase's first token), reused between calls. */
let starts = new Int32Array(64);

/**
 * Per column: the starts of the token with the fewest hits there (the first on a tie), kept while
 * every other token (fewest hits first) is at the right offset from them; a token's positions are
 * read only while some start is left. `order` and `counts` are scratch space of the phrase's length.
 */
export function rowFreq(cursors: Cursor[], order: Int32Array, counts: Int32Array): number {
  const m = cursors.length;
  let freq = 0;
  for (let column = 0; column < 2; column++) {
    let empty = false;
    for (let j = 0; j < m; j++) {
      const count = (cursors[j] as Cursor).columnCount(column);
      if (count === 0) {
        empty = true;
        break;
      }
      counts[j] = count;
      let at = j;
      while (at > 0 && (counts[order[at - 1] as number] as number) > count) {
        order[at] = order[at - 1] as number;
        at--;
      }
      order[at] = j;
    }
    if (empty) continue;
    let n = 0;
    for (let o = 0; o < m && (o === 0 || n > 0); o++) {
      const j = order[o] as number;
      const c = cursors[j] as Cursor;
      const count = counts[j] as number;
      let p = c.raw();
      const view = c.rawView;
      if (column === 1) p = skipVarints(view, p, c.rawTitles);
      n = o === 0 ? seedBytes(view, p, count, j) : keepBytes(view, p, count, j, n);
    }
    freq += column === 0 ? 2 * n : n;
  }
  return freq;
}

/** Starts from token j's `count` varint positions (gaps from 0) at `p`; returns how many. */
function seedBytes(view: Uint8Array, at: number, count: number, j: number): number {
  if (count > starts.length) starts = new Int32Array(2 * count);
  let p = at;
  let v = -j;
  for (let k = 0; k < count; k++) {
    let byte = view[p++] as number;
    let gap = byte & 0x7f;
    for (let shift = 7; byte >= 0x80; shift += 7) {
      byte = view[p++] as number;
      gap |= (byte & 0x7f) << shift;
    }
    v += gap;
    starts[k] = v;
  }
  return count;
}

/** Keeps the first n starts s with token j at s + j (its varint positions at `p`); returns how many. */
function keepBytes(view: Uint8Array, at: number, count: number, j: number, n: number): number {
  let p = at;
  // The token's current position (its seen-th), decoded one at a time.
  let byte = view[p++] as number;
  let v = byte & 0x7f;
  for (let shift = 7; byte >= 0x80; shift += 7) {
    byte = view[p++] as number;
    v |= (byte & 0x7f) << shift;
  }
  let seen = 1;
  let kept = 0;
  for (let k = 0; k < n; k++) {
    const want = (starts[k] as number) + j;
    while (v < want && seen < count) {
      seen++;
      byte = view[p++] as number;
      let gap = byte & 0x7f;
      for (let shift = 7; byte >= 0x80; shift += 7) {
        byte = view[p++] as number;
        gap |= (byte & 0x7f) << shift;
      }
      v += gap;
    }
    if (v < want) break;
    if (v === want) starts[kept++] = starts[k] as number;
  }
  return kept;
}
