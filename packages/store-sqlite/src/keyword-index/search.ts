// Keyword top-k over the index as keyword.ts computes it over FTS5: bm25(chunks_fts, 2.0, 1.0) of the
// OR of the query's sequences (MaxScore with block bounds), then 0.1 × the phrases' bm25 on the best.
import type { KeywordQuery } from "@docdb/analyzer";
import type { Tail } from "./cursor.js";
import { type Cursor, END } from "./cursor.js";
import { matchPhrase } from "./phrase.js";
import { tokenize } from "./tokenize.js";
import { TopK } from "./top-k.js";

export interface KeywordIndexHit {
  seq: number;
  /** -bm25, the value FTS5 gives, bit for bit (plus the word-order bonus). */
  score: number;
}
export interface KeywordSearchOptions {
  /** The natural log exactly as SQLite's ln() computes it. */
  ln(x: number): number;
  /** Keeps the seqs that pass the caller's filter (called with candidate batches, in score order); absent: all pass. */
  accept?(seqs: number[]): Set<number>;
  /**
   * FTS5's own totals (its averages record: rows and tokens ever inserted since the last delete-all,
   * which a delete never lowers), used for idf's row count and the average row size; absent: the
   * index's live counts.
   */
  totals?: { rows: number; tokens: number };
  /** Score every match (no pruning): for tests and benchmarks. */
  exhaustive?: boolean;
  /** Filled with how many postings the query's lists hold and how many rows were scored. */
  stats?: { postings: number; scored: number; visited?: number; phraseRows?: number };
}

/** What the search reads of the index (KeywordIndex). */
export interface KeywordIndex {
  readonly rows: number;
  readonly tokens: number;
  /** Changes whenever postings are merged (cached bounds are then recomputed). */
  readonly generation: number;
  /** Changes whenever a row is added or removed (cached phrase matches are then dropped). */
  readonly version: number;
  df(term: string): number;
  cursor(term: string): Cursor | null;
  listCursor(tail: Tail): Cursor;
  sizeOf(slot: number): number;
  /** The compacted rows' sizes (slots 0 … length - 1): read straight by the ranking loop. */
  readonly compactedSizes: Uint32Array;
  seqOf(slot: number): number;
}

/** As keyword.ts: the word-order bonus's share and how many candidates it may reorder. */
const PROXIMITY_WEIGHT = 0.1;
const RERANK_DEPTH = 100;
const K1 = 1.2;
const B = 0.75;
/** Bounds are summed in another order than scores: a margin far above the rounding. */
const SLACK = 1 + 1e-9;

/** One sequence of the query: its cursor (null: matches nothing) and idf. */
interface Sequence {
  cursor: Cursor | null;
  df: number;
}

/** Per ln function: its answers so far (each is a call into SQLite). */
const lnCache = new WeakMap<(x: number) => number, Map<number, number>>();

/** FTS5's idf for a sequence held by `df` of `rows` rows. */
function idfOf(rows: number, df: number, ln: (x: number) => number): number {
  let known = lnCache.get(ln);
  if (!known) {
    known = new Map();
    lnCache.set(ln, known);
  }
  const x = (rows - df + 0.5) / (df + 0.5);
  let idf = known.get(x);
  if (idf === undefined) {
    idf = ln(x);
    if (known.size > 100_000) known.clear();
    known.set(x, idf);
  }
  return idf <= 0.0 ? 1e-6 : idf;
}

/** The rows matching a sequence of tokens (one token: its postings; several: a phrase, computed). */
function sequence(index: KeywordIndex, tokens: string[], stats?: KeywordSearchOptions["stats"]): Sequence {
  if (tokens.length === 0) return { cursor: null, df: 0 };
  if (tokens.length === 1) {
    const cursor = index.cursor(tokens[0] as string);
    return { cursor, df: cursor ? index.df(tokens[0] as string) : 0 };
  }
  let cache = phraseCache.get(index);
  if (!cache || cache.version !== index.version) {
    cache = { version: index.version, lists: new Map(), rows: 0 };
    phraseCache.set(index, cache);
  }
  const key = tokens.join("\u0000");
  let list = cache.lists.get(key);
  if (list) {
    // Most recently used last.
    cache.lists.delete(key);
    cache.lists.set(key, list);
  } else {
    const cursors = tokens.map((t) => index.cursor(t));
    if (cursors.some((c) => c === null)) return { cursor: null, df: 0 };
    list = matchPhrase(cursors as Cursor[], stats);
    if (list.slots.length <= PHRASE_CACHE_ROWS / 4) {
      cache.rows += list.slots.length;
      cache.lists.set(key, list);
      for (const [old, oldList] of cache.lists) {
        if (cache.rows <= PHRASE_CACHE_ROWS && cache.lists.size <= PHRASE_CACHE_SIZE) break;
        cache.lists.delete(old);
        cache.rows -= oldList.slots.length;
      }
    }
  }
  return { cursor: index.listCursor(list), df: list.slots.length };
}

