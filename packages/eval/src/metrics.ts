/**
 * Retrieval metrics for one query, computed from a ranked list of documents with scores and
 * the graded judgments of that query.
 *
 * Conventions (those of trec_eval / pytrec_eval, which BEIR figures use):
 * - gain is the judgment grade itself (linear), and only grades > 0 count as relevant;
 * - the ideal ranking for nDCG is built from every relevant judgment, including documents that
 *   are not in the corpus, so a query whose relevant document is missing scores 0, not NaN;
 * - Recall@k divides by the number of relevant judgments, MRR@k is 0 when nothing relevant
 *   is ranked in the top k.
 *
 * Ties: documents with exactly the same score have no order, so instead of trusting whatever
 * order the engine happened to return, each metric is the expected value over every order of
 * the tied documents (McSherry & Najork, "Computing information retrieval performance measures
 * efficiently in the presence of tied scores", ECIR 2008). This makes the numbers independent
 * of tie-breaking, which matters for rank-fused scores where ties are common.
 */

export interface RankedDocument {
  id: string;
  score: number;
}

/** Judgments of one query: document id → grade (0 = judged not relevant). */
export type Judgments = ReadonlyMap<string, number>;

export interface QueryMetrics {
  ndcg10: number;
  recall10: number;
  mrr10: number;
  recall100: number;
}

interface TieGroup {
  /** 0-based position of the first member. */
  start: number;
  size: number;
  /** Mean gain of the members (what each position of the group is worth in expectation). */
  meanGain: number;
  relevant: number;
}

function gainOf(judgments: Judgments, id: string): number {
  const grade = judgments.get(id) ?? 0;
  return Math.max(grade, 0);
}

/** Splits a ranking (best first) into runs of equal score. */
function tieGroups(ranking: readonly RankedDocument[], judgments: Judgments): TieGroup[] {
  const groups: TieGroup[] = [];
  let i = 0;
  while (i < ranking.length) {
    const score = (ranking[i] as RankedDocument).score;
    let j = i;
    let gain = 0;
    let relevant = 0;
    while (j < ranking.length && (ranking[j] as RankedDocument).score === score) {
      const g = gainOf(judgments, (ranking[j] as RankedDocument).id);
      gain += g;
      if (g > 0) relevant++;
      j++;
    }
    groups.push({ start: i, size: j - i, meanGain: gain / (j - i), relevant });
    i = j;
  }
  return groups;
}

function discount(position: number): number {
  return 1 / Math.log2(position + 2);
}

/** Expected DCG@k over the orders of tied documents. */
function dcgAtK(groups: TieGroup[], k: number): number {
  let dcg = 0;
  for (const g of groups) {
    if (g.start >= k) break;
    if (g.meanGain === 0) continue;
    const end = Math.min(g.start + g.size, k);
    for (let p = g.start; p < end; p++) dcg += g.meanGain * discount(p);
  }
  return dcg;
}

function idealDcgAtK(judgments: Judgments, k: number): number {
  const gains = [...judgments.values()]
    .filter((g) => g > 0)
    .sort((a, b) => b - a)
    .slice(0, k);
  return gains.reduce((sum, g, p) => sum + g * discount(p), 0);
}

/** Expected number of relevant documents in the top k. */
function relevantInTopK(groups: TieGroup[], k: number): number {
  let found = 0;
  for (const g of groups) {
    if (g.start >= k) break;
    const shown = Math.min(g.size, k - g.start);
    found += (g.relevant * shown) / g.size;
  }
  return found;
}

/**
 * Expected reciprocal rank of the first relevant document, counting only ranks <= k. Within
 * the first group that holds r relevant of n documents, the first relevant one sits at offset
 * j with probability prod_{i<j} (n-r-i)/(n-i) * r/(n-j).
 */
function reciprocalRankAtK(groups: TieGroup[], k: number): number {
  for (const g of groups) {
    if (g.start >= k) return 0;
    if (g.relevant === 0) continue;
    const n = g.size;
    const r = g.relevant;
    let expected = 0;
    let allIrrelevantSoFar = 1;
    for (let j = 0; j <= n - r && g.start + j < k; j++) {
      const firstHere = allIrrelevantSoFar * (r / (n - j));
      expected += firstHere / (g.start + j + 1);
      allIrrelevantSoFar *= (n - r - j) / (n - j);
    }
    return expected;
  }
  return 0;
}

/**
 * The four metrics docdb reports for one query. `ranking` is best first, one entry per
 * document (collapse chunks first), sorted by descending score.
 */
export function queryMetrics(ranking: readonly RankedDocument[], judgments: Judgments): QueryMetrics {
  const relevantTotal = [...judgments.values()].filter((g) => g > 0).length;
  const groups = tieGroups(ranking, judgments);
  const ideal = idealDcgAtK(judgments, 10);
  return {
    ndcg10: ideal > 0 ? dcgAtK(groups, 10) / ideal : 0,
    recall10: relevantTotal > 0 ? relevantInTopK(groups, 10) / relevantTotal : 0,
    mrr10: reciprocalRankAtK(groups, 10),
    recall100: relevantTotal > 0 ? relevantInTopK(groups, 100) / relevantTotal : 0,
  };
}

/** Mean of each metric over queries (0 for none). */
export function meanMetrics(all: readonly QueryMetrics[]): QueryMetrics {
  const mean = (pick: (m: QueryMetrics) => number) => (all.length === 0 ? 0 : all.reduce((s, m) => s + pick(m), 0) / all.length);
  return {
    ndcg10: mean((m) => m.ndcg10),
    recall10: mean((m) => m.recall10),
    mrr10: mean((m) => m.mrr10),
    recall100: mean((m) => m.recall100),
  };
}

/** Nearest-rank percentile (p in 0..100) of the values; NaN when there are none. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return sorted[Math.min(rank, sorted.length) - 1] as number;
}

/**
 * Collapses a ranked list of chunks to documents: each document keeps the score of its best
 * chunk and its first (best) position; chunks whose document id is unknown are skipped.
 */
export function collapseToDocuments<T extends { score: number }>(
  chunks: readonly T[],
  documentOf: (chunk: T) => string | undefined,
): RankedDocument[] {
  const seen = new Set<string>();
  const out: RankedDocument[] = [];
  for (const chunk of chunks) {
    const id = documentOf(chunk);
    if (id === undefined || seen.has(id)) continue;
    seen.add(id);
    out.push({ id, score: chunk.score });
  }
  return out;
}
