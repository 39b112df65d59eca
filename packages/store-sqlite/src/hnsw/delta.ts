// A memory-mapped (usearch `view`, read-only) index file and the changes since it was written: new or
// changed vectors in a small in-memory matrix scanned exactly beside the graph, outdated entries
// of the file skipped; merged into a new file (graph insertion) when the file is written again.
import { availableParallelism } from "node:os";
import type * as USearchModule from "usearch";
import { ExactMatrix } from "./exact.js";
import type { IndexLog, SeqHit } from "./log.js";
import type { USearch } from "./settings.js";
import type { FileIdentity } from "./verify.js";

/** What a viewed index holds beside the mapped file. */
export interface Viewed {
  /** The file that is mapped (a file renamed into place since is another one). */
  identity: FileIdentity;
  /** Vectors added or changed since the file was written, by chunk seq. */
  delta: ExactMatrix;
  /** Chunks whose entry in the file is outdated (changed or removed since). */
  stale: Set<number>;
}

export function newViewed(identity: FileIdentity, dimensions: number): Viewed {
  return { identity, delta: new ExactMatrix(dimensions, "", 0, { quantize: false }), stale: new Set() };
}

/** Applies one log entry: the chunk's current vector (undefined: it has none any more). */
export function applyToViewed(index: USearchModule.Index, viewed: Viewed, seq: number, vector: Float32Array | undefined): void {
  if (!viewed.stale.has(seq) && index.contains(BigInt(seq))) viewed.stale.add(seq);
  if (vector) viewed.delta.set(seq, vector);
  else viewed.delta.remove(seq);
}

/**
 * Applies the log entries after the index's mark: beside a mapped file (its delta), or into the
 * graph held in memory (outdated entries removed, current vectors added).
 */
export function catchUpLoaded(
  log: IndexLog,
  loaded: { index: USearchModule.Index; viewed?: Viewed; dimensions: number; highWater: number; unsaved: number },
): void {
  const { index, viewed } = loaded;
  if (viewed) {
    loaded.unsaved += log.catchUp(loaded, (seq, vector) => applyToViewed(index, viewed, seq, vector));
    return;
  }
  const adds: { key: bigint; vector: Float32Array }[] = [];
  const applied = log.catchUp(loaded, (seq, vector) => {
    const key = BigInt(seq);
    if (index.contains(key)) index.remove(key);
    if (vector) adds.push({ key, vector });
  });
  if (adds.length > 0) {
    const dims = loaded.dimensions;
    const matrix = new Float32Array(adds.length * dims);
    for (const [i, a] of adds.entries()) matrix.set(a.vector, i * dims);
    index.add(
      BigUint64Array.from(adds, (a) => a.key),
      matrix,
      adds.length > 64 ? availableParallelism() : 1,
    );
  }
  loaded.unsaved += applied;
}

/**
 * A search's whole answer, kept while the database does not change (held through `kept`). The
 * graph explores max(ef_search, count asked) candidates and returns the best of them in order,
 * so any count up to ef_search gives the first hits of one list: a search asks for 2 × `k` when
 * that stays within ef_search, and a later search for the same query that explores the same
 * candidates takes its first `k` from this one instead of walking the graph again (a find that
 * asks for more hits after merging neighbours).
 */
export interface LastSearch {
  query: Float32Array;
  index: USearchModule.Index;
  /** Candidates the graph explored. */
  explored: number;
  /** The most hits that are the same as a new search's (Infinity: any number). */
  valid: number;
  hits: SeqHit[];
}

/** searchLoaded on a held index (a copy of the query), with the memo kept until the database changes (Connection.kept). */
export function searchIndex(
  usearch: USearch,
  loaded: { index: USearchModule.Index; viewed?: Viewed; settings: { expansionSearch: number } },
  log: IndexLog,
  query: Float32Array,
  k: number,
  width: (size: number) => number,
): SeqHit[] {
  const memo = log.kept<{ last?: LastSearch }>("search.last", () => ({}));
  return searchLoaded(usearch, loaded.index, loaded.viewed, query.slice(), k, width, loaded.settings.expansionSearch, memo);
}

