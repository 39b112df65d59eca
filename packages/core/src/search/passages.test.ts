import type { ChunkHit } from "@docdb/store";
import { describe, expect, it } from "vitest";
import type { SearchResult } from "../types.js";
import { describeBudget, fitBudget, groupPassages, toPassage } from "./passages.js";

const TEXT = "aaaa bbbb cccc dddd eeee ffff gggg hhhh";

function hit(id: string, idx: number, start: number, end: number, docId = "d1"): ChunkHit {
  return {
    id,
    docId,
    idx,
    text: TEXT.slice(start, end),
    start,
    end,
    heading: null,
    lineStart: 1,
    lineEnd: 1,
    language: null,
    symbol: null,
    symbolKind: null,
    symbols: [],
    codeFallback: null,
    locator: null,
    doc: null,
    embedded: false,
    title: null,
    source: null,
    collection: null,
    metadata: {},
    docUpdatedAt: "",
  };
}

describe("passages", () => {
  it("merges overlapping and neighbouring chunks of one document, keeps the best score and re-slices the text", () => {
    const ranked = [
      { hit: hit("c2", 2, 8, 16), score: 1 },
      { hit: hit("x", 0, 0, 5, "d2"), score: 0.9 },
      { hit: hit("c1", 1, 4, 10), score: 0.5 },
      { hit: hit("c3", 3, 16, 20), score: 0.4 },
      { hit: hit("c6", 6, 30, 34), score: 0.3 },
    ];
    const groups = groupPassages(ranked, true);
    const passages = groups.map(({ group }) => toPassage(group, group.docId === "d1" ? TEXT : undefined));
    expect(passages.map((p) => [p.doc_id, p.chunk_ids, p.score, p.start, p.end])).toEqual([
      ["d1", ["c1", "c2", "c3"], 1, 4, 20],
      ["d2", ["x"], 0.9, 0, 5],
      ["d1", ["c6"], 0.3, 30, 34],
    ]);
    expect(passages[0]?.text).toBe(TEXT.slice(4, 20));
    expect(passages[0]?.chunk_id).toBe("c2");
    expect(groupPassages(ranked, false)).toHaveLength(5);
  });

  it("fits passages into the budget: whole, then cut, then references", () => {
    const p = (text: string): SearchResult => ({
      chunk_id: "c",
      chunk_ids: ["c"],
      doc_id: "d",
      text,
      score: 1,
      start: 0,
      end: text.length,
      metadata: {},
    });
    const { results, budget } = fitBudget([p("x".repeat(100)), p(`${"word ".repeat(60)}`), p("y".repeat(50))], 300, true);
    expect(results[0]?.text).toHaveLength(100);
    expect(results[1]?.truncated).toBe(true);
    expect((results[1]?.text ?? "").length).toBeLessThanOrEqual(200);
    expect(results[1]?.text?.endsWith("word")).toBe(true);
    expect(results[2]).toMatchObject({ truncated: true });
    expect(results[2]?.text).toBeUndefined();
    expect(budget).toMatchObject({ max_chars: 300, cut: 1, omitted: 1 });
    expect(budget.chars).toBe(100 + (results[1]?.text ?? "").length);
    expect(describeBudget(budget)).toMatch(/limited to 300 characters/);

    const refs = fitBudget([p("abc")], 6000, false);
    expect(refs.results[0]?.text).toBeUndefined();
    expect(refs.results[0]?.truncated).toBeUndefined();
    expect(describeBudget(refs.budget)).toBeUndefined();
  });
});
