import { findBoundaries, isWhitespace, safeOffset } from "./boundaries.js";
import { type Chunk, type ChunkOptions, DEFAULT_CHUNK_OVERLAP, DEFAULT_CHUNK_SIZE } from "./types.js";

export function resolveOptions(options: ChunkOptions = {}): { size: number; overlap: number } {
  const size = options.size ?? DEFAULT_CHUNK_SIZE;
  const overlap = options.overlap ?? DEFAULT_CHUNK_OVERLAP;
  if (!Number.isInteger(size) || size < 10) {
    throw new RangeError(`chunk size must be an integer of at least 10, got ${size}`);
  }
  if (!Number.isInteger(overlap) || overlap < 0 || overlap >= size / 2) {
    throw new RangeError(`chunk overlap must be an integer from 0 to less than half the size (${size}), got ${overlap}`);
  }
  return { size, overlap };
}

/** Largest boundary b with low < b <= high, or -1. Boundaries are sorted. */
function lastBoundaryIn(boundaries: number[], low: number, high: number): number {
  let lo = 0;
  let hi = boundaries.length - 1;
  let found = -1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const b = boundaries[mid] as number;
    if (b <= high) {
      if (b > low) found = b;
      lo = mid + 1;
    } else hi = mid - 1;
  }
  return found;
}

/** Smallest boundary b with low <= b < high, or -1. */
function firstBoundaryIn(boundaries: number[], low: number, high: number): number {
  let lo = 0;
  let hi = boundaries.length - 1;
  let found = -1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const b = boundaries[mid] as number;
    if (b >= low) {
      if (b < high) found = b;
      hi = mid - 1;
    } else lo = mid + 1;
  }
  return found;
}

function skipWhitespace(text: string, from: number, to: number): number {
  let i = from;
  while (i < to && isWhitespace(text[i])) i++;
  return i;
}

function trimEnd(text: string, from: number, to: number): number {
  let i = to;
  while (i > from && isWhitespace(text[i - 1])) i--;
  return i;
}

/**
 * Splits `text[from, to)` into chunks of at most `size` characters, preferring sentence and
 * line ends, with about `overlap` characters shared between neighbours. Offsets are into `text`.
 */
export function chunkRange(text: string, from: number, to: number, options: ChunkOptions = {}): Chunk[] {
  const { size, overlap } = resolveOptions(options);
  const boundaries = findBoundaries(text.slice(from, to)).map((b) => b + from);
  const chunks: Chunk[] = [];
  let pos = skipWhitespace(text, from, to);
  while (pos < to) {
    let end: number;
    if (pos + size >= to) end = to;
    else {
      const boundary = lastBoundaryIn(boundaries, pos, pos + size);
      end = boundary > 0 ? boundary : safeOffset(text, pos + size);
      if (end <= pos) end = pos + size; // a lone surrogate pair cannot stall us
    }
    const chunkEnd = trimEnd(text, pos, end);
    if (chunkEnd > pos) {
      chunks.push({ index: chunks.length, text: text.slice(pos, chunkEnd), start: pos, end: chunkEnd });
    }
    if (end >= to) break;
    let next = end;
    if (overlap > 0) {
      const windowStart = Math.max(pos + 1, end - overlap);
      const sentence = firstBoundaryIn(boundaries, windowStart, end);
      if (sentence > 0) next = sentence;
      else {
        let space = -1;
        for (let i = windowStart; i < end; i++) {
          if (isWhitespace(text[i])) {
            space = i;
            break;
          }
        }
        next = space > 0 ? space : safeOffset(text, windowStart);
      }
      if (next <= pos) next = end;
    }
    pos = skipWhitespace(text, next, to);
  }
  return chunks;
}

/** The default strategy: sentence- and line-aware packing of plain text. */
export function chunkText(text: string, options: ChunkOptions = {}): Chunk[] {
  return chunkRange(text, 0, text.length, options);
}
