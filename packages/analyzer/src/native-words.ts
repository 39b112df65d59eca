// ICU word boundaries from @docdb/icu-words (an optional addon calling the ICU inside Node.js),
// used by segment.ts in place of Intl.Segmenter when it loads and agrees with it on a probe text.
import { createRequire } from "node:module";

/** The word-like segments of a text: `out[0..count)` holds start and end offsets in pairs. */
export interface WordBounds {
  out: Int32Array;
  count: number;
}

type AddonWords = (text: string, out: Int32Array) => number;

/** Japanese, English, digits, signs and an emoji: a text on which a wrong binding would show. */
const PROBE =
  "東京都に住んでいる田中さんは、2024年4月1日からdocdbのAPIを使い始めた。カタカナ語のデータベースも検索できる。\n" +
  "It's 3.14 km, e.g. don't_stop; version 1,000.5 — ＡＢＣ全角 😀 ok. 漢字かなまじり文、テスト。";

let state: { words: ((text: string) => WordBounds) | undefined; reason: string } | undefined;
let enabled = true;

function icuBounds(text: string): number[] {
  const segmenter = new Intl.Segmenter("ja", { granularity: "word" });
  const bounds: number[] = [];
  for (const { segment, index, isWordLike } of segmenter.segment(text)) if (isWordLike) bounds.push(index, index + segment.length);
  return bounds;
}

function load(): NonNullable<typeof state> {
  let addon: { words?: AddonWords; error?: unknown };
  try {
    addon = createRequire(import.meta.url)("@docdb/icu-words") as typeof addon;
  } catch (error) {
    return { words: undefined, reason: `@docdb/icu-words is not installed (${(error as Error).message.split("\n")[0]})` };
  }
  const addonWords = addon.words;
  if (!addonWords)
    return { words: undefined, reason: `@docdb/icu-words did not load: ${String((addon.error as Error)?.message ?? addon.error)}` };
  let out = new Int32Array(4096);
  const words = (text: string): WordBounds => {
    if (out.length < 2 * text.length) out = new Int32Array(Math.max(2 * text.length, 2 * out.length));
    return { out, count: addonWords(text, out) };
  };
  const got = words(PROBE);
  const expected = icuBounds(PROBE);
  if (got.count !== expected.length || expected.some((value, i) => got.out[i] !== value)) {
    return { words: undefined, reason: "@docdb/icu-words disagrees with Intl.Segmenter on the probe text: not used" };
  }
  return { words, reason: "loaded" };
}

/** The addon's word bounds function, or undefined (Intl.Segmenter is then used). Loaded on first call. */
export function nativeWords(): ((text: string) => WordBounds) | undefined {
  if (!enabled) return undefined;
  state ??= load();
  return state.words;
}

/** Whether words come from the addon, and if not, why (for status output and tests). */
export function nativeWordsStatus(): { active: boolean; reason: string } {
  if (!enabled) return { active: false, reason: "turned off" };
  state ??= load();
  return { active: state.words !== undefined, reason: state.reason };
}

/** Turns the addon off (Intl.Segmenter for every word) or back on; the words are the same. */
export function useNativeWords(on: boolean): void {
  enabled = on;
}
