/**
 * Word segmentation with the words of `Intl.Segmenter('ja', { granularity: 'word' })` (ICU),
 * at a fraction of its cost on Latin text.
 *
 * ICU costs about a microsecond per segment in V8 (every word, space and punctuation mark is a
 * call across into C++ and an object), which made it half of ingest. Its word rules (UAX #29) on
 * ASCII are simple and local, so ASCII text is cut here in JavaScript by the same rules, and ICU
 * only sees the stretches that hold other characters (Japanese needs its dictionary).
 *
 * Why the two agree: text is split at ASCII whitespace, and UAX #29 always breaks before a
 * whitespace character (after a non-whitespace one) and after one when an ASCII character
 * follows, so a run of non-whitespace ASCII characters is cut the same whatever surrounds it.
 * A stretch with other characters goes to ICU together with the whitespace character in front
 * of it (a combining mark after a space belongs to the space, rule WB4); ICU's dictionary runs
 * (kanji, kana) end at whitespace too. `analyzer.test.ts` checks the equality on random text.
 */

/** Character classes of UAX #29 for ASCII, as ICU applies them. */
// 0: any other character (a segment of its own, never part of a word)
const LETTER = 1; // ALetter: A–Z a–z
const DIGIT = 2; // Numeric: 0–9
const UNDERSCORE = 3; // ExtendNumLet: _
const MID_LETTER = 4; // MidLetter: ':' (joins letters only)
const MID_NUM_LET = 5; // MidNumLet and Single_Quote: '.' and "'" (join letters, and digits)
const MID_NUM = 6; // MidNum: ',' ';' (join digits only)
const SPACE = 7; // whitespace: space, tab, line feed, vertical tab, form feed, carriage return

const CLASS = new Uint8Array(128);
for (let c = 0x41; c <= 0x5a; c++) CLASS[c] = LETTER;
for (let c = 0x61; c <= 0x7a; c++) CLASS[c] = LETTER;
for (let c = 0x30; c <= 0x39; c++) CLASS[c] = DIGIT;
CLASS[0x5f] = UNDERSCORE;
CLASS[0x3a] = MID_LETTER;
CLASS[0x2e] = MID_NUM_LET;
CLASS[0x27] = MID_NUM_LET;
CLASS[0x2c] = MID_NUM;
CLASS[0x3b] = MID_NUM;
for (const c of [0x20, 0x09, 0x0a, 0x0b, 0x0c, 0x0d]) CLASS[c] = SPACE;

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

/** The words of `text[from, to)`, which holds ASCII characters and no whitespace. */
function asciiWords(text: string, from: number, to: number, visit: WordVisitor): void {
  let i = from;
  while (i < to) {
    const kind = CLASS[text.charCodeAt(i)] as number;
    if (kind !== LETTER && kind !== DIGIT && kind !== UNDERSCORE) {
      // Punctuation that joins nothing here is a segment of its own, not a word.
      i++;
      continue;
    }
    const start = i;
    let wordy = kind !== UNDERSCORE;
    let plain = kind === DIGIT || text.charCodeAt(i) >= 0x61;
    let previous = kind;
    i++;
    while (i < to) {
      const code = text.charCodeAt(i);
      const next = CLASS[code] as number;
      if (next === LETTER || next === DIGIT || next === UNDERSCORE) {
        // WB5, WB8–WB10, WB13a/b: letters, digits and underscores hold together.
        if (next === UNDERSCORE) plain = false;
        else {
          wordy = true;
          if (next === LETTER && code < 0x61) plain = false;
        }
        previous = next;
        i++;
        continue;
      }
      if (i + 1 < to) {
        const after = CLASS[text.charCodeAt(i + 1)] as number;
        // WB6/WB7: a letter, ':' '.' or "'", a letter. WB11/WB12: a digit, ',' ';' '.' or "'", a digit.
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
 * Visits the words of `text` in order, with their offsets: exactly the segments that
 * `Intl.Segmenter('ja', { granularity: 'word' })` reports as word-like.
 */
export function forEachWord(text: string, visit: WordVisitor): void {
  const length = text.length;
  // The stretch waiting for ICU: from its first non-ASCII piece (with the whitespace before it).
  let icuFrom = -1;
  let icuTo = -1;
  // ASCII pieces met since that stretch's last non-ASCII piece: ICU takes them too if another
  // non-ASCII piece follows soon (a call costs several segments' worth, a short gap less).
  const gap: number[] = [];
  const flush = () => {
    if (icuFrom >= 0) icuWords(text, icuFrom, icuTo, visit);
    icuFrom = -1;
    for (let g = 0; g < gap.length; g += 2) asciiWords(text, gap[g] as number, gap[g + 1] as number, visit);
    gap.length = 0;
  };
  let i = 0;
  while (i < length) {
    let code = text.charCodeAt(i);
    if (code < 128 && CLASS[code] === SPACE) {
      i++;
      continue;
    }
    const start = i;
    let ascii = true;
    while (i < length) {
      code = text.charCodeAt(i);
      if (code < 128) {
        if (CLASS[code] === SPACE) break;
      } else ascii = false;
      i++;
    }
    if (ascii) {
      if (icuFrom < 0) asciiWords(text, start, i, visit);
      else {
        gap.push(start, i);
        if (gap.length > 2 * MAX_GAP_PIECES) flush();
      }
    } else {
      if (icuFrom < 0) icuFrom = start > 0 ? start - 1 : 0;
      gap.length = 0;
      icuTo = i;
    }
  }
  flush();
}

/** ASCII pieces (words between spaces) ICU may take between two stretches, to spare a call. */
const MAX_GAP_PIECES = 3;

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
