/**
 * Word segmentation with the words of `Intl.Segmenter('ja', { granularity: 'word' })` (ICU),
 * at a fraction of its cost on Latin text and code.
 *
 * ICU costs about a microsecond per segment in V8 (every word, space and punctuation mark is a
 * call across into C++ and an object), which made it half of ingest and most of the CPU time of
 * importing code. Its word rules (UAX #29) on ASCII and Latin letters are simple and local, so
 * such text is cut here in JavaScript by the same rules, and ICU only sees the stretches that hold
 * other characters (Japanese needs its dictionary).
 *
 * The rules, for letters L (ASCII and Latin-1/Extended-A/B letters), digits N and `_`:
 * - a word is a run of L, N and `_` (WB5, WB8–WB10, WB13a/b);
 * - `.` `:` `'` `‘` `’` join two letters into one word (WB6/7: `a.b`, `it's`, `std:x`; ICU's
 *   Japanese locale counts `:` as MidLetter);
 * - `.` `,` `;` `'` `‘` `’` join two digits (WB11/12: `1,000`, `3.14`);
 * - a run of one `_` alone is not a word, two or more are (ICU's rule status);
 * - every other character the fast path takes (ASCII punctuation, Latin-1 signs, dashes, quotes,
 *   bullets, arrows, mathematical operators, box drawing, geometric shapes) ends a word and is
 *   none itself.
 *
 * Why the two agree on mixed text: text is split at ASCII whitespace, and UAX #29 always breaks
 * before a whitespace character (after a non-whitespace one) and after one when a character of
 * the fast path follows, so a run of such characters is cut the same whatever surrounds it. A
 * stretch with other characters goes to ICU together with the whitespace character in front of
 * it (a combining mark after a space belongs to the space, rule WB4); ICU's dictionary runs
 * (kanji, kana) end at whitespace too. `segment.test.ts` checks the equality on random text,
 * on every character of the fast path, and on the repository's own code and prose.
 */

import { nativeWords } from "./native-words.js";

/** Character classes of UAX #29 as ICU applies them, for the characters the fast path takes. */
const OTHER = 0; // a segment of its own, never part of a word
const LETTER = 1; // ALetter: A–Z a–z and the Latin letters U+00C0–U+024F (not × ÷)
const DIGIT = 2; // Numeric: 0–9
const UNDERSCORE = 3; // ExtendNumLet: _
const MID_LETTER = 4; // MidLetter: ':' (joins letters only)
const MID_NUM_LET = 5; // MidNumLet and Single_Quote: '.' "'" ‘ ’ (join letters, and digits)
const MID_NUM = 6; // MidNum: ',' ';' (join digits only)
const SPACE = 7; // whitespace: space, tab, line feed, vertical tab, form feed, carriage return
const SLOW = 8; // anything else: ICU decides

/** Code points below this have a class in the table; all above are SLOW. */
const TABLE_SIZE = 0x2600;
const CLASS = new Uint8Array(TABLE_SIZE).fill(SLOW);
const setRange = (from: number, to: number, kind: number) => CLASS.fill(kind, from, to + 1);
setRange(0x00, 0x7f, OTHER);
setRange(0x41, 0x5a, LETTER);
setRange(0x61, 0x7a, LETTER);
setRange(0x30, 0x39, DIGIT);
CLASS[0x5f] = UNDERSCORE;
CLASS[0x3a] = MID_LETTER;
CLASS[0x2e] = MID_NUM_LET;
CLASS[0x27] = MID_NUM_LET;
CLASS[0x2c] = MID_NUM;
CLASS[0x3b] = MID_NUM;
for (const c of [0x20, 0x09, 0x0a, 0x0b, 0x0c, 0x0d]) CLASS[c] = SPACE;
// Latin-1 signs that are neither letters, digits nor joiners (not `·`, a joiner, nor the soft
// hyphen, which UAX #29 ignores inside words, nor ª º µ, which are letters).
setRange(0xa0, 0xa7, OTHER);
for (const c of [0xa9, 0xab, 0xac, 0xae, 0xb0, 0xb1, 0xb6, 0xbb, 0xbf, 0xd7, 0xf7]) CLASS[c] = OTHER;
// Latin-1 Supplement, Latin Extended-A and -B letters (× and ÷ set above stay OTHER).
for (let c = 0xc0; c <= 0x24f; c++) if (c !== 0xd7 && c !== 0xf7) CLASS[c] = LETTER;
// Dashes, quotes, daggers, bullet; ‘ and ’ join like an apostrophe.
setRange(0x2010, 0x2022, OTHER);
CLASS[0x2018] = MID_NUM_LET;
CLASS[0x2019] = MID_NUM_LET;
// Arrows, mathematical operators, box drawing, block elements, geometric shapes.
setRange(0x2190, 0x22ff, OTHER);
setRange(0x2500, 0x25ff, OTHER);

