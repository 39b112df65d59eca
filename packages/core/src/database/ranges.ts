// Character and line ranges of a document's text, as `getDocument` takes them.

import type { StoredChunk, StoredDocument } from "@docdb/store";
import { DocDBError, echo } from "../errors.js";
import type { DocumentRange } from "../types.js";

function rangeNumber(value: unknown, name: string, min: number): number | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "number" || !Number.isInteger(value) || value < min) {
    throw new DocDBError("INVALID_REQUEST", `${name} must be an integer of at least ${min}, got ${echo(value)}`);
  }
  return value;
}

/** A character range [start, end) of `content` from a DocumentRange, or undefined for the whole text. */
export function resolveRange(content: string, range: DocumentRange | undefined): { start: number; end: number } | undefined {
  if (range === undefined || range === null) return undefined;
  if (typeof range !== "object") throw new DocDBError("INVALID_REQUEST", "range must be an object with start/end or line_start/line_end");
  const start = rangeNumber(range.start, "start", 0);
  const end = rangeNumber(range.end, "end", 0);
  const lineStart = rangeNumber(range.line_start, "line_start", 1);
  const lineEnd = rangeNumber(range.line_end, "line_end", 1);
  const chars = start !== undefined || end !== undefined;
  const lines = lineStart !== undefined || lineEnd !== undefined;
  if (chars && lines) {
    throw new DocDBError("INVALID_REQUEST", "give a character range (start, end) or a line range (line_start, line_end), not both");
  }
  if (!chars && !lines) return undefined;
  if (chars) {
    const from = start ?? 0;
    const to = Math.min(end ?? content.length, content.length);
    if (from > content.length) {
      throw new DocDBError("INVALID_REQUEST", `start ${from} is past the end of the document (${content.length} characters)`);
    }
    if (to < from) throw new DocDBError("INVALID_REQUEST", `end (${end}) must not be before start (${from})`);
    return { start: from, end: to };
  }
  const lineStarts = [0];
  for (let i = 0; i < content.length; i++) if (content.charCodeAt(i) === 10) lineStarts.push(i + 1);
  const first = lineStart ?? 1;
  const last = Math.min(lineEnd ?? lineStarts.length, lineStarts.length);
  if (first > lineStarts.length) {
    throw new DocDBError("INVALID_REQUEST", `line_start ${first} is past the last line of the document (${lineStarts.length})`);
  }
  if (last < first) throw new DocDBError("INVALID_REQUEST", `line_end (${lineEnd}) must not be before line_start (${first})`);
  const from = lineStarts[first - 1] as number;
  // Up to the end of the last line, its newline included (the next line's start).
  const to = last < lineStarts.length ? (lineStarts[last] as number) : content.length;
  return { start: from, end: to };
}

/** The page (PDF) or slide (PPTX) a chunk starts on, or null. */
function pageOf(chunk: StoredChunk): number | null {
  return chunk.locator?.page ?? chunk.locator?.slide ?? null;
}

/**
 * Page `range.page` of an extracted document: the chunks that start on it and the one running
 * into it from an earlier page, and the text they span. INVALID_REQUEST naming the page count
 * when there is no such page, or when the document has no pages.
 */
export function pageRange(
  doc: StoredDocument,
  chunks: StoredChunk[],
  range: DocumentRange,
): { part: { start: number; end: number }; chunks: StoredChunk[]; page: { number: number; of: number } } {
  const wanted = range.page;
  if (typeof wanted !== "number" || !Number.isInteger(wanted) || wanted < 1) {
    throw new DocDBError("INVALID_REQUEST", `page must be an integer of at least 1, got ${JSON.stringify(wanted)}`);
  }
  if (range.start !== undefined || range.end !== undefined || range.line_start !== undefined || range.line_end !== undefined) {
    throw new DocDBError("INVALID_REQUEST", "give a page, a character range (start, end) or a line range, not several");
  }
  const pages = chunks.map(pageOf);
  const counted = Number(doc.metadata.pages ?? doc.metadata.slides);
  const last = Math.max(0, ...pages.filter((p): p is number => p !== null), Number.isInteger(counted) ? counted : 0);
  if (last === 0) {
    throw new DocDBError(
      "INVALID_REQUEST",
      `document "${doc.id}" has no pages: only documents extracted from a PDF or a slide deck have them (use a character or line range)`,
    );
  }
  if (wanted > last) {
    throw new DocDBError("INVALID_REQUEST", `document "${doc.id}" has ${last} page${last === 1 ? "" : "s"}; there is no page ${wanted}`);
  }
  const held = chunks.filter((_chunk, i) => {
    const from = pages[i];
    if (from === null || from === undefined || from > wanted) return false;
    if (from === wanted) return true;
    // A chunk from an earlier page runs into this one when the next chunk starts past it.
    const next = pages.slice(i + 1).find((p) => p !== null);
    return next === undefined || next > wanted;
  });
  const first = held[0];
  const end = held.at(-1);
  const part = first && end ? { start: first.start, end: end.end } : { start: 0, end: 0 };
  return { part, chunks: held, page: { number: wanted, of: last } };
}
