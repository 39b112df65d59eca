// The keyword index's added rows (its in-memory delta): their postings take a few bytes each (one
// arena, not number arrays), answer as the same rows compacted, and a compaction in steps reads
// them as they were when it started while rows keep coming (and the arena grows).
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { buildKeywordQuery } from "@docdb/analyzer";
import { describe, expect, it } from "vitest";
import { compactSteps, type IndexedRow, KeywordIndex, type Segment } from "../src/keyword-index/index.js";

setFlagsFromString("--expose-gc");
const gc = runInNewContext("gc") as () => void;

/** A row of ~`words` tokens drawn (skewed towards the first words) from a fixed vocabulary. */
function row(seq: number, words = 12, vocabulary = 3000): IndexedRow {
  let x = seq * 2654435761;
  const next = (n: number): number => {
    x = (x * 1103515245 + 12345) >>> 0;
    const u = x / 2 ** 32;
    return Math.floor(u * u * n);
  };
  const body: string[] = [];
  for (let i = 0; i < words; i++) body.push(`w${next(vocabulary)}`);
  if (seq % 3 === 0) body.push("quantum", "apple", "river");
  return { seq, title: seq % 4 === 0 ? `title w${next(50)} apple` : "", body: body.join(" ") };
}

const opts = { ln: Math.log };

function memory(): number {
  gc();
  gc();
  const m = process.memoryUsage();
  return m.heapUsed + m.arrayBuffers;
}

describe("the keyword index's added rows", () => {
  it("hold their postings in a few bytes per hit (not two JS numbers each)", () => {
    const index = KeywordIndex.empty();
    for (let seq = 1; seq <= 20_000; seq++) index.add(row(seq, 40));
    index.compact();
    const rows: IndexedRow[] = [];
    let hits = 0;
    for (let seq = 20_001; seq <= 40_000; seq++) {
      const r = row(seq, 40);
      rows.push(r);
      hits += r.body.split(" ").length + (r.title ? r.title.split(" ").length : 0);
    }
    const before = memory();
    for (const r of rows) index.add(r);
    const after = memory();
    expect(index.rows).toBe(40_000);
    // Two numbers per hit in JS arrays took 16+ bytes a hit; the arena takes ~2-3 (growth slack included).
    const perHit = (after - before) / hits;
    expect(perHit, `bytes per added hit: ${perHit.toFixed(1)}`).toBeLessThan(8);
    // What it reports (arena capacity included, up to twice what it holds).
    expect(index.addedBytes / hits).toBeLessThan(16);
  });

  it("answer as the same rows compacted, phrases included, with rows removed and added again", () => {
    // The same rows, removals and re-adds, compacted after the first `compacted` rows.
    const built = (compacted: number): KeywordIndex => {
      const index = KeywordIndex.empty();
      for (let seq = 1; seq <= compacted; seq++) index.add(row(seq));
      index.compact();
      for (let seq = compacted + 1; seq <= 3000; seq++) index.add(row(seq));
      for (let seq = 1; seq <= 3000; seq += 7) index.remove(seq);
      for (let seq = 14; seq <= 3000; seq += 35) index.add(row(seq + 10_000));
      return index;
    };
    const live = built(2000);
    const compacted = KeywordIndex.fromBuffer(KeywordIndex.fromBuffer(live.toBuffer()).toBuffer());
    // `live` compacted itself in toBuffer(): the same rows again, this time held as added rows.
    const delta = built(1000);
    expect(delta.rows).toBe(compacted.rows);
    for (const q of ["apple", '"quantum apple"', '"quantum apple river"', "w1 w2 apple", '"title apple"', "w7 OR w3"]) {
      const query = buildKeywordQuery(q);
      for (const limit of [1, 10, 100])
        expect(delta.search(query, limit, opts), `${q} @${limit}`).toEqual(compacted.search(query, limit, opts));
    }
  });

  it("are read by a compaction in steps as they were when it started, while rows come in and the arena grows", () => {
    const build = (): KeywordIndex => {
      const index = KeywordIndex.empty();
      for (let seq = 1; seq <= 2000; seq++) index.add(row(seq));
      index.compact();
      for (let seq = 2001; seq <= 3000; seq++) index.add(row(seq));
      for (let seq = 5; seq <= 3000; seq += 11) index.remove(seq);
      return index;
    };
    const expected = build().toBuffer();
    const index = build();
    const steps = compactSteps(index.snapshot(), 50);
    let next = steps.next();
    let seq = 100_000;
    while (!next.done) {
      // Rows after the snapshot: old terms (their chains go on in new slices) and new ones.
      for (let i = 0; i < 20; i++, seq++) index.add({ ...row(seq, 60), title: `fresh${seq} apple` });
      next = steps.next();
    }
    expect(seq - 100_000).toBeGreaterThan(2000);
    const result = KeywordIndex.empty();
    result.adopt(next.value as Segment);
    expect(Buffer.from(result.toBuffer()).equals(Buffer.from(expected))).toBe(true);
  });
});
