// A phrase's matches over the index: the rows where its tokens follow each other in one column
// (led by the rarest token, checked by position), with the phrase's weighted frequency per row.
import { type Cursor, END } from "./cursor.js";

/** Rows where the tokens follow each other in one column, with the phrase's weighted frequency. */
export function matchPhrase(cursors: Cursor[], stats?: { phraseRows?: number }): { slots: Int32Array; freqs: Int32Array } {
  let slots = new Int32Array(1024);
  let freqs = new Int32Array(1024);
  let found = 0;
  const m = cursors.length;
  // Rows holding every token: led by the rarest, the others asked in order of size (a common token
  // such as "of" is moved only once the rarer ones agree).
  const bySize = [...cursors].sort((a, b) => a.count - b.count);
  const lead = bySize[0] as Cursor;
  for (const c of cursors) c.start();
  const order = new Int32Array(m);
  const counts = new Int32Array(m);
  let starts = new Int32Array(64);
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
    let freq = 0;
    for (let column = 0; column < 2; column++) {
      // The phrase's possible starts from its token with the fewest hits in the column, kept while
      // every other token (fewest hits first) is at the right offset from them.
      let empty = false;
      for (let j = 0; j < m; j++) {
        const count = (cursors[j] as Cursor).columnCount(column);
        counts[j] = count;
        if (count === 0) empty = true;
        let at = j;
        while (at > 0 && (counts[order[at - 1] as number] as number) > count) {
          order[at] = order[at - 1] as number;
          at--;
        }
        order[at] = j;
      }
      if (empty) continue;
      const r = order[0] as number;
      const rare = cursors[r] as Cursor;
      let n = rare.readColumn(column);
      if (n > starts.length) starts = new Int32Array(2 * n);
      for (let k = 0; k < n; k++) starts[k] = (rare.pos[k] as number) - r;
      for (let o = 1; o < m && n > 0; o++) {
        const j = order[o] as number;
        const c = cursors[j] as Cursor;
        const count = c.readColumn(column);
        const pos = c.pos;
        let kept = 0;
        let at = 0;
        for (let k = 0; k < n; k++) {
          const want = (starts[k] as number) + j;
          while (at < count && (pos[at] as number) < want) at++;
          if (at >= count) break;
          if (pos[at] === want) starts[kept++] = starts[k] as number;
        }
        n = kept;
      }
      freq += column === 0 ? 2 * n : n;
    }
    if (freq > 0) {
      if (found === slots.length) {
        const moreSlots = new Int32Array(2 * found);
        const moreFreqs = new Int32Array(2 * found);
        moreSlots.set(slots);
        moreFreqs.set(freqs);
        slots = moreSlots;
        freqs = moreFreqs;
      }
      slots[found] = target;
      freqs[found++] = freq;
    }
    lead.next();
    target = lead.slot;
  }
  return { slots: slots.slice(0, found), freqs: freqs.slice(0, found) };
}
