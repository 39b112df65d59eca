import { describe, expect, it } from "vitest";
import { analyzeForIndex, indexTerms, splitTerms, words } from "./analyzer.js";
import { icuWordList, wordList } from "./segment.js";

/** A small seeded generator (the same strings every run). */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1103515245 + 12345) & 0x7fffffff;
    return state / 0x7fffffff;
  };
}

// ASCII that UAX #29 treats specially (letters, digits, _ and the joining marks . ' : , ;),
// whitespace, and what sits next to ASCII in real text: kana, kanji, accents (precomposed and
// combining), full-width forms, ZWJ and emoji, Hebrew, Thai, no-break and ideographic spaces.
const COMMON = [..."aZq09_.':,;\"-/ \t\n"];
const RARE = [
  ..."\r\u000b\u000c!?()[]{}@#$%^&*+=<>|~`\\\u0000\u007f",
  "\u00ad",
  "é",
  "e\u0301",
  "\u0301",
  "の",
  "カ",
  "タ",
  "ー",
  "漢",
  "字",
  "・",
  "\u3000",
  "ｶ",
  "Ａ",
  "\u200d",
  "👍",
  "🇯",
  "🇵",
  "א",
  "ק",
  "\u00a0",
  "ß",
  "ﬁ",
  "١",
  "²",
  "’",
  "\u2028",
  "ไท",
];

describe("forEachWord", () => {
  it("finds exactly ICU's words, with their offsets, on random text", () => {
    const next = random(12);
    const pick = () =>
      next() < 0.6 ? (COMMON[Math.floor(next() * COMMON.length)] as string) : (RARE[Math.floor(next() * RARE.length)] as string);
    const differing: string[] = [];
    for (let n = 0; n < 20_000; n++) {
      let text = "";
      const length = 1 + Math.floor(next() * 12);
      for (let i = 0; i < length; i++) text += pick();
      if (JSON.stringify(wordList(text)) !== JSON.stringify(icuWordList(text))) differing.push(text);
    }
    expect(differing).toEqual([]);
  });

  it("follows UAX #29 on ASCII: joining marks between letters or digits, lone underscores", () => {
    const words = (text: string) => wordList(text).map(([w]) => w);
    expect(words("e.g. don't a:b 1:2 1,000.50 1;2 a;b x1.y 1a.b")).toEqual([
      "e.g",
      "don't",
      "a:b",
      "1",
      "2",
      "1,000.50",
      "1;2",
      "a",
      "b",
      "x1",
      "y",
      "1a.b",
    ]);
    expect(words("_ __ a_ _1 a..b http://x.com/a_b?c=1")).toEqual(["__", "a_", "_1", "a", "b", "http", "x.com", "a_b", "c", "1"]);
    for (const text of ["e.g. don't a:b 1:2", "_ __ a_ _1", "東京 は cafe\u0301 の e-mail"])
      expect(wordList(text)).toEqual(icuWordList(text));
  });
});

describe("index terms", () => {
  it("are never empty and never hold whitespace, so space-joined fields split back exactly", () => {
    const next = random(99);
    const pick = () =>
      next() < 0.6 ? (COMMON[Math.floor(next() * COMMON.length)] as string) : (RARE[Math.floor(next() * RARE.length)] as string);
    for (let n = 0; n < 5_000; n++) {
      let text = "";
      const length = 1 + Math.floor(next() * 16);
      for (let i = 0; i < length; i++) text += pick();
      const list = words(text);
      for (const w of list) expect(w, JSON.stringify(text)).toMatch(/^\S+$/);
      expect(analyzeForIndex(text)).toBe(list.join(" "));
      expect(splitTerms(indexTerms(null, null, text).body)).toEqual(list);
    }
    expect(indexTerms("東京の天気", "見出し > part", "本文")).toEqual({
      version: expect.any(Number),
      title: [...words("東京の天気"), ...words("見出し > part")].join(" "),
      body: "本文",
    });
    expect(indexTerms(null, null, "")).toMatchObject({ title: "", body: "" });
    expect(splitTerms("")).toEqual([]);
  });
});