function classOf(code: number): number {
  return code < TABLE_SIZE ? (CLASS[code] as number) : SLOW;
}

/**
 * Called for each word (a segment ICU calls word-like) with its offset in the text. `plain` is
 * true for a word of lower-case ASCII letters and digits only (most English words): callers may
 * skip the checks such words cannot need.
 */
export type WordVisitor = (word: string, index: number, plain: boolean) => void;

// Made on first use: creating it loads ICU's word dictionaries, which costs start-up time in
// every process that never analyses text (an MCP server answering `tools/list`).
let segmenter: Intl.Segmenter | undefined;

/** ICU's word-like segments of `text[from, to)`. */
function icuWords(text: string, from: number, to: number, visit: WordVisitor): void {
  segmenter ??= new Intl.Segmenter("ja", { granularity: "word" });
  const part = from === 0 && to === text.length ? text : text.slice(from, to);
  for (const { segment, index, isWordLike } of segmenter.segment(part)) if (isWordLike) visit(segment, from + index, false);
}

/** The words of `text[from, to)`, which holds characters of the fast path and no whitespace. */
function fastWords(text: string, from: number, to: number, visit: WordVisitor): void {
  let i = from;
  while (i < to) {
    let code = text.charCodeAt(i);
    const kind = CLASS[code] as number;
    if (kind !== LETTER && kind !== DIGIT && kind !== UNDERSCORE) {
      // Punctuation that joins nothing here is a segment of its own, not a word.
      i++;
      continue;
    }
    const start = i;
    let wordy = kind !== UNDERSCORE;
    let plain = kind === DIGIT || (code >= 0x61 && code <= 0x7a);
    let previous = kind;
    i++;
    while (i < to) {
      code = text.charCodeAt(i);
      const next = CLASS[code] as number;
      if (next === LETTER || next === DIGIT || next === UNDERSCORE) {
        // WB5, WB8–WB10, WB13a/b: letters, digits and underscores hold together.
        if (next === UNDERSCORE) plain = false;
        else {
          wordy = true;
          if (next === LETTER && (code < 0x61 || code > 0x7a)) plain = false;
        }
        previous = next;
        i++;
        continue;
      }
      if (i + 1 < to) {
        const after = CLASS[text.charCodeAt(i + 1)] as number;
        // WB6/WB7: a letter, ':' '.' "'" ‘ ’, a letter. WB11/WB12: a digit, ',' ';' '.' "'" ‘ ’, a digit.
        const letters = previous === LETTER && after === LETTER && (next === MID_LETTER || next === MID_NUM_LET);
        const digits = previous === DIGIT && after === DIGIT && (next === MID_NUM || next === MID_NUM_LET);
        if (letters || digits) {
          plain = false;
          previous = after;
          i += 2;
          continue;
        }
      }
      break;
    }
    // A lone underscore is not a word; two or more are (ICU's rule statuses).
    if (wordy || i - start > 1) visit(text.slice(start, i), start, plain && wordy);
  }
}

/**
 * Characters of stretches joined into one ICU call, about. A call costs as much as ten words (the
 * segmenter clones its ICU iterator), but ICU's cost per word grows on strings of several
 * thousand characters, so stretches are joined up to about this length.
 */
const ICU_BATCH = 1000;

/**
 * Visits the words of `text` in order, with their offsets: exactly the segments that
 * `Intl.Segmenter('ja', { granularity: 'word' })` reports as word-like.
 *
 * Pieces between whitespace with characters ICU must decide are gathered into stretches (each
 * with the whitespace character in front of it, and the whitespace between such pieces); the
 * stretches of up to ICU_BATCH characters are joined and segmented by one ICU call. ICU breaks
 * before every whitespace character that follows another character, so a stretch's words are
 * the same alone, in the text, or joined after another stretch (which ends before whitespace).
 */
