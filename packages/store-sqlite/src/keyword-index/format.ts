// The keyword index's file format: a header (magic, version, counts) then the segment's arrays as
// little-endian sections, each 4-byte aligned, so loading is viewing (and a few checks).
import type { PositionFile } from "./positions.js";
import { BLOCK, docLength, docsInMemory, positionsInMemory, positionsLength, type Segment } from "./segment.js";

const MAGIC = "DOCDBKW1";
export const FORMAT_VERSION = 2;
const HEADER = 48;

/** Bytes that are not a keyword index this code wrote. */
export class KeywordIndexFormatError extends Error {
  constructor(message: string) {
    super(`keyword index file: ${message} (rebuild the keyword index)`);
    this.name = "KeywordIndexFormatError";
  }
}

const pad4 = (n: number): number => (n + 3) & ~3;

/** The first SEGMENT_HEADER bytes segmentToBuffer() writes for the segment. */
export function segmentToHeader(seg: Segment): Uint8Array {
  return segmentToBuffer(seg, true);
}

export function segmentToBuffer(saved: Segment, headerOnly = false): Uint8Array {
  const parts = segmentParts(headerOnly ? saved : positionsInMemory(docsInMemory(saved)), headerOnly) as Uint8Array[];
  if (headerOnly) return parts[0] as Uint8Array;
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

const PADDING = new Uint8Array(4);

/**
 * The bytes segmentToBuffer() gives, as a list of pieces (the header, each section and its
 * padding) viewing the segment's own arrays: written one after another without one big copy.
 * Positions kept in a file, and postings in a compaction's spill file, are the PositionFile itself
 * (to be read a piece at a time).
 */
export function segmentParts(seg: Segment, headerOnly = false): (Uint8Array | PositionFile)[] {
  const termText = new TextEncoder().encode(seg.terms.join("\n"));
  const sections: Uint8Array[] = [
    seg.seqs,
    seg.sizes,
    seg.termBlock,
    seg.termCount,
    seg.blockLast,
    seg.blockMaxFreq,
    seg.blockMinSize,
    seg.blockDoc,
    seg.blockPos,
  ].map((a) => new Uint8Array(a.buffer, a.byteOffset, a.byteLength));
  sections.push(seg.docBytes, seg.posBytes, termText);
  // The header alone may be asked of a segment whose positions are in its file.
  const total =
    sections.reduce((n, s) => n + pad4(s.length), HEADER) -
    pad4(seg.posBytes.length) +
    pad4(positionsLength(seg)) -
    pad4(seg.docBytes.length) +
    pad4(docLength(seg));
  const out = new Uint8Array(HEADER);
  const view = new DataView(out.buffer);
  for (let i = 0; i < MAGIC.length; i++) out[i] = MAGIC.charCodeAt(i);
  const header = [
    FORMAT_VERSION,
    seg.seqs.length,
    seg.terms.length,
    seg.blockLast.length,
    docLength(seg),
    positionsLength(seg),
    termText.length,
  ];
  for (const [i, v] of header.entries()) view.setUint32(8 + 4 * i, v, true);
  view.setFloat64(40, total, true);
  if (headerOnly) return [out];
  const parts: (Uint8Array | PositionFile)[] = [out];
  for (const s of sections) {
    const part = s === seg.posBytes && seg.posFile ? seg.posFile : s === seg.docBytes && seg.docFile ? seg.docFile : s;
    parts.push(part);
    if (pad4(part.length) > part.length) parts.push(PADDING.subarray(0, pad4(part.length) - part.length));
  }
  return parts;
}

/** Bytes of the header a body starts with (enough for positionsSection()). */
export const SEGMENT_HEADER = HEADER;

/** Where the positions section lies in a body, from its first SEGMENT_HEADER bytes (undefined when they are not a header). */
export function positionsSection(head: Uint8Array): { start: number; length: number; total: number } | undefined {
  if (head.length < HEADER) return undefined;
  for (let i = 0; i < MAGIC.length; i++) if (head[i] !== MAGIC.charCodeAt(i)) return undefined;
  const view = new DataView(head.buffer, head.byteOffset, HEADER);
  const field = (i: number): number => view.getUint32(8 + 4 * i, true);
  if (field(0) !== FORMAT_VERSION) return undefined;
  const [rows, terms, blocks, docLength, posLength] = [field(1), field(2), field(3), field(4), field(5)];
  const start = HEADER + 4 * (2 * rows + 2 * terms + 1 + 3 * blocks + 2 * (blocks + 1)) + pad4(docLength);
  return { start, length: posLength, total: view.getFloat64(40, true) };
}

/**
 * The segment the bytes hold. With `positions`, the bytes lack the positions section (its
 * padded length cut out where positionsSection() says) and the segment reads them from the file.
 * `knownTerms`: the terms the bytes hold, when the caller has them.
 */
export function segmentFromBuffer(input: Uint8Array, positions?: PositionFile, knownTerms?: string[]): Segment {
  if (new Uint8Array(new Uint32Array([1]).buffer)[0] !== 1) throw new KeywordIndexFormatError("needs a little-endian machine");
  if (input.length < HEADER) throw new KeywordIndexFormatError(`${input.length} bytes is too short for a header`);
  for (let i = 0; i < MAGIC.length; i++) {
    if (input[i] !== MAGIC.charCodeAt(i)) throw new KeywordIndexFormatError("no docdb keyword index header (wrong magic)");
  }
  const bytes = input.byteOffset % 4 === 0 ? input : input.slice();
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const field = (i: number): number => view.getUint32(8 + 4 * i, true);
  const [version, rows, terms, blocks, docLength, posLength, textLength] = [
    field(0),
    field(1),
    field(2),
    field(3),
    field(4),
    field(5),
    field(6),
  ];
  if (version !== FORMAT_VERSION) throw new KeywordIndexFormatError(`format version ${version}, this docdb reads ${FORMAT_VERSION}`);
  const total = view.getFloat64(40, true);
  const cut = positions ? pad4(posLength) : 0;
  if (total !== bytes.length + cut)
    throw new KeywordIndexFormatError(`${bytes.length} bytes where the header says ${total} (truncated or damaged)`);
  let at = HEADER;
  const u32 = (n: number): Uint32Array => {
    if (at + 4 * n > bytes.length) throw new KeywordIndexFormatError("sections run past the end");
    const a = new Uint32Array(bytes.buffer, bytes.byteOffset + at, n);
    at += 4 * n;
    return a;
  };
  const u8 = (n: number): Uint8Array => {
    if (at + n > bytes.length) throw new KeywordIndexFormatError("sections run past the end");
    const a = bytes.subarray(at, at + n);
    at += pad4(n);
    return a;
  };
  const seg: Segment = {
    seqs: u32(rows),
    sizes: u32(rows),
    termBlock: u32(terms + 1),
    termCount: u32(terms),
    blockLast: u32(blocks),
    blockMaxFreq: u32(blocks),
    blockMinSize: u32(blocks),
    blockDoc: u32(blocks + 1),
    blockPos: u32(blocks + 1),
    docBytes: u8(docLength),
    posBytes: positions ? new Uint8Array(0) : u8(posLength),
    posFile: positions ?? null,
    terms: [],
  };
  if (positions && positions.length !== posLength)
    throw new KeywordIndexFormatError(`${positions.length} bytes of positions where the header says ${posLength}`);
  // Terms already known (the segment just written from them) are not decoded again as new strings.
  const text = u8(textLength);
  seg.terms = knownTerms ?? (terms === 0 ? [] : new TextDecoder("utf-8", { fatal: false }).decode(text).split("\n"));
  if (at !== bytes.length) throw new KeywordIndexFormatError("bytes left after the last section");
  check(seg, terms);
  return seg;
}

/** The structure's invariants, so damaged bytes fail here rather than in a search. */
function check(seg: Segment, terms: number): void {
  const fail = (what: string): never => {
    throw new KeywordIndexFormatError(`damaged: ${what}`);
  };
  if (seg.terms.length !== terms) fail(`${seg.terms.length} terms where the header says ${terms}`);
  for (let i = 1; i < seg.seqs.length; i++) if ((seg.seqs[i] as number) <= (seg.seqs[i - 1] as number)) fail("row seqs out of order");
  const blocks = seg.blockLast.length;
  if (seg.termBlock[0] !== 0 || seg.termBlock[terms] !== blocks) fail("term blocks do not cover the blocks");
  for (let t = 0; t < terms; t++) {
    const n = (seg.termBlock[t + 1] as number) - (seg.termBlock[t] as number);
    const count = seg.termCount[t] as number;
    if (count === 0 || n !== Math.ceil(count / BLOCK)) fail(`term ${t} has ${count} postings in ${n} blocks`);
  }
  const rows = seg.seqs.length;
  for (let k = 0; k < blocks; k++) {
    if ((seg.blockLast[k] as number) >= rows) fail(`block ${k} ends past the last row`);
    if ((seg.blockDoc[k + 1] as number) < (seg.blockDoc[k] as number) || (seg.blockPos[k + 1] as number) < (seg.blockPos[k] as number)) {
      fail(`block ${k} offsets out of order`);
    }
  }
  if (seg.blockDoc[blocks] !== seg.docBytes.length || seg.blockPos[blocks] !== positionsLength(seg))
    fail("block offsets do not end at the data's end");
}
