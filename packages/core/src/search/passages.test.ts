import type { ChunkHit } from "@docdb/store";
import { describe, expect, it } from "vitest";
import type { SearchResult } from "../types.js";
import { describeBudget, firstPassages, fitBudget, groupPassages, toPassage } from "./passages.js";

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

  it("cuts at the last white space of any kind a regular expression's \\s knows, within the budget's last fifth", () => {
    // The cut before the loop that replaced /\s\S*$/: the place every white space must give again.
    const reference = (text: string, limit: number): string => {
      const head = text.slice(0, limit);
      const floor = Math.floor(limit * 0.8);
      const line = head.lastIndexOf("\n");
      if (line >= floor) return head.slice(0, line);
      const space = head.search(/\s\S*$/);
      return space >= floor ? head.slice(0, space) : head;
    };
    const budgetCut = (text: string) =>
      fitBudget([{ chunk_id: "c", chunk_ids: ["c"], doc_id: "d", text, score: 1, start: 0, end: text.length, metadata: {} }], 200, true)
        .results[0]?.text;
    let spaces = 0;
    for (let unit = 0; unit <= 0xffff; unit++) {
      const char = String.fromCharCode(unit);
      const isSpace = /\s/.test(char);
      // Every white space, and every 97th other code unit (the loop must not take those for one).
      if (!isSpace && unit % 97 !== 0) continue;
      if (isSpace) spaces++;
      const text = `${"語".repeat(170)}${char}${"x".repeat(60)}`;
      expect(budgetCut(text), `U+${unit.toString(16)}`).toBe(reference(text, 200));
    }
    expect(spaces).toBe(25);
    // White space before the floor (160) is too far back: the cut keeps the whole 200.
    const early = `${"a".repeat(100)} ${"b".repeat(200)}`;
    expect(budgetCut(early)).toBe(reference(early, 200));
    expect(budgetCut(early)).toHaveLength(200);
  });

  it("takes the first passages of distinct documents as they come, and merges neighbours when a document repeats", () => {
    const distinct = Array.from({ length: 12 }, (_, i) => ({ hit: hit(`c${i}`, 0, 0, 4, `d${i}`), score: 1 - i / 100 }));
    const ten = firstPassages(distinct, 10, true);
    expect(ten.complete).toBe(true);
    expect(ten.hits.map((h) => h.hit.id)).toEqual(distinct.slice(0, 10).map((h) => h.hit.id));
    expect(ten.groups.map(({ group, single }) => [group.docId, group.members.length, single])).toEqual(
      distinct.slice(0, 10).map((h) => [h.hit.docId, 1, true]),
    );
    const short = firstPassages(distinct.slice(0, 4), 10, true);
    expect([short.complete, short.hits.length, short.groups.length]).toEqual([false, 4, 4]);
    // Two neighbouring chunks of d0 among them: one passage, so one more hit is taken for the tenth.
    const repeated = [distinct[0], { hit: hit("n1", 1, 4, 8, "d0"), score: 0.995 }, ...distinct.slice(1)] as typeof distinct;
    const merged = firstPassages(repeated, 10, true);
    expect(merged.complete).toBe(true);
    expect(merged.hits).toHaveLength(11);
    expect(merged.groups[0]?.group.members.map((m) => m.hit.id)).toEqual(["c0", "n1"]);
    expect(merged.groups.map(({ group }) => group.docId)).toEqual(distinct.slice(0, 10).map((h) => h.hit.docId));
  });
});
