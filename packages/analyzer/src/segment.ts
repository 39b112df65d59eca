/**
 * Word segmentation: `Intl.Segmenter('ja')` (ICU: dictionary segmentation for Japanese, UAX #29
 * word boundaries for the rest), with a fast path for text made only of ASCII and Latin letters.
 *
 * ICU's segmenter costs about 4 µs per word, which made it the largest cost of importing code
 * (most of the CPU time of `docdb import` on a folder of source files). For text whose characters
 * are all in `SIMPLE` below, the word boundaries of UAX #29 as ICU applies them reduce to a few
 * rules, applied here by a scan about 30 times faster. `segment.test.ts` checks that both give the
 * same words on code, English prose and random strings of the characters involved.
 *
 * The rules, for letters L (ASCII and Latin-1/Extended-A/B letters), digits N and `_`:
 * - a word is a run of L, N and `_` (WB5, WB8–WB10, WB13a/b);
 * - `.` `:` `'` `‘` `’` join two letters into one word (WB6/7: `a.b`, `it's`, `std:x`; ICU's
 *   Japanese locale counts `:` as MidLetter);
 * - `.` `,` `;` `'` `‘` `’` join two digits (WB11/12: `1,000`, `3.14`);
 * - a run of one `_` alone is not a word, two or more are (ICU's rule status).
 */

/**
 * Characters the fast path handles: ASCII; Latin letters; and symbols and punctuation that are
 * neither letters, digits nor joiners to UAX #29 (so every one of them ends a word): Latin-1
 * signs (not `·`, a joiner, nor the soft hyphen, which is ignored inside words), dashes, quotes,
 * bullets, arrows, mathematical operators, box drawing and geometric shapes.
 */
const SIMPLE =
  /^[\t\n\r\x20-\x7e\u00a0-\u00a7\u00a9\u00ab\u00ac\u00ae\u00b0\u00b1\u00b6\u00bb\u00bf-\u024f\u2010-\u2022\u2190-\u22ff\u2500-\u25ff]*$/;

/** True when `segments` takes the fast path for `text`. */
export function isSimpleText(text: string): boolean {
  return SIMPLE.test(text);
}

function isLetter(c: number): boolean {
  return (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 0xc0 && c <= 0x24f && c !== 0xd7 && c !== 0xf7);
}

function isDigit(c: number): boolean {
  return c >= 48 && c <= 57;
}

/** `.` `:` `'` `‘` `’`: join letters. */
function joinsLetters(c: number): boolean {
  return c === 46 || c === 58 || c === 39 || c === 0x2018 || c === 0x2019;
}

/** `.` `,` `;` `'` `‘` `’`: join digits. */
function joinsDigits(c: number): boolean {
  return c === 46 || c === 44 || c === 59 || c === 39 || c === 0x2018 || c === 0x2019;
}

export interface WordSegment {
  segment: string;
  index: number;
  isWordLike: boolean;
}

function* simpleSegments(text: string): Generator<WordSegment> {
  const n = text.length;
  let i = 0;
  while (i < n) {
    let c = text.charCodeAt(i);
    if (!(isLetter(c) || isDigit(c) || c === 95)) {
      i++;
      continue;
    }
    const start = i;
    let alphanumeric = false;
    while (i < n) {
      c = text.charCodeAt(i);
      if (isLetter(c) || isDigit(c)) {
        alphanumeric = true;
        i++;
      } else if (c === 95) {
        i++;
      } else if (i > start && i + 1 < n) {
        const before = text.charCodeAt(i - 1);
        const after = text.charCodeAt(i + 1);
        if ((isLetter(before) && isLetter(after) && joinsLetters(c)) || (isDigit(before) && isDigit(after) && joinsDigits(c))) i += 2;
        else break;
      } else break;
    }
    if (alphanumeric || i - start >= 2) yield { segment: text.slice(start, i), index: start, isWordLike: true };
  }
}

// Made on first use: creating it loads ICU's word dictionaries, which costs start-up time in
// every process that never analyses text (an MCP server answering `tools/list`).
let segmenter: Intl.Segmenter | undefined;

/**
 * The segments of `text` (already NFKC-normalised). Word-like ones are the words; the fast path
 * yields only those, the segmenter also the spaces and punctuation between them.
 */
export function segments(text: string): Iterable<WordSegment> {
  if (isSimpleText(text)) return simpleSegments(text);
  segmenter ??= new Intl.Segmenter("ja", { granularity: "word" });
  return segmenter.segment(text) as Iterable<WordSegment>;
}
