// FTS5's unicode61 tokenizer (remove_diacritics 0) in JavaScript: which code points make tokens and
// how they fold, from tables probed from SQLite itself (unicode61-data.ts).
import { CONTINUING, FOLDS, TOKEN_RANGES } from "./unicode61-data.js";

const decode = (s: string): number[] => s.split(",").map((x) => Number.parseInt(x, 36));

/** Token code point ranges: starts and (exclusive) ends, ascending. */
const RANGE_START: number[] = [];
const RANGE_END: number[] = [];
{
  const list = decode(TOKEN_RANGES);
  let at = 0;
  for (let i = 0; i < list.length; i += 2) {
    const start = at + (list[i] as number);
    RANGE_START.push(start);
    at = start + (list[i + 1] as number);
    RANGE_END.push(at);
  }
}
const FOLD = new Map<number, number>();
{
  const list = decode(FOLDS);
  let at = 0;
  for (let i = 0; i < list.length; i += 2) {
    at += list[i] as number;
    FOLD.set(at, at + (list[i + 1] as number));
  }
}
/** Code points that continue a token though they cannot start one (diacritics). */
const CONTINUES = new Set<number>();
{
  let at = 0;
  for (const gap of decode(CONTINUING)) {
    at += gap;
    CONTINUES.add(at);
  }
}
/** ASCII: -1 for a separator, else the folded code. */
const ASCII = new Int16Array(128).fill(-1);
for (let c = 0; c < 128; c++) if (isTokenCode(c)) ASCII[c] = FOLD.get(c) ?? c;

function isTokenCode(cp: number): boolean {
  let lo = 0;
  let hi = RANGE_START.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (cp < (RANGE_START[mid] as number)) hi = mid - 1;
    else if (cp >= (RANGE_END[mid] as number)) lo = mid + 1;
    else return true;
  }
  return false;
}

/**
 * What code point `cp` (as String.codePointAt reads it) becomes in a token, or -1 when it separates
 * tokens; `inToken`: a token has started (diacritics continue one but cannot start it).
 */
export function foldedCode(cp: number, inToken: boolean): number {
  if (cp <= 0xffff) {
    const v = BMP[cp] as number;
    return v >= -1 ? v : inToken ? -(v + 2) : -1;
  }
  return isTokenCode(cp) || (inToken && CONTINUES.has(cp)) ? (FOLD.get(cp) ?? cp) : -1;
}

/**
 * Per code point below 0x10000: its folded code when it makes tokens, -1 when it separates them
 * (surrogates too: String.codePointAt reads a lone one), -(folded + 2) when it only continues one.
 */
export const BMP = new Int32Array(0x10000);
for (let cp = 0; cp <= 0xffff; cp++) {
  if (cp >= 0xd800 && cp <= 0xdfff) BMP[cp] = -1;
  else if (cp < 128) BMP[cp] = ASCII[cp] as number;
  else if (isTokenCode(cp)) BMP[cp] = FOLD.get(cp) ?? cp;
  else BMP[cp] = CONTINUES.has(cp) ? -((FOLD.get(cp) ?? cp) + 2) : -1;
}

/** A column string's tokens exactly as FTS5's unicode61 tokenizer (remove_diacritics 0) makes them. */
export function tokenize(text: string): string[] {
  const out: string[] = [];
  let token = "";
  let plain = true; // the token so far is the same as its slice of text (nothing folded)
  let start = -1;
  for (let i = 0; i < text.length; ) {
    const cp = text.codePointAt(i) as number;
    const width = cp > 0xffff ? 2 : 1;
    const folded = foldedCode(cp, start >= 0);
    if (folded < 0) {
      if (start >= 0) out.push(plain ? text.slice(start, i) : token);
      start = -1;
    } else {
      if (start < 0) {
        start = i;
        token = "";
        plain = true;
      }
      if (plain && folded !== cp) {
        plain = false;
        token = text.slice(start, i);
      }
      if (!plain) token += String.fromCodePoint(folded);
    }
    i += width;
  }
  if (start >= 0) out.push(plain ? text.slice(start) : token);
  return out;
}
