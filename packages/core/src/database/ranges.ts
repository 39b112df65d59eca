// Character and line ranges of a document's text, as `getDocument` takes them.
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
