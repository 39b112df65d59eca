// The analyser's output pinned: the terms of a varied generated corpus (Japanese, English, code,
// mixed, emoji, odd whitespace) must match those stored in fixtures/terms-stability.json, which
// were computed before the analyser was made faster. Any change to the terms fails here.
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { stemmer } from "stemmer";
import { describe, expect, it } from "vitest";
import { OWN_STEM_ENDINGS } from "./analyzer.js";
import { ANALYZER_VERSION, analyzeForIndex, terms, words } from "./index.js";

const FIXTURE = new URL("./fixtures/terms-stability.json", import.meta.url);

/** A small seeded generator (the same strings every run). */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1103515245 + 12345) & 0x7fffffff;
    return state / 0x7fffffff;
  };
}

const FRAGMENTS = [
  // Japanese: kanji, hiragana, katakana (with long vowels and the middle dot), okurigana, numbers.
  "東京都に住んでいます。",
  "コンピューターのサーバーを再起動しました",
  "認証設定は顧客の注文を確認します。",
  "マルセル・プルーストのサターン",
  "始まった会議は美しい結果を記録します",
  "ｶﾀｶﾅの半角とＡＢＣ全角、１２３。",
  "「検索結果」が表示されます！",
  "一ヶ月後に々〆〇を更新",
  "ツリー構造のデータベース",
  "アイウエの認証設定はカキクケコを確認します。",
  // English: possessives, accents, hyphens, numbers, abbreviations.
  "The patient's Crohn’s disease",
  "café naïve résumé Éclair",
  "IL-6 and TNF-α levels in COVID-19 e-mail 17-25",
  "3.14 and 1,000,000 or 2;3 e.g. i.e. U.S.A.",
  "Running runs ran easily connected connections",
  "don't won't it's animals' ‘quoted’",
  // Code: identifiers, member paths, snake and screaming case, reserved words.
  "const getUserName = () => this.store.writeDocuments(x);",
  "def build_index(self): return self.max_connections",
  "HTTPServer PaymentService.retryCharge os.path.join STOCK_LEVEL_LIMIT",
  "__init__ _private __ _ a_b_c std::vector<int> a:b",
  "`refreshAccessToken(token)` は トークン を返す。",
  "ClpC RhoA getHTTPResponseCode XMLHttpRequest",
  // Emoji, flags, ZWJ sequences, combining marks, other scripts.
  "👍🏽 👨‍👩‍👧 🇯🇵 ❤️ ✅done",
  "e\u0301t\u00e9 \u0301alone a\u0308",
  "ไทย עברית Ελληνικά русский ١٢٣ ²³",
  "ﬁne ß straße \u00ad soft\u00adhyphen",
  "\u200dzwj\u200d \u2028line\u2029para",
];
const SEPARATORS = [" ", " ", " ", "\n", "\t", "", "  ", "\r\n", "\u3000", "\u00a0", " ・ ", "、", ". ", "\n\n", "\u000b", "\u000c"];

function corpus(count: number): string[] {
  const next = random(26);
  const pick = <T>(list: readonly T[]) => list[Math.floor(next() * list.length)] as T;
  const out: string[] = [];
  for (let n = 0; n < count; n++) {
    // Mostly short texts, some long ones (several thousand characters).
    const pieces = next() < 0.1 ? 40 + Math.floor(next() * 120) : 1 + Math.floor(next() * 12);
    let text = next() < 0.2 ? pick(SEPARATORS) : "";
    for (let p = 0; p < pieces; p++) {
      let fragment = pick(FRAGMENTS);
      // A random cut, so fragments meet mid-word.
      if (next() < 0.4) fragment = fragment.slice(Math.floor(next() * fragment.length));
      text += fragment + pick(SEPARATORS);
    }
    out.push(text);
  }
  return out;
}

/** Everything the analyser produces for a text, as one digest. */
function digest(text: string): string {
  const all = [words(text), terms(text), words(text, "python"), analyzeForIndex(text, "typescript")];
  return createHash("sha256").update(JSON.stringify(all)).digest("hex").slice(0, 16);
}

describe("analyser output", () => {
  it("is exactly the stored terms on a varied corpus", () => {
    const expected = JSON.parse(readFileSync(FIXTURE, "utf8")) as { version: number; digests: string[] };
    expect(expected.version).toBe(ANALYZER_VERSION);
    const texts = corpus(expected.digests.length);
    const differing = texts
      .map((text, i) => ({ i, text, got: digest(text) }))
      .filter(({ i, got }) => got !== expected.digests[i])
      .map(({ i, text }) => `#${i} ${JSON.stringify(text)} → ${JSON.stringify(words(text))}`);
    expect(differing.slice(0, 5), `${differing.length} texts analyse differently from the stored terms`).toEqual([]);
  });
});

describe("Porter stems", () => {
  it("leave every word ending in one of OWN_STEM_ENDINGS as it is", () => {
    const next = random(7);
    const letters = "abcdefghijklmnopqrstuvwxyz";
    // Random words, and words built of English suffixes (where Porter's rules act).
    const suffixes = ["ational", "ness", "ing", "ed", "eed", "ies", "ss", "ful", "ous", "ize", "ll", "y", "e", "al", "ic", "ou", "ism"];
    const changed: string[] = [];
    for (let n = 0; n < 200_000; n++) {
      let word = "";
      const length = 1 + Math.floor(next() * 10);
      for (let i = 0; i < length; i++) word += letters[Math.floor(next() * letters.length)];
      if (next() < 0.5) word += suffixes[Math.floor(next() * suffixes.length)];
      for (const end of OWN_STEM_ENDINGS) {
        const candidate = word + end;
        if (candidate.length >= 3 && stemmer(candidate) !== candidate) changed.push(candidate);
      }
    }
    expect(changed.slice(0, 10)).toEqual([]);
  });
});

/** For regenerating the fixture (only when the terms are meant to change, with ANALYZER_VERSION). */
export function fixture(count = 2000): { version: number; digests: string[] } {
  return { version: ANALYZER_VERSION, digests: corpus(count).map(digest) };
}
