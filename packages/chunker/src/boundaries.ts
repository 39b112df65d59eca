const SENTENCE_END = new Set(["。", "．", "！", "？", "!", "?"]);
const CLOSERS = new Set(["」", "』", "）", ")", "】", "〉", "》", '"', "'", "”", "’"]);

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
  while (i < n) {
    const ch = text[i] as string;
    if (ch === "\n" || ch === "\r") {
      let j = i;
      while (j < n && (text[j] === "\n" || text[j] === "\r")) j++;
      result.push(j);
      i = j;
      continue;
    }
    const isPeriod = ch === "." && (i + 1 >= n || isWhitespace(text[i + 1]));
    if (SENTENCE_END.has(ch) || isPeriod) {
      let j = i + 1;
      while (j < n && (SENTENCE_END.has(text[j] as string) || CLOSERS.has(text[j] as string))) j++;
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
