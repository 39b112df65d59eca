import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { analyzeForIndex, indexTerms, splitTerms, words } from "./index.js";
import { icuWordList, isSimpleText, wordList } from "./segment.js";

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

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));

/** The repository's own README and sources in chunk-sized pieces, NFKC-normalised as the analyzer sees them. */
function sourceTexts(): string[] {
  const texts: string[] = [readFileSync(join(ROOT, "README.md"), "utf8")];
  for (const dir of ["packages/core/src", "packages/analyzer/src", "apps/mcp-server/src"]) {
    for (const file of readdirSync(join(ROOT, dir))) {
      if (file.endsWith(".ts")) texts.push(readFileSync(join(ROOT, dir, file), "utf8"));
    }
  }
  return texts.flatMap((t) =>
    Array.from({ length: Math.ceil(t.length / 700) }, (_, i) => t.slice(i * 700, (i + 1) * 700).normalize("NFKC")),
  );
}

describe("forEachWord on code, Latin letters and symbols", () => {
  it("finds the words ICU finds in code and English, mostly without calling ICU", () => {
    const texts = sourceTexts();
    let fastPath = 0;
    for (const text of texts) {
      if (isSimpleText(text)) fastPath++;
      expect(wordList(text), text).toEqual(icuWordList(text));
    }
    // Chunks with Japanese in them (test data, examples) call ICU for those stretches.
    expect(fastPath).toBeGreaterThan(texts.length * 0.9);
  });

  it("agrees with ICU on random strings of letters, digits and the characters that join them", () => {
    const next = random(16);
    const alphabet = [..."aZe09_.:'’‘,;- \n\t()[]{}\"“”–—éÀñ\u00a0$@#/\\xY7§©«°±»¿×÷•→≤■‚"];
    const differing: string[] = [];
    for (let k = 0; k < 20_000; k++) {
      let text = "";
      const length = 1 + Math.floor(next() * 16);
      for (let j = 0; j < length; j++) text += alphabet[Math.floor(next() * alphabet.length)];
      if (JSON.stringify(wordList(text)) !== JSON.stringify(icuWordList(text))) differing.push(text);
    }
    expect(differing).toEqual([]);
  });

  it("agrees with ICU on every character the fast path takes, alone and between letters, digits and joiners", () => {
    const fast: string[] = [];
    for (let c = 0; c < 0x2600; c++) if (isSimpleText(String.fromCharCode(c))) fast.push(String.fromCharCode(c));
    // ASCII, Latin letters, and the signs, dashes, arrows and shapes listed in segment.ts.
    expect(fast.length).toBeGreaterThan(1000);
    expect(isSimpleText("\u00b7")).toBe(false); // · joins letters (MidLetter)
    expect(isSimpleText("\u00ad")).toBe(false); // the soft hyphen is ignored inside words
    expect(isSimpleText("ª")).toBe(false); // a letter outside the fast path's table
    const around = ["a", "É", "1", "_", ".", ":", "’", ",", " ", "漢"];
    const differing: string[] = [];
    for (const c of fast) {
      for (const x of around) {
        for (const text of [c, `${x}${c}${x}`, `a${c}${x}b`, `${x}${c}1`]) {
          if (JSON.stringify(wordList(text)) !== JSON.stringify(icuWordList(text))) differing.push(text);
        }
      }
    }
    expect(differing).toEqual([]);
  });

  it("hands text in other scripts to ICU", () => {
    expect(isSimpleText("東京の人口 getUserName")).toBe(false);
    expect(isSimpleText("naïve café – x → y")).toBe(true);
    for (const text of ["東京の人口 getUserName", "naïve café · x", "emoji 👍🏽 ok", "Ελληνικά και English"])
      expect(wordList(text)).toEqual(icuWordList(text));
  });

  it("joins letters across . : and apostrophes, digits across . , ; — never across two of them", () => {
    const words = (text: string) => wordList(text).map(([w]) => w);
    expect(words("this.store.write(a) it's std::vector ns:name")).toEqual(["this.store.write", "a", "it's", "std", "vector", "ns:name"]);
    expect(words("1,000.50 a.1 1.a a..b _ __ __init__")).toEqual(["1,000.50", "a", "1", "1", "a", "a", "b", "__", "__init__"]);
    expect(words("l’été über–straße")).toEqual(["l’été", "über", "straße"]);
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
      expect(splitTerms(indexTerms(null, {}, text).body)).toEqual(list);
    }
    expect(indexTerms("東京の天気", { heading: "見出し > part" }, "本文")).toEqual({
      version: expect.any(Number),
      title: [...words("東京の天気"), ...words("見出し > part")].join(" "),
      body: "本文",
    });
    expect(indexTerms(null, {}, "")).toMatchObject({ title: "", body: "" });
    // Code: the symbols (all of them when a chunk holds several) and the documentation join the
    // title; the body leaves the language's reserved words out.
    const code = "export function retryCharge(id) { return this.store.write(id); }";
    expect(
      indexTerms(
        "payments.ts",
        { heading: null, symbol: "PaymentService.retryCharge", doc: "Charges again.", language: "typescript" },
        code,
      ),
    ).toEqual({
      version: expect.any(Number),
      title: [...words("payments.ts"), ...words("PaymentService.retryCharge"), ...words("Charges again.")].join(" "),
      body: words(code, "typescript").join(" "),
    });
    expect(words(code, "typescript")).not.toContain("return");
    expect(words(code)).toContain("return");
    const packed = indexTerms(null, { symbol: "a", symbols: [{ symbol: "alpha" }, { symbol: "beta" }] }, "x");
    expect(packed.title).toBe("alpha beta");
    expect(splitTerms("")).toEqual([]);
  });
});
