import { describe, expect, it } from "vitest";
import { collapseToDocuments, meanMetrics, percentile, queryMetrics, type RankedDocument } from "./metrics.js";

// Rankings with strictly decreasing scores unless a test is about ties.
function ranked(...ids: string[]): RankedDocument[] {
  return ids.map((id, i) => ({ id, score: 100 - i }));
}

const log2 = Math.log2;

describe("queryMetrics", () => {
  it("scores a perfect single answer as 1 everywhere", () => {
    const m = queryMetrics(ranked("a", "b", "c"), new Map([["a", 1]]));
    expect(m).toEqual({ ndcg10: 1, recall10: 1, mrr10: 1, recall100: 1 });
  });

  it("computes nDCG with several relevant documents and graded judgments by hand", () => {
    // Relevant: a (grade 2) at rank 3, b (grade 1) at rank 1, c (grade 1) never retrieved.
    const judgments = new Map([
      ["a", 2],
      ["b", 1],
      ["c", 1],
      ["x", 0], // judged not relevant: no gain, not counted in recall
    ]);
    const m = queryMetrics(ranked("b", "x", "a", "y"), judgments);
    const dcg = 1 / log2(2) + 2 / log2(4);
    const ideal = 2 / log2(2) + 1 / log2(3) + 1 / log2(4);
    expect(m.ndcg10).toBeCloseTo(dcg / ideal, 10);
    expect(m.ndcg10).toBeCloseTo(0.6388, 4);
    expect(m.recall10).toBeCloseTo(2 / 3, 10);
    expect(m.mrr10).toBe(1);
    expect(m.recall100).toBeCloseTo(2 / 3, 10);
  });

  it("cuts at 10 for nDCG, recall and MRR but counts rank 11-100 for Recall@100", () => {
    const ids = Array.from({ length: 30 }, (_, i) => `d${i}`);
    const m = queryMetrics(ranked(...ids), new Map([["d12", 1]]));
    expect(m).toEqual({ ndcg10: 0, recall10: 0, mrr10: 0, recall100: 1 });
    const atTen = queryMetrics(ranked(...ids), new Map([["d9", 1]]));
    expect(atTen.mrr10).toBeCloseTo(1 / 10, 10);
    expect(atTen.ndcg10).toBeCloseTo(1 / log2(11), 10);
  });

  it("gives 0, not NaN, to a query whose relevant document is not in the corpus", () => {
    // The ideal ranking still counts the missing document, as pytrec_eval does.
    const m = queryMetrics(ranked("a", "b"), new Map([["missing", 1]]));
    expect(m).toEqual({ ndcg10: 0, recall10: 0, mrr10: 0, recall100: 0 });
    const half = queryMetrics(
      ranked("a", "b"),
      new Map([
        ["missing", 1],
        ["a", 1],
      ]),
    );
    expect(half.recall10).toBe(0.5);
    expect(half.ndcg10).toBeCloseTo(1 / (1 + 1 / log2(3)), 10);
  });

  it("gives 0 to an empty result list and to a query without relevant judgments", () => {
    expect(queryMetrics([], new Map([["a", 1]]))).toEqual({ ndcg10: 0, recall10: 0, mrr10: 0, recall100: 0 });
    expect(queryMetrics(ranked("a"), new Map([["a", 0]]))).toEqual({ ndcg10: 0, recall10: 0, mrr10: 0, recall100: 0 });
  });

  it("averages over every order of tied scores instead of trusting the returned order", () => {
    // b and c tie at ranks 2-3; c is relevant: it is at rank 2 or 3 with probability 1/2 each.
    const tied = [
      { id: "a", score: 3 },
      { id: "b", score: 2 },
      { id: "c", score: 2 },
      { id: "d", score: 1 },
    ];
    const m = queryMetrics(tied, new Map([["c", 1]]));
    expect(m.mrr10).toBeCloseTo(0.5 * (1 / 2) + 0.5 * (1 / 3), 10);
    expect(m.ndcg10).toBeCloseTo(0.5 / log2(3) + 0.5 / log2(4), 10);
    // The same scores in the other order give the same numbers.
    const swapped = [tied[0], tied[2], tied[1], tied[3]] as RankedDocument[];
    expect(queryMetrics(swapped, new Map([["c", 1]]))).toEqual(m);
  });

  it("splits a tie that straddles the cut-off by the share of it inside the top 10", () => {
    // Ranks 1-8 distinct and irrelevant, then 4 documents tied at ranks 9-12, one relevant.
    const head = ranked("h1", "h2", "h3", "h4", "h5", "h6", "h7", "h8");
    const tie = ["t1", "t2", "t3", "t4"].map((id) => ({ id, score: 0 }));
    const m = queryMetrics([...head, ...tie], new Map([["t3", 1]]));
    expect(m.recall10).toBeCloseTo(2 / 4, 10);
    expect(m.mrr10).toBeCloseTo((1 / 4) * (1 / 9) + (1 / 4) * (1 / 10), 10);
    expect(m.ndcg10).toBeCloseTo((1 / 4) * (1 / log2(10) + 1 / log2(11)), 10);
    expect(m.recall100).toBe(1);
  });

  it("computes the expected first-relevant rank when a tie holds several relevant documents", () => {
    // Three tied at ranks 1-3, two relevant: first relevant at rank 1 with p = 2/3, rank 2 with p = 1/3.
    const tie = ["a", "b", "c"].map((id) => ({ id, score: 5 }));
    const m = queryMetrics(
      tie,
      new Map([
        ["a", 1],
        ["c", 1],
      ]),
    );
    expect(m.mrr10).toBeCloseTo(2 / 3 + (1 / 3) * (1 / 2), 10);
    expect(m.recall10).toBe(1);
  });
});

describe("meanMetrics and percentile", () => {
  it("averages each metric over queries", () => {
    const mean = meanMetrics([
      { ndcg10: 1, recall10: 1, mrr10: 1, recall100: 1 },
      { ndcg10: 0, recall10: 0.5, mrr10: 0.25, recall100: 1 },
    ]);
    expect(mean).toEqual({ ndcg10: 0.5, recall10: 0.75, mrr10: 0.625, recall100: 1 });
    expect(meanMetrics([])).toEqual({ ndcg10: 0, recall10: 0, mrr10: 0, recall100: 0 });
  });

  it("takes nearest-rank percentiles", () => {
    const values = [5, 1, 4, 2, 3, 10, 9, 8, 7, 6];
    expect(percentile(values, 50)).toBe(5);
    expect(percentile(values, 95)).toBe(10);
    expect(percentile([42], 95)).toBe(42);
    expect(percentile([], 50)).toBeNaN();
  });
});

describe("collapseToDocuments", () => {
  it("keeps each document once, at its best chunk's position and score", () => {
    const chunks = [
      { doc: "a", score: 9 },
      { doc: "b", score: 8 },
      { doc: "a", score: 7 },
      { doc: undefined, score: 6 },
      { doc: "c", score: 5 },
    ];
    expect(collapseToDocuments(chunks, (c) => c.doc)).toEqual([
      { id: "a", score: 9 },
      { id: "b", score: 8 },
      { id: "c", score: 5 },
    ]);
  });
});