/**
 * Per index: its phrases' matches, while no row was added or removed (the least recently used
 * dropped first). A common phrase (the parts of `build_index`) can match 160,000 rows at 1M and
 * take 20 ms to match: kept too, within PHRASE_CACHE_ROWS rows in all (8 bytes each).
 */
const phraseCache = new WeakMap<
  KeywordIndex,
  { version: number; lists: Map<string, { slots: Int32Array; freqs: Int32Array }>; rows: number }
>();
const PHRASE_CACHE_SIZE = 256;

/** Drops what finds over this index kept (phrase matches, list bounds), as if none had run. */
export function forgetFinds(index: KeywordIndex): void {
  phraseCache.delete(index);
  unitBounds.delete(index);
}
const PHRASE_CACHE_ROWS = 2_000_000;

/** Per index and term: the largest bm25 a posting can reach per unit of idf, at one average row size. */
const unitBounds = new WeakMap<KeywordIndex, Map<string, { avgdl: number; generation: number; unit: number }>>();

function unitBound(index: KeywordIndex, c: Cursor, avgdl: number): number {
  let cache = unitBounds.get(index);
  if (!cache) {
    cache = new Map();
    unitBounds.set(index, cache);
  }
  const known = c.term === null ? undefined : cache.get(c.term);
  if (known && known.avgdl === avgdl && known.generation === index.generation) return known.unit;
  let unit = 0;
  for (let b = 0; b < c.blocks; b++) {
    const f = c.blockMaxFreq(b);
    unit = Math.max(unit, (f * (K1 + 1.0)) / (f + K1 * (1 - B + (B * c.blockMinSize(b)) / avgdl)));
  }
  if (c.term !== null) {
    if (cache.size > 100_000) cache.clear();
    cache.set(c.term, { avgdl, generation: index.generation, unit });
  }
  return unit;
}

/**
 * The best k rows by the sum of the sequences' bm25 (summed in query order, as FTS5 does). Returns
 * the heap (its caller sorts it): code after the loop that has not run yet would discard the
 * loop's compiled code.
 */
function topK(index: KeywordIndex, seqs: Sequence[], k: number, avgdl: number, options: KeywordSearchOptions): TopK {
  const all: Cursor[] = [];
  for (const s of seqs) if (s.cursor !== null) all.push(s.cursor);
  const heap = new TopK(k);
  if (all.length === 0) return heap;
  // Read once: the options' shape differs between callers, and a check of it inside the loop
  // would throw the loop's compiled code away.
  const stats = options.stats;
  const prune = !options.exhaustive;
  const sizes = index.compactedSizes;
  const compacted = sizes.length;
  const ub = new Map<Cursor, number>();
  for (const c of all) {
    c.avgdl = avgdl;
    c.start();
    ub.set(c, c.idf * unitBound(index, c, avgdl) * SLACK);
    if (stats) stats.postings += c.count;
  }
  const order = [...all].sort((a, b) => (ub.get(a) as number) - (ub.get(b) as number));
  const prefix = [0];
  for (const c of order) prefix.push((prefix[prefix.length - 1] as number) + (ub.get(c) as number));
  const n = order.length;
  let essential = 0;
  let scored = 0;
  let d = END;
  for (let i = essential; i < n; i++) if ((order[i] as Cursor).slot < d) d = (order[i] as Cursor).slot;
  let visited = 0;
  /** Per list left out (0 … essential - 1): the sum of the lists before it at their blocks holding d. */
  const blockPrefix = new Float64Array(n + 1);
  // For the tests that skip a row only (within SLACK's margin, not for its score): the row's norm
  // without a division, and each list's idf × (K1 + 1).
  const normBase = K1 * (1 - B);
  const normPerToken = (K1 * B) / avgdl;
  const lift = new Float64Array(n);
  for (let i = 0; i < n; i++) lift[i] = (order[i] as Cursor).idf * (K1 + 1.0);
  let theta = heap.threshold;
  while (d !== END) {
    visited++;
    const size = d < compacted ? (sizes[d] as number) : index.sizeOf(d);
    const near = normBase + normPerToken * size;
    let skip = false;
    if (prune && essential > 0) {
      let partial = 0;
      for (let i = essential; i < n; i++) {
        const c = order[i] as Cursor;
        if (c.slot === d) {
          const f = c.freq;
          partial += ((lift[i] as number) * f) / (f + near);
        }
      }
      // The lists left out, at their bounds, then at their blocks holding d: when even they cannot
      // lift d over the threshold, skip it; else ask them one by one, the largest first, each time
      // against the blocks of those left.
      if ((partial + (prefix[essential] as number)) * SLACK < theta) skip = true;
      else {
        for (let i = 0; i < essential; i++) {
          const c = order[i] as Cursor;
          const k = c.findBlock(d);
          blockPrefix[i + 1] = (blockPrefix[i] as number) + (k < c.blocks ? c.bound(k) : 0);
        }
        if ((partial + (blockPrefix[essential] as number)) * SLACK < theta) skip = true;
      }
      for (let i = essential - 1; i >= 0 && !skip; i--) {
        const c = order[i] as Cursor;
        c.advance(d);
        if (c.slot === d) {
          const f = c.freq;
          partial += ((lift[i] as number) * f) / (f + near);
        }
        if ((partial + (blockPrefix[i] as number)) * SLACK < theta) skip = true;
      }
    } else for (let i = 0; i < essential; i++) (order[i] as Cursor).advance(d);
    if (!skip) {
      scored++;
      const norm = K1 * (1 - B + (B * size) / avgdl);
      let score = 0.0;
      for (let i = 0; i < all.length; i++) {
        const c = all[i] as Cursor;
        if (c.slot === d) {
          const f = c.freq;
          score += c.idf * ((f * (K1 + 1.0)) / (f + norm));
        }
      }
      heap.offer(score, index.seqOf(d), d);
      // The threshold moves only here.
      theta = heap.threshold;
      if (prune) while (essential < n && (prefix[essential + 1] as number) < theta) essential++;
    }
    if (essential >= n) break;
    // Past d, and the next row any essential list holds.
    const at = d;
    d = END;
    for (let i = essential; i < n; i++) {
      const c = order[i] as Cursor;
      if (c.slot === at) c.next();
      if (c.slot < d) d = c.slot;
    }
  }
  if (stats) {
    stats.scored += scored;
    stats.visited = (stats.visited ?? 0) + visited;
  }
  return heap;
}

