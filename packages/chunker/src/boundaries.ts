/** 。．！？!? */
const SENTENCE_END = new Set([0x3002, 0xff0e, 0xff01, 0xff1f, 0x21, 0x3f]);
/** 」』）)】〉》"'”’ */
const CLOSERS = new Set([0x300d, 0x300f, 0xff09, 0x29, 0x3011, 0x3009, 0x300b, 0x22, 0x27, 0x201d, 0x2019]);
const LF = 0x0a;
const CR = 0x0d;
const PERIOD = 0x2e;

/** SENTENCE_END.has(code), without a lookup for the common characters (this runs for every character). */
function isSentenceEnd(code: number): boolean {
  return code === 0x3002 || code === 0x21 || code === 0x3f || (code >= 0xff01 && SENTENCE_END.has(code));
}

function isWhitespace(ch: string | undefined): boolean {
  return ch !== undefined && /\s/.test(ch);
}

/**
 * Offsets where a chunk may end: after a sentence end (。．！？!? and a `.` followed by
 * whitespace, together with any closing brackets or quotes) and after a run of line breaks.
 * Sorted ascending, unique, all in (0, text.length].
 */
export function findBoundaries(text: string): number[] {
  const result: number[] = [];
  const n = text.length;
  let i = 0;
  // Character codes, not one-character strings: this runs over every character of every document.
  while (i < n) {
    const code = text.charCodeAt(i);
    if (code === LF || code === CR) {
      let j = i;
      while (j < n && (text.charCodeAt(j) === LF || text.charCodeAt(j) === CR)) j++;
      result.push(j);
      i = j;
      continue;
    }
    const isPeriod = code === PERIOD && (i + 1 >= n || isWhitespace(text[i + 1]));
    if (isPeriod || isSentenceEnd(code)) {
      let j = i + 1;
      while (j < n && (isSentenceEnd(text.charCodeAt(j)) || CLOSERS.has(text.charCodeAt(j)))) j++;
      if (result[result.length - 1] !== j) result.push(j);
      i = j;
      continue;
    }
    i++;
  }
  if (result[result.length - 1] !== n && n > 0) result.push(n);
  return result;
}

/** Moves an offset back by one when it would fall between the halves of a surrogate pair. */
export function safeOffset(text: string, offset: number): number {
  if (offset <= 0 || offset >= text.length) return offset;
  const before = text.charCodeAt(offset - 1);
  const after = text.charCodeAt(offset);
  if (before >= 0xd800 && before <= 0xdbff && after >= 0xdc00 && after <= 0xdfff) return offset - 1;
  return offset;
}

export { isWhitespace };
