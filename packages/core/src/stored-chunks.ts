import type { Chunk } from "@docdb/chunker";
import type { NewChunk } from "@docdb/store";
import { monotonicFactory } from "ulid";
import { nodeCrypto } from "./builtins.js";
import { embeddingInput } from "./embedding-guard.js";
import { type LocatorSegment, locatorAt } from "./extraction.js";
import { lineIndex } from "./lines.js";

/**
 * Cryptographic random fractions drawn from a pool refilled 1,024 at a time: ulid's default
 * asks the OS once per character (16 calls per new millisecond), a few per cent of bulk ingest.
 */
const pool = new Uint32Array(1024);
let drawn = pool.length;
function pooledRandom(): number {
  if (drawn === pool.length) {
    nodeCrypto().getRandomValues(pool);
    drawn = 0;
  }
  return (pool[drawn++] as number) / 2 ** 32;
}

/** ULIDs that sort in creation order even within one millisecond. */
export const newId = monotonicFactory(pooledRandom);

/**
 * SHA-256 of the text's UTF-8 bytes, in hex. `crypto.hash` (Node 20.12 on) is one call, half the
 * cost of a Hash object; older Node 20 releases lack it.
 */
export function contentHash(text: string): string {
  const { hash, createHash } = nodeCrypto();
  return typeof hash === "function" ? hash("sha256", text, "hex") : createHash("sha256").update(text).digest("hex");
}

/**
 * Chunker output as store rows: fresh ids, heading paths joined, 1-based line ranges, and the
 * hash of each chunk's embedding input (so a replaced document's unchanged chunks keep vectors),
 * and for an extracted document the locator of the segment each chunk starts in.
 */
export function toStoredChunks(text: string, chunks: Chunk[], title: string | null = null, segments?: LocatorSegment[]): NewChunk[] {
  const lineOf = lineIndex(text);
  return chunks.map((c) => {
    const heading = c.headingPath && c.headingPath.length > 0 ? c.headingPath.join(" > ") : null;
    return {
      id: newId(),
      idx: c.index,
      text: c.text,
      start: c.start,
      end: c.end,
      heading,
      lineStart: lineOf(c.start),
      lineEnd: lineOf(Math.max(c.start, c.end - 1)),
      language: c.language ?? null,
      symbol: c.symbol ?? null,
      symbolKind: c.symbolKind ?? null,
      symbols: c.symbols ?? null,
      codeFallback: c.fallback ?? null,
      doc: c.doc ?? null,
      ...(segments && segments.length > 0 ? { locator: locatorAt(segments, c.start) } : {}),
      inputHash: contentHash(embeddingInput({ text: c.text, heading, title })),
    };
  });
}