/** keywordSearch() of keyword.ts, over the index. */
export function searchIndex(index: KeywordIndex, query: KeywordQuery, limit: number, options: KeywordSearchOptions): KeywordIndexHit[] {
  const rows = options.totals?.rows ?? index.rows;
  if (query.any.length === 0 || limit <= 0 || index.rows === 0 || rows <= 0) return [];
  const avgdl = (options.totals?.tokens ?? index.tokens) / rows;
  const prepare = (list: string[][]): Sequence[] => {
    const out = list.map((s) => sequence(index, tokenize(s.join(" ")), options.stats));
    for (const s of out) if (s.cursor) s.cursor.idf = idfOf(rows, s.df, options.ln);
    return out;
  };
  const depth = query.phrases.length > 0 ? Math.max(limit, RERANK_DEPTH) : limit;
  let hits: { seq: number; score: number; slot: number }[];
  if (!options.accept) hits = topK(index, prepare(query.any), depth, avgdl, options).sorted();
  else {
    hits = [];
    let checked = 0;
    for (let k = depth; ; k *= 4) {
      const top = topK(index, prepare(query.any), k, avgdl, options).sorted();
      const batch = top.slice(checked);
      checked = top.length;
      if (batch.length > 0) {
        const passed = options.accept(batch.map((h) => h.seq));
        for (const h of batch) if (passed.has(h.seq) && hits.length < depth) hits.push(h);
      }
      if (hits.length >= depth || top.length < k) break;
    }
  }
  if (query.phrases.length === 0 || hits.length < 2) return hits.slice(0, limit).map(({ seq, score }) => ({ seq, score }));

  // The phrases' bm25 for the candidates: each phrase's matches (for its idf), looked up in slot order.
  const byScore = hits.map((h) => ({ ...h, bonus: 0.0 }));
  const bySlot = [...byScore].sort((a, b) => a.slot - b.slot);
  for (const s of prepare(query.phrases)) {
    const c = s.cursor;
    if (!c) continue;
    c.start();
    for (const h of bySlot) {
      c.advance(h.slot);
      if (c.slot === h.slot) {
        const norm = K1 * (1 - B + (B * index.sizeOf(h.slot)) / avgdl);
        h.bonus += c.idf * ((c.freq * (K1 + 1.0)) / (c.freq + norm));
      }
    }
  }
  return byScore
    .map((h) => ({ seq: h.seq, score: h.score + PROXIMITY_WEIGHT * h.bonus }))
    .sort((a, b) => b.score - a.score)
    .slice(0, limit);
}
