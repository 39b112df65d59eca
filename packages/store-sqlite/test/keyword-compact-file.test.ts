// Compacting an index whose positions stay in its file: they are read a term at a time (never all
// at once), the new ones can go to a spill file instead of memory, and the bytes are those of a
// compaction in memory.
import { mkdtempSync, openSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { buildKeywordQuery } from "@docdb/analyzer";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  compactSteps,
  type IndexedRow,
  KeywordIndex,
  PositionFile,
  positionsSection,
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
  return { index: KeywordIndex.fromBuffer(rest, positions), positions };
}

/** All of a segment's bytes as segmentParts() gives them (positions in a file read from there). */
function partsBytes(seg: Segment): Buffer {
  return Buffer.concat(segmentParts(seg).map((p) => (p instanceof Uint8Array ? p : p.read(new Uint8Array(0), 0, p.length).bytes)));
}

describe("compaction of an index whose positions stay in its file", () => {
  it("reads them a term at a time, spills the new ones to a file, and gives the bytes of a compaction in memory", () => {
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
    // The old positions were read a term at a time: no read came near all of them.
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
});
