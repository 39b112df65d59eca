// Reading a compacted segment back from the index file just written (all but its positions, which
// stay there), into the buffer the index already uses when it fits, so old and new are not both held.
import { closeSync } from "node:fs";
import { positionsSection, SEGMENT_HEADER, segmentFromBuffer } from "./format.js";
import { PositionFile, readExactly } from "./positions.js";
import type { Segment } from "./segment.js";

/** An ArrayBuffer of `length` bytes and 1/16 more to grow into (pages never written cost no memory). */
export function roomy(length: number): ArrayBuffer {
  return new ArrayBuffer(length + Math.ceil(length / 16) + 4096);
}

/**
 * The segment whose body starts at `offset` in the open file `fd` (taken: the segment's positions
 * are read from it; closed on failure); `terms`, when known, are not decoded again. Its other
 * sections are read at once into `reuse` when it is large enough, `overwriting()` called first
 * (what `reuse` held is gone from then on), else into a new buffer with room to grow.
 */
export function readWritten(
  fd: number,
  offset: number,
  reuse: ArrayBuffer | null,
  terms: string[] | undefined,
  overwriting: () => void,
): Segment {
  let positions: PositionFile | undefined;
  try {
    const head = new Uint8Array(SEGMENT_HEADER);
    readExactly(fd, head, offset);
    const section = positionsSection(head);
    if (!section) throw new Error("keyword index: the file just written has no index header");
    const cut = section.length > 0 ? (section.length + 3) & ~3 : 0;
    const length = section.total - cut;
    let buffer: ArrayBuffer;
    if (reuse && reuse.byteLength >= length) {
      overwriting();
      buffer = reuse;
    } else buffer = roomy(length);
    const kept = new Uint8Array(buffer, 0, length);
    readExactly(fd, kept.subarray(0, section.start), offset);
    readExactly(fd, kept.subarray(section.start), offset + section.start + cut);
    if (cut > 0) positions = new PositionFile(fd, offset + section.start, section.length);
    else closeSync(fd);
    return segmentFromBuffer(kept, positions, terms);
  } catch (error) {
    if (positions) positions.close();
    else {
      try {
        closeSync(fd);
      } catch {
        // Closed already.
      }
    }
    throw error;
  }
}
