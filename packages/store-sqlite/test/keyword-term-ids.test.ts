// The keyword index's term table and number map against what they replace: tokenize() with a Map
// of strings, and a Map of numbers, on random input.
import { describe, expect, it } from "vitest";
import { IntMap } from "../src/keyword-index/int-map.js";
import { TermIds } from "../src/keyword-index/term-ids.js";
import { tokenize } from "../src/keyword-index/tokenize.js";

/** A small deterministic generator (mulberry32). */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// Letters that fold (upper case, full width, Greek), diacritics that only continue a token,
// separators, CJK, astral letters (one folds: 𐐀 → 𐐨), an emoji, and lone surrogates.
const PIECES = [
  "a",
  "b",
  "c",
  "Z",
  "Q",
  "É",
  "ü",
  "Σ",
  "ς",
  "Ｆ",
  "ｏ",
  "_",
  "1",
  "0",
  "\u0301",
  "\u0308",
  " ",
  " ",
  " ",
  ",",
  ".",
  "-",
  "\u3000",
  "東",
  "大",
  "寺",
  "の",
  "ア",
  "ｱ",
  "𠮷",
  "𐐀",
  "𐐨",
  "😀",
  "\ud800",
  "\udc00",
];

function randomText(next: () => number, length: number): string {
  let out = "";
  for (let i = 0; i < length; i++) out += PIECES[Math.floor(next() * PIECES.length)];
  return out;
}

describe("TermIds", () => {
  it("tokenises as tokenize() does and gives each term one id, across table growth", () => {
    const next = random(7);
    // A base of terms, as a segment holds them.
    const base = [...new Set(tokenize(randomText(next, 3000)))];
    const ids = new TermIds(base);
    const byTerm = new Map<string, number>(base.map((t, i) => [t, i]));
    const out = new Int32Array(5000);
    let tokens = 0;
    for (let round = 0; round < 400; round++) {
      // Now and then a token far longer than the table's scratch room (64 code units).
      const text = round % 50 === 0 ? `x ${"ab\u0301".repeat(100)}Ｚ y` : randomText(next, Math.floor(next() * 300));
      const expected = tokenize(text);
      const n = ids.ids(text, out, 3);
      expect(n).toBe(expected.length);
      for (let i = 0; i < n; i++) {
        const term = expected[i] as string;
        const id = out[3 + i] as number;
        expect(ids.term(id)).toBe(term);
        const known = byTerm.get(term);
        if (known === undefined) byTerm.set(term, id);
        else expect(id).toBe(known);
        expect(ids.get(term)).toBe(id);
      }
      tokens += n;
    }
    expect(tokens).toBeGreaterThan(10_000);
    // Many new terms: the table grew several times past its first 1,024 places.
    expect(ids.size).toBe(byTerm.size);
    expect(ids.size).toBeGreaterThan(2000);
    expect(ids.added.length).toBe(ids.size - base.length);
    expect(new Set([...byTerm.values()]).size).toBe(byTerm.size);
    expect(ids.get("never-seen-term")).toBe(-1);
    expect(ids.get("")).toBe(-1);
  });

  it("reads a text with no tokens, and one that is all one token", () => {
    const ids = new TermIds(["abc"]);
    const out = new Int32Array(100);
    expect(ids.ids("", out, 0)).toBe(0);
    expect(ids.ids(" ,. \u0301 ", out, 0)).toBe(0);
    expect(ids.ids("ABC", out, 0)).toBe(1);
    expect(out[0]).toBe(0);
    expect(ids.ids("abcd", out, 0)).toBe(1);
    expect(out[0]).toBe(1);
    expect(ids.term(1)).toBe("abcd");
  });
});

describe("IntMap", () => {
  it("holds what a Map of numbers holds, across growth", () => {
    const next = random(11);
    const map = new IntMap(4);
    const expected = new Map<number, number>();
    for (let i = 0; i < 20_000; i++) {
      const key = i % 3 === 0 ? i : Math.floor(next() * 0x7ffffffe);
      if (expected.has(key)) continue;
      map.add(key, i);
      expected.set(key, i);
    }
    expect(map.size).toBe(expected.size);
    for (const [key, value] of expected) expect(map.get(key)).toBe(value);
    expect(map.get(1)).toBe(-1);
    expect(map.get(0)).toBe(0);
  });
});
