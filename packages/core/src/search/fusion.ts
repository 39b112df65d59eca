// Putting keyword and vector candidates in one order with 0–1 scores: normalised BM25,
// 1 − cosine distance, or reciprocal-rank fusion of both (hybrid).
import type { SearchMode } from "../types.js";

/** The k of reciprocal-rank fusion (Cormack et al. 2009): a rank r counts 1 / (k + r). */
const RRF_K = 60;
/** The largest fused score: first in both rankings. Hybrid scores are divided by it. */
const RRF_MAX = 2 / (RRF_K + 1);

/** A candidate of a search, with its 0–1 score (and cosine distance when it came from vectors). */
export interface Candidate {
  chunkId: string;
  score: number;
  distance?: number;
}

/** Orders candidates by mode and puts every score on a 0–1 scale (see SearchResult.score). */
export function rank(
  mode: SearchMode,
  keyword: { chunkId: string; score: number }[],
  vector: { chunkId: string; distance: number }[],
): Candidate[] {
  if (mode === "keyword") {
    const best = keyword[0]?.score ?? 0;
    return keyword.map((k) => ({ chunkId: k.chunkId, score: best > 0 ? k.score / best : 0 }));
  }
  if (mode === "vector") return vector.map((v) => ({ chunkId: v.chunkId, score: Math.max(0, 1 - v.distance), distance: v.distance }));
  const fused = new Map<string, Candidate>();
  keyword.forEach((k, r) => {
    fused.set(k.chunkId, { chunkId: k.chunkId, score: 1 / (RRF_K + r + 1) });
  });
  vector.forEach((v, r) => {
    const entry = fused.get(v.chunkId) ?? { chunkId: v.chunkId, score: 0 };
    entry.score += 1 / (RRF_K + r + 1);
    entry.distance = v.distance;
    fused.set(v.chunkId, entry);
  });
  return [...fused.values()].map((e) => ({ ...e, score: e.score / RRF_MAX })).sort((a, b) => b.score - a.score);
}
