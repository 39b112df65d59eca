// warmUp(): a freshly loaded keyword index searched for its own terms before the first find, with
// nothing kept from those searches (phrase matches, bounds) and the same answers after.
import type { KeywordQuery } from "@docdb/analyzer";
import { describe, expect, it } from "vitest";
import { type IndexedRow, KeywordIndex } from "../src/keyword-index/index.js";
import { WARM_SEARCHES, warmUp, warmUpOnce } from "../src/keyword-index/warm.js";

/** 2,000 rows: words w0…w9 each in about 3% of rows, in changing order, among filler words. */
function rows(): IndexedRow[] {
  return Array.from({ length: 2000 }, (_, seq) => {
    const words = Array.from({ length: 12 }, (_, i) => `filler${(seq * 7 + i) % 50}`);
    for (let w = 0; w < 10; w++)
      if ((seq + w * 13) % 33 === 0) words.splice((seq + w) % 12, 0, `w${w}`, `w${(w + 1) % 10}`, `w${(w + 2) % 10}`);
    return { seq: seq + 1, title: seq % 10 === 0 ? `w${seq % 10} title` : "", body: words.join(" ") };
  });
}

function build(list: IndexedRow[]): KeywordIndex {
  const index = KeywordIndex.empty();
  for (const r of list) index.add(r);
  index.compact(); // as loaded from its file
  return index;
}

describe("warming a keyword index up", () => {
  it("runs its searches, keeps none of their phrase matches, and answers as an index never searched", async () => {
    const index = build(rows());
    const [a, b, c] = index.termsHeld(Math.ceil(index.rows / 200), Math.ceil(index.rows / 20), 6);
    expect([a, b, c].every((t) => t !== undefined)).toBe(true);
    let pauses = 0;
    const ran = await warmUp(index, async () => {
      pauses++;
    });
    expect(ran).toBe(WARM_SEARCHES);
    expect(pauses).toBe(WARM_SEARCHES);
    // A phrase the warm-up searched for is matched again by the next find: nothing was kept.
    const query: KeywordQuery = { any: [[a as string], [b as string]], phrases: [[a as string, b as string]] };
    const stats = { postings: 0, scored: 0, phraseRows: 0 };
    const ln = Math.log;
    const got = index.search(query, 10, { ln, stats });
    expect(stats.phraseRows).toBeGreaterThan(0);
    expect(got).toEqual(build(rows()).search(query, 10, { ln }));
    expect(got.length).toBe(10);
  });

  it("stops when its pause says so (a store closing while the index loads)", async () => {
    const index = build(rows());
    let pauses = 0;
    expect(await warmUp(index, async () => ++pauses < 3)).toBe(3);
  });

  it("skips an index without enough terms", async () => {
    const index = build([{ seq: 1, title: "", body: "one two" }]);
    expect(await warmUp(index, async () => {})).toBe(0);
    expect(await warmUp(KeywordIndex.empty(), async () => {})).toBe(0);
  });
});

describe("the terms a warm-up searches for", () => {
  it("are those with a share of the rows, else the most held ones, largest first", () => {
    const list = Array.from({ length: 100 }, (_, seq) => ({
      seq,
      title: "",
      body: ["a", seq < 60 ? "b" : "", seq < 30 ? "c" : "", seq < 90 ? "d" : "", seq < 5 ? "e" : ""].join(" "),
    }));
    const index = build(list);
    expect(index.termsHeld(20, 70, 6)).toEqual(["a", "d", "b", "c", "e"]); // two in range: not enough
    expect(index.termsHeld(1000, 2000, 3)).toEqual(["a", "d", "b"]);
    expect(index.termsHeld(1000, 2000, 9)).toEqual(["a", "d", "b", "c", "e"]);
    expect(index.termsHeld(20, 70, 2)).toEqual(["b", "c"]);
  });
});

describe("a warm-up that cannot search", () => {
  it("leaves the load alone: warmUpOnce() returns 0 instead of throwing, and a later index is still warmed", async () => {
    const index = build(rows());
    const failing = Object.create(index) as KeywordIndex;
    // Searching this one fails (as a positions file closed under it would).
    Object.defineProperty(failing, "cursor", {
      value: () => {
        throw new Error("keyword index: its file was closed");
      },
    });
    expect(await warmUpOnce(failing, async () => {})).toBe(0);
    expect(await warmUpOnce(index, async () => {})).toBe(WARM_SEARCHES);
    expect(await warmUpOnce(index, async () => {})).toBe(0);
  });
});
