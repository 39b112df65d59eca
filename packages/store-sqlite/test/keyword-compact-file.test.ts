// Compacting an index whose positions stay in its file: they are read a window of blocks at a time
// (never a whole common term, nor all at once), the new ones can go to a spill file instead of memory, and the bytes are those of a
// compaction in memory; with the postings spilled too, the result is read back from the file it is
// written to into the buffer the index already uses (and a read that fails leaves no half-read index).
import { mkdtempSync, openSync, rmSync, truncateSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { buildKeywordQuery } from "@docdb/analyzer";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  COMPACT_READ_WINDOW,
  compactSteps,
  type IndexedRow,
  KeywordIndex,
  PositionFile,
  positionsSection,
  roomy,
  type Segment,
  segmentParts,
} from "../src/keyword-index/index.js";

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "docdb-kwcompact-"));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

const row = (seq: number): IndexedRow => ({
  seq,
  title: seq % 4 === 0 ? `title ${seq % 7} apple` : "",
  body: `apple ${seq % 5 === 0 ? "river" : "stone"} word${seq % 13} light ${seq % 3 === 0 ? "quantum apple" : "sea"} w${seq % 101}`,
});

/** The index's bytes in a file, loaded again with its positions left there (as a large index is). */
function loadWithPositionsInFile(bytes: Uint8Array): { index: KeywordIndex; positions: PositionFile } {
  const file = join(dir, "index.bin");
  writeFileSync(file, bytes);
  const section = positionsSection(bytes) as { start: number; length: number };
  const cut = (section.length + 3) & ~3;
  const rest = new Uint8Array(bytes.length - cut);
  rest.set(bytes.subarray(0, section.start));
  rest.set(bytes.subarray(section.start + cut), section.start);
  const positions = new PositionFile(openSync(file, "r"), section.start, section.length);
  // As readBody() reads it: into a buffer with room to grow, the index's own.
  const kept = new Uint8Array(roomy(rest.length), 0, rest.length);
  kept.set(rest);
  return { index: KeywordIndex.fromBuffer(kept, positions, true), positions };
}

/** All of a segment's bytes as segmentParts() gives them (positions in a file read from there). */
function partsBytes(seg: Segment): Buffer {
  return Buffer.concat(segmentParts(seg).map((p) => (p instanceof Uint8Array ? p : p.read(new Uint8Array(0), 0, p.length).bytes)));
}

