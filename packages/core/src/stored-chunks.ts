import { createHash } from "node:crypto";
import type { Chunk } from "@docdb/chunker";
import type { NewChunk } from "@docdb/store";
import { monotonicFactory } from "ulid";
import { lineIndex } from "./lines.js";

/** ULIDs that sort in creation order even within one millisecond. */
export const newId = monotonicFactory();

export function contentHash(text: string): string {
  return createHash("sha256").update(text).digest("hex");
}

/** Chunker output as store rows: fresh ids, heading paths joined, 1-based line ranges. */
export function toStoredChunks(text: string, chunks: Chunk[]): NewChunk[] {
  const lineOf = lineIndex(text);
  return chunks.map((c) => ({
    id: newId(),
    idx: c.index,
    text: c.text,
    start: c.start,
    end: c.end,
    heading: c.headingPath && c.headingPath.length > 0 ? c.headingPath.join(" > ") : null,
    lineStart: lineOf(c.start),
    lineEnd: lineOf(Math.max(c.start, c.end - 1)),
  }));
}
