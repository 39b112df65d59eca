// Reading a keyword index file's body without keeping its positions: the whole body is hashed
// (read in pieces), everything but the positions section is kept, and the positions are read from
// the still-open file when phrases need them (page cache, not the process's memory).
import { closeSync, fstatSync, openSync, read } from "node:fs";
import { promisify } from "node:util";
import { sha256Hasher } from "../hnsw/verify.js";
import { KeywordIndex, PositionFile, positionsSection, roomy, SEGMENT_HEADER } from "../keyword-index/index.js";

const readAsync = promisify(read);
const PIECE = 4 * 1024 * 1024;
const pad4 = (n: number): number => (n + 3) & ~3;

/** Whether positions may stay in the file: not on Windows, where an open file cannot be renamed over. */
export const POSITIONS_IN_FILE = process.platform !== "win32";
/**
 * Positions of at least this many bytes stay in the file (64 MiB, about 400,000 chunks): below, a
 * find's phrases read them from memory (each read from the file costs a system call).
 */
export const POSITIONS_IN_FILE_FROM = 64 * 1024 * 1024;

/** What the body held: the index; an error reading it as one; or what else is wrong (`wrong`). */
export type BodyRead = { index: KeywordIndex } | { error: unknown } | { wrong: string };

async function readAt(fd: number, into: Uint8Array, at: number): Promise<void> {
  let got = 0;
  while (got < into.length) {
    const { bytesRead } = await readAsync(fd, into, got, into.length - got, at + got);
    if (bytesRead === 0) throw new Error(`the file ended at ${at + got} bytes`);
    got += bytesRead;
  }
}

/**
 * Reads the body (`bytes` from `start`) of the open file `fd`; the returned index owns `fd` (its
 * positions are read from it), which is closed otherwise.
 */
export async function readBody(fd: number, start: number, bytes: number, expected: string, inFileFrom: number): Promise<BodyRead> {
  let owned = false;
  try {
    const size = fstatSync(fd).size;
    if (size - start !== bytes) return { wrong: `has a body of ${size - start} bytes, its header says ${bytes}` };
    const head = new Uint8Array(Math.min(bytes, SEGMENT_HEADER));
    await readAt(fd, head, start);
    const found = positionsSection(head);
    // An unknown header is read whole, so the index's own checks say what is wrong with it.
    const section = found && found.length >= inFileFrom && found.start + pad4(found.length) <= bytes ? found : { start: bytes, length: 0 };
    const cutStart = section.start;
    const cutEnd = Math.min(bytes, section.start + pad4(section.length));
    // With room to grow: the next compaction's result is read into it (KeywordIndex.install).
    const kept = new Uint8Array(roomy(bytes - (cutEnd - cutStart)), 0, bytes - (cutEnd - cutStart));
    const hash = sha256Hasher();
    const piece = new Uint8Array(Math.min(PIECE, Math.max(1, bytes)));
    for (let at = 0; at < bytes; at += piece.length) {
      const part = piece.subarray(0, Math.min(piece.length, bytes - at));
      await readAt(fd, part, start + at);
      hash.update(part);
      // The part's bytes before and after the cut, to where they go in `kept`.
      const end = at + part.length;
      if (at < cutStart) kept.set(part.subarray(0, Math.min(end, cutStart) - at), at);
      if (end > cutEnd) {
        const from = Math.max(at, cutEnd);
        kept.set(part.subarray(from - at), from - (cutEnd - cutStart));
      }
    }
    if (`sha256:${hash.digest("hex")}` !== expected) return { wrong: "does not match the checksum in its header (damaged)" };
    let positions: PositionFile | undefined;
    try {
      if (cutEnd > cutStart) positions = new PositionFile(fd, start + section.start, section.length);
      owned = positions !== undefined;
      return { index: KeywordIndex.fromBuffer(kept, positions, true) };
    } catch (error) {
      positions?.close();
      return { error };
    }
  } finally {
    if (!owned) closeSync(fd);
  }
}

/** Opens the file for readBody(). */
export function openForRead(file: string): number {
  return openSync(file, "r");
}