describe("compaction of an index whose positions stay in its file", () => {
  it("reads them a window at a time, spills the new ones to a file, and gives the bytes of a compaction in memory", () => {
    const built = KeywordIndex.empty();
    for (let seq = 1; seq <= 3000; seq++) built.add(row(seq));
    const bytes = built.toBuffer();
    const inMemory = KeywordIndex.fromBuffer(bytes.slice());
    const { index: inFile, positions } = loadWithPositionsInFile(bytes);
    for (const index of [inMemory, inFile]) {
      for (let seq = 3001; seq <= 3300; seq++) index.add(row(seq));
      for (let seq = 1; seq <= 600; seq += 4) index.remove(seq);
    }
    const run = (steps: Generator<void, Segment>): Segment => {
      for (;;) {
        const next = steps.next();
        if (next.done) return next.value;
      }
    };
    const expected = run(compactSteps(inMemory.snapshot(), 500));
    expect(expected.posFile).toBeNull();
    const spill = openSync(join(dir, "spill.bin"), "w+");
    const got = run(compactSteps(inFile.snapshot(), 500, spill));
    // The old positions were read a window at a time: no read came near all of them.
    expect(positions.largestRead).toBeGreaterThan(0);
    expect(positions.largestRead).toBeLessThan(positions.length / 2);
    // The new positions are in the spill file, not in memory; the bytes are the same.
    expect(got.posFile, "positions spilled to the file").not.toBeNull();
    expect(got.posBytes.length).toBe(0);
    expect(partsBytes(got).equals(partsBytes(expected))).toBe(true);
    // Once adopted, the index answers as the one compacted in memory.
    inMemory.adopt(expected);
    inFile.adopt(got);
    const options = { ln: Math.log, totals: { rows: inMemory.rows, tokens: inMemory.tokens } };
    for (const text of ["apple", "river stone", '"quantum apple"', "title apple", "w17 light"]) {
      const query = buildKeywordQuery(text) as NonNullable<ReturnType<typeof buildKeywordQuery>>;
      expect(inFile.search(query, 50, options)).toEqual(inMemory.search(query, 50, options));
    }
    inFile.close();
  });

  it("reads a term found in every row a window of blocks at a time, not its positions at once", () => {
    // "apple" 100 times in each of 4,000 rows: ~400 KB of its positions, more than a window.
    const common = (seq: number): IndexedRow => ({ seq, title: "", body: `${"apple ".repeat(100)}w${seq % 17}` });
    const built = KeywordIndex.empty();
    for (let seq = 1; seq <= 4000; seq++) built.add(common(seq));
    const bytes = built.toBuffer();
    const inMemory = KeywordIndex.fromBuffer(bytes.slice());
    const { index: inFile, positions } = loadWithPositionsInFile(bytes);
    expect(positions.length).toBeGreaterThan(COMPACT_READ_WINDOW);
    for (const index of [inMemory, inFile]) {
      for (let seq = 4001; seq <= 4200; seq++) index.add(common(seq));
      for (let seq = 1; seq <= 4000; seq += 9) index.remove(seq);
    }
    const run = (steps: Generator<void, Segment>): Segment => {
      for (;;) {
        const next = steps.next();
        if (next.done) return next.value;
      }
    };
    const expected = run(compactSteps(inMemory.snapshot(), 500));
    const got = run(compactSteps(inFile.snapshot(), 500, openSync(join(dir, "p.bin"), "w+"), openSync(join(dir, "d.bin"), "w+")));
    // At most a window (of whole blocks) read at once, where the whole term was read before.
    expect(positions.largestRead, "bytes of old positions read at once").toBeLessThanOrEqual(COMPACT_READ_WINDOW);
    expect(partsBytes(got).equals(partsBytes(expected))).toBe(true);
    inMemory.adopt(expected);
    inFile.adopt(got);
    const options = { ln: Math.log, totals: { rows: inMemory.rows, tokens: inMemory.tokens } };
    for (const text of ["apple", '"apple apple"', "w3 apple"]) {
      const query = buildKeywordQuery(text) as NonNullable<ReturnType<typeof buildKeywordQuery>>;
      expect(inFile.search(query, 20, options)).toEqual(inMemory.search(query, 20, options));
    }
    inFile.close();
  });

  it("spills the new postings too, and installs the result read back from its file into the index's own buffer", () => {
    const built = KeywordIndex.empty();
    for (let seq = 1; seq <= 3000; seq++) built.add(row(seq));
    const bytes = built.toBuffer();
    const inMemory = KeywordIndex.fromBuffer(bytes.slice());
    const { index: inFile } = loadWithPositionsInFile(bytes);
    const change = (index: KeywordIndex, from: number, to: number): void => {
      for (let seq = from; seq <= to; seq++) index.add(row(seq));
      for (let seq = from - 2900; seq <= to - 2900; seq += 4) index.remove(seq);
    };
    const run = (steps: Generator<void, Segment>): Segment => {
      for (;;) {
        const next = steps.next();
        if (next.done) return next.value;
      }
    };
    const options = () => ({ ln: Math.log, totals: { rows: inMemory.rows, tokens: inMemory.tokens } });
    const sameAnswers = (): void => {
      for (const text of ["apple", "river stone", '"quantum apple"', "title apple", "w17 light", '"apple river"']) {
        const query = buildKeywordQuery(text) as NonNullable<ReturnType<typeof buildKeywordQuery>>;
        expect(inFile.search(query, 50, options())).toEqual(inMemory.search(query, 50, options()));
      }
    };
    const buffer = inFile.buffer;
    expect(buffer, "a loaded index knows its buffer").not.toBeNull();
    // Twice: small growth fits in the buffer's room (reused); then the index doubles (a new buffer).
    for (const [round, [from, to]] of [
      [3001, 3200],
      [3201, 9000],
    ].entries()) {
      change(inMemory, from as number, to as number);
      change(inFile, from as number, to as number);
      const expected = run(compactSteps(inMemory.snapshot(), 500));
      const spill = (name: string) => openSync(join(dir, `${name}-${round}.bin`), "w+");
      const got = run(compactSteps(inFile.snapshot(), 500, spill("positions"), spill("postings")));
      // Neither the new positions nor the new postings are held in memory; the bytes are the same.
      expect(got.docBytes.length, "postings held in memory by the compaction").toBe(0);
      expect(got.docFile?.length).toBe(expected.docBytes.length);
      const written = partsBytes(got);
      expect(written.equals(partsBytes(expected))).toBe(true);
      const file = join(dir, `installed-${round}.bin`);
      writeFileSync(file, Buffer.concat([Buffer.from("head"), written]));
      inMemory.adopt(expected);
      inFile.install(openSync(file, "r"), 4, got);
      expect(inFile.positionsInFile).toBe(true);
      if (round === 0) expect(inFile.buffer, "the old segment's buffer is reused").toBe(buffer);
      else expect(inFile.buffer).not.toBe(buffer);
      sameAnswers();
    }
    inFile.close();
  });

  it("a file that cannot be read back: an index read into its own buffer is left empty and broken, never half-read", () => {
    const built = KeywordIndex.empty();
    for (let seq = 1; seq <= 2000; seq++) built.add(row(seq));
    const bytes = built.toBuffer();
    const { index } = loadWithPositionsInFile(bytes);
    const rows = index.rows;
    const file = join(dir, "torn.bin");
    writeFileSync(file, bytes);
    truncateSync(file, Math.floor(bytes.length * 0.4));
    // Not in place (no buffer of its own): the index is left as it was.
    const other = KeywordIndex.fromBuffer(bytes.slice());
    expect(() => other.install(openSync(file, "r"), 0)).toThrow(/ended at/);
    expect(other.broken).toBe(false);
    expect(other.rows).toBe(rows);
    // In place: from the first byte read, the index holds nothing and says it is broken.
    expect(() => index.install(openSync(file, "r"), 0)).toThrow(/ended at/);
    expect(index.broken).toBe(true);
    expect(index.rows).toBe(0);
    expect(index.buffer).toBeNull();
    const query = buildKeywordQuery("apple") as NonNullable<ReturnType<typeof buildKeywordQuery>>;
    expect(index.search(query, 10, { ln: Math.log, totals: { rows: 1, tokens: 1 } })).toEqual([]);
  });
});