export function forEachWord(text: string, visit: WordVisitor): void {
  const length = text.length;
  // Pieces waiting for the ICU call, in text order: from, to, and 1 for a stretch (ICU) or 0
  // for a piece of the fast path met after one (visited in its turn).
  const pending: number[] = [];
  let icuChars = 0;
  let stretchFrom = -1;
  let stretchTo = -1;
  const closeStretch = () => {
    if (stretchFrom < 0) return;
    pending.push(stretchFrom, stretchTo, 1);
    icuChars += stretchTo - stretchFrom;
    stretchFrom = -1;
    if (icuChars >= ICU_BATCH) {
      visitPending(text, pending, visit);
      pending.length = 0;
      icuChars = 0;
    }
  };
  let i = 0;
  while (i < length) {
    let kind = classOf(text.charCodeAt(i));
    if (kind === SPACE) {
      i++;
      continue;
    }
    const start = i;
    let fast = true;
    while (i < length) {
      kind = classOf(text.charCodeAt(i));
      if (kind === SPACE) break;
      if (kind === SLOW) fast = false;
      i++;
    }
    if (fast) {
      closeStretch();
      if (pending.length === 0) fastWords(text, start, i, visit);
      else pending.push(start, i, 0);
    } else {
      if (stretchFrom < 0) stretchFrom = start > 0 ? start - 1 : 0;
      stretchTo = i;
    }
  }
  closeStretch();
  if (pending.length > 0) visitPending(text, pending, visit);
}

/** The words of the pending pieces (see forEachWord), in order: one ICU call for all stretches. */
function visitPending(text: string, pending: number[], visit: WordVisitor): void {
  const parts: string[] = [];
  for (let p = 0; p < pending.length; p += 3) {
    if (pending[p + 2] === 1) parts.push(text.slice(pending[p] as number, pending[p + 1] as number));
  }
  const joined = parts.length === 1 ? (parts[0] as string) : parts.join("");
  let p = 0;
  // The stretch being visited: where it ends in `joined`, and its offset in `text` minus that in `joined`.
  let end = 0;
  let delta = 0;
  // Visits fast pieces up to the next stretch, and makes that one current.
  const advance = () => {
    while (p < pending.length && pending[p + 2] === 0) {
      fastWords(text, pending[p] as number, pending[p + 1] as number, visit);
      p += 3;
    }
    if (p >= pending.length) return;
    const from = pending[p] as number;
    delta = from - end;
    end += (pending[p + 1] as number) - from;
    p += 3;
  };
  advance();
  const native = nativeWords();
  if (native) {
    const bounds = native(joined);
    for (let b = 0; b < bounds.count; b += 2) {
      const index = bounds.out[b] as number;
      while (index >= end) advance();
      visit(joined.slice(index, bounds.out[b + 1]), index + delta, false);
    }
  } else {
    segmenter ??= new Intl.Segmenter("ja", { granularity: "word" });
    for (const { segment, index, isWordLike } of segmenter.segment(joined)) {
      if (!isWordLike) continue;
      while (index >= end) advance();
      visit(segment, index + delta, false);
    }
  }
  // Fast pieces after the last stretch with words.
  for (; p < pending.length; p += 3) {
    if (pending[p + 2] === 0) fastWords(text, pending[p] as number, pending[p + 1] as number, visit);
  }
}

/** True when every character of `text` is one the fast path cuts (ICU is not called at all). */
export function isSimpleText(text: string): boolean {
  for (let i = 0; i < text.length; i++) if (classOf(text.charCodeAt(i)) === SLOW) return false;
  return true;
}

/** ICU alone, for comparison in tests: the word-like segments of `text` with their offsets. */
export function icuWordList(text: string): [string, number][] {
  const out: [string, number][] = [];
  icuWords(text, 0, text.length, (word, index) => {
    out.push([word, index]);
  });
  return out;
}

/** `forEachWord` as a list. */
export function wordList(text: string): [string, number][] {
  const out: [string, number][] = [];
  forEachWord(text, (word, index) => {
    out.push([word, index]);
  });
  return out;
}
