import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { isSimpleText, segments } from "./segment.js";

const icu = new Intl.Segmenter("ja", { granularity: "word" });

/** Word-like segments as `index:segment`, from ICU. */
function reference(text: string): string[] {
  return [...icu.segment(text)].filter((s) => s.isWordLike).map((s) => `${s.index}:${s.segment}`);
}

function fast(text: string): string[] {
  return [...segments(text)].filter((s) => s.isWordLike).map((s) => `${s.index}:${s.segment}`);
}

/** A small deterministic generator (a linear congruential one), so a failure can be replayed. */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1103515245 + 12345) % 2147483648;
    return state / 2147483648;
  };
}

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));

function sourceTexts(): string[] {
  const texts: string[] = [readFileSync(join(ROOT, "README.md"), "utf8")];
  for (const dir of ["packages/core/src", "packages/analyzer/src", "apps/mcp-server/src"]) {
    for (const file of readdirSync(join(ROOT, dir))) {
      if (file.endsWith(".ts")) texts.push(readFileSync(join(ROOT, dir, file), "utf8"));
    }
  }
  // The analyzer sees chunks, not whole files, NFKC-normalised.
  return texts.flatMap((t) =>
    Array.from({ length: Math.ceil(t.length / 700) }, (_, i) => t.slice(i * 700, (i + 1) * 700).normalize("NFKC")),
  );
}

describe("word segments", () => {
  it("finds the words ICU finds in code and English, on the fast path", () => {
    const texts = sourceTexts();
    let fastPath = 0;
    for (const text of texts) {
      if (isSimpleText(text)) fastPath++;
      expect(fast(text), text).toEqual(reference(text));
    }
    // Chunks with Japanese in them (test data, examples) go to ICU.
    expect(fastPath).toBeGreaterThan(texts.length * 0.9);
  });

  it("agrees with ICU on random strings of letters, digits and the characters that join them", () => {
    const next = random(16);
    const alphabet = [..."aZe09_.:'’‘,;- \n\t()[]{}\"“”–—éÀñ\u00a0$@#/\\xY7§©«°±»¿×÷•→≤■‚"];
    for (let k = 0; k < 20000; k++) {
      let text = "";
      const length = 1 + Math.floor(next() * 16);
      for (let j = 0; j < length; j++) text += alphabet[Math.floor(next() * alphabet.length)];
      expect(fast(text), JSON.stringify(text)).toEqual(reference(text));
    }
  });

  it("hands text in other scripts to ICU", () => {
    expect(isSimpleText("東京の人口 getUserName")).toBe(false);
    expect(fast("東京の人口 getUserName")).toEqual(reference("東京の人口 getUserName"));
    expect(fast("naïve café · x")).toEqual(reference("naïve café · x"));
    expect(fast("emoji 👍🏽 ok")).toEqual(reference("emoji 👍🏽 ok"));
  });

  it("joins letters across . : and apostrophes, digits across . , ; — never across two of them", () => {
    const words = (text: string) => [...segments(text)].map((s) => s.segment);
    expect(words("this.store.write(a) it's std::vector ns:name")).toEqual(["this.store.write", "a", "it's", "std", "vector", "ns:name"]);
    expect(words("1,000.50 a.1 1.a a..b _ __ __init__")).toEqual(["1,000.50", "a", "1", "1", "a", "a", "b", "__", "__init__"]);
  });
});