/** Whether two vectors hold the same values. */
export function sameVector(a: Float32Array, b: Float32Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/**
 * The `k` nearest from the graph (and, for a mapped file, the delta beside it; its outdated
 * entries skipped), best first, exploring `width(size)` candidates when that is more than `k`
 * (the graph's own `ef` otherwise). With `memo`, the last search's answer for the same query is
 * reused where it is the same (see LastSearch).
 */
export function searchLoaded(
  usearch: USearch,
  index: USearchModule.Index,
  viewed: Viewed | undefined,
  query: Float32Array,
  k: number,
  width: (size: number) => number,
  ef: number,
  memo?: { last?: LastSearch },
): SeqHit[] {
  const stale = viewed?.stale.size ?? 0;
  const deltaSize = viewed?.delta.seqs.length ?? 0;
  // The graph's size, asked of usearch once (a native call).
  const graph = index.size();
  const size = graph - stale + deltaSize;
  if (size <= 0) return [];
  const wanted = Math.min(Math.max(k, width(size)), size);
  // Twice `k` when the graph explores no more for it (its first `k` are the same).
  const first = Math.min(graph, Math.max(wanted, Math.min(2 * k, ef)));
  const last = memo?.last;
  if (last && last.index === index && last.explored === Math.max(ef, first) && k <= last.valid && sameVector(last.query, query)) {
    return last.hits.slice(0, k);
  }
  let hits: SeqHit[] = [];
  let ask = first;
  let skipped = false;
  // Outdated entries are skipped: when they crowd the top `k` out, the graph is asked again, wider.
  for (; ask > 0; ask = Math.min(graph, ask * 4)) {
    hits.length = 0;
    const matches = index.search(query, ask, 1);
    for (let i = 0; i < matches.keys.length; i++) {
      const seq = Number(matches.keys[i]);
      if (!viewed?.stale.has(seq)) hits.push({ seq, distance: Math.max(0, matches.distances[i] as number) });
      else skipped = true;
    }
    if (hits.length >= Math.min(k, graph - stale) || ask >= graph) break;
  }
  const fromDelta = Math.min(Math.max(wanted, ask), deltaSize);
  if (fromDelta > 0) {
    for (const hit of viewed?.delta.search(usearch, query, fromDelta) ?? [])
      hits.push({ seq: hit.seq, distance: Math.max(0, hit.distance) });
    hits = hits.sort((a, b) => a.distance - b.distance || a.seq - b.seq);
  }
  // Kept when no outdated entry was skipped: a new search's first hits are then these.
  if (memo) {
    const valid = Math.min(ask >= graph ? Number.POSITIVE_INFINITY : ask, fromDelta >= deltaSize ? Number.POSITIVE_INFINITY : fromDelta);
    memo.last = skipped ? undefined : { query, index, explored: Math.max(ef, ask), valid, hits };
  }
  return hits.slice(0, k);
}

/** Changes held beside the file. */
export function viewedChanges(viewed: Viewed): number {
  return viewed.delta.seqs.length + viewed.stale.size;
}

/** Vectors inserted into the graph per native call while merging; the event loop runs between. */
const MERGE_BATCH = 256;

/**
 * A copy of the mapped file in memory with the delta inserted into its graph and outdated
 * entries removed: what the next file holds. Undefined when the file was replaced meanwhile.
 */
export async function mergeViewed(
  fresh: () => USearchModule.Index,
  file: string,
  viewed: Viewed,
  sameFile: () => boolean,
  threads: number,
  yieldToEventLoop: () => Promise<unknown>,
): Promise<USearchModule.Index | undefined> {
  // A snapshot: queries keep changing the delta while the graph is extended.
  const { delta } = viewed;
  const dims = delta.dimensions;
  const count = delta.seqs.length;
  const seqs = BigUint64Array.from(delta.seqs, (s) => BigInt(s));
  const data = (delta.data as Float32Array).slice(0, count * dims);
  const stale = BigUint64Array.from(viewed.stale, (s) => BigInt(s));
  if (!sameFile()) return undefined;
  const index = fresh();
  index.load(file);
  if (!sameFile()) return undefined;
  if (stale.length > 0) index.remove(stale);
  for (let start = 0; start < count; start += MERGE_BATCH) {
    const end = Math.min(count, start + MERGE_BATCH);
    index.add(seqs.slice(start, end), data.slice(start * dims, end * dims), threads);
    await yieldToEventLoop();
  }
  return index;
}
