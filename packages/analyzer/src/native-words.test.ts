// The ICU addon (@docdb/icu-words) against Intl.Segmenter: loaded here, the same words on both
// eval corpora and on random text, and the same index terms with the addon on and off.
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { indexTerms } from "./index-terms.js";
import { nativeWords, nativeWordsStatus, useNativeWords } from "./native-words.js";
import { icuWordList, wordList } from "./segment.js";

const EVAL = fileURLToPath(new URL("../../../../shared/eval", import.meta.url));

function corpus(name: string): string[] {
  const file = join(EVAL, name, "corpus.jsonl");
  if (!existsSync(file)) throw new Error(`${file} is missing: the eval sets live in ../shared/eval beside the repository`);
  return readFileSync(file, "utf8")
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line) as { title?: string; text: string })
    .map((doc) => `${doc.title ?? ""}\n${doc.text}`);
}

afterEach(() => useNativeWords(true));

describe("ICU words from the addon", () => {
  it("is built by the install and used on this machine", () => {
    expect(nativeWordsStatus()).toEqual({ active: true, reason: "loaded" });
  });

  it.each(["jaquad", "scifact"])(
    "gives Intl.Segmenter's word-like segments on every %s document",
    (name) => {
      const native = nativeWords();
      if (!native) throw new Error("the addon is not loaded");
      const segmenter = new Intl.Segmenter("ja", { granularity: "word" });
      let differing = 0;
      let words = 0;
      for (const text of corpus(name)) {
        const { out, count } = native(text);
        const expected: number[] = [];
        for (const { segment, index, isWordLike } of segmenter.segment(text)) if (isWordLike) expected.push(index, index + segment.length);
        words += expected.length / 2;
        if (count !== expected.length || expected.some((value, i) => out[i] !== value)) differing++;
      }
      expect(words).toBeGreaterThan(500_000);
      expect(differing).toBe(0);
    },
    120_000,
  );

  it("gives the same words through forEachWord as ICU alone, with the addon on and off", () => {
    const texts = corpus("jaquad").slice(0, 300);
    for (const on of [true, false]) {
      useNativeWords(on);
      expect(nativeWordsStatus().active).toBe(on);
      for (const text of texts) expect(wordList(text)).toEqual(icuWordList(text));
    }
  });

  it("leaves the index terms unchanged", () => {
    const texts = [...corpus("jaquad").slice(0, 200), ...corpus("scifact").slice(0, 200)];
    const terms = (on: boolean) => {
      useNativeWords(on);
      return texts.map((text) => indexTerms("題名 Title", { heading: "見出し" }, text));
    };
    expect(terms(true)).toEqual(terms(false));
  });

  it("grows its offsets buffer for a long text", () => {
    const native = nativeWords();
    if (!native) throw new Error("the addon is not loaded");
    const text = "東京で会議。".repeat(5_000);
    const { out, count } = native(text);
    expect(count).toBe(icuWordList(text).length * 2);
    expect(out.length).toBeGreaterThanOrEqual(2 * text.length);
  });
});
