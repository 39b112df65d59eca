// The f32 scan through its one-byte sketch: the same top k, with the same distances, as scanning
// every f32 vector, whenever the sketch proves it; otherwise the f32 scan answers. Real usearch.
import { random, randomUnit } from "@docdb/store/contract-suite";
import { describe, expect, it } from "vitest";
import { ExactMatrix, SKETCH_FROM } from "../src/hnsw/exact.js";
import { loadUsearch } from "../src/hnsw/settings.js";

const DIMS = 384;

/** A matrix with its sketch and a twin without one (every query scans all its f32 vectors). */
function twins(count: number) {
  const sketched = new ExactMatrix(DIMS, "f", count);
  const plain = new ExactMatrix(DIMS, "f", count);
  plain.sketches = false;
  return {
    sketched,
    plain,
    set(seq: number, vector: Float32Array) {
      sketched.set(seq, vector);
      plain.set(seq, vector);
    },
    remove(seq: number) {
      sketched.remove(seq);
      plain.remove(seq);
    },
  };
}

/** Clustered unit-ish vectors, as embeddings are: neighbours close together make rounding matter. */
function clustered(seed: number, centres: number, spread: number) {
  const next = random(seed);
  const middles = Array.from({ length: centres }, () => randomUnit(next, DIMS));
  return (i: number) => {
    const noise = randomUnit(next, DIMS);
    return Float32Array.from(middles[i % centres] as Float32Array, (c, j) => c + spread * (noise[j] as number));
  };
}

describe("the sketch in front of the f32 scan", () => {
  it("answers exactly as the full f32 scan, and proves most answers on clustered vectors", async () => {
    const usearch = await loadUsearch();
    const make = clustered(5, 40, 0.5);
    const pair = twins(12_000);
    for (let seq = 1; seq <= 12_000; seq++) pair.set(seq, make(seq));
    // Made at the second scan: a matrix searched once never pays for it.
    pair.sketched.search(usearch, make(1), 10);
    expect(pair.sketched.sketch).toBeUndefined();
    pair.sketched.search(usearch, make(1), 10);
    expect(pair.sketched.sketch).toBeInstanceOf(Int8Array);
    expect(pair.sketched.sketchError).toBeGreaterThan(0);
    // Moved slots (a removal copies the last vector into the hole) and replaced vectors.
    for (let seq = 3; seq <= 12_000; seq += 97) pair.remove(seq);
    for (let seq = 5; seq <= 12_000; seq += 89) pair.set(seq, make(seq + 7));
    const next = random(9);
    for (let q = 0; q < 40; q++) {
      const probe = q % 4 === 0 ? make(q) : randomUnit(next, DIMS);
      for (const k of [1, 10, 56]) {
        const expected = pair.plain.search(usearch, probe, k);
        expect(pair.sketched.search(usearch, probe, k)).toEqual(expected);
      }
    }
    // Most of those came from the sketch: the test checks the path it means to.
    expect(pair.sketched.sketchAnswers).toBeGreaterThan(60);
    expect(pair.plain.sketchAnswers).toBe(0);
  });

  it("falls back to the f32 scan when the vectors are nearer together than the sketch can tell", async () => {
    const usearch = await loadUsearch();
    // Every vector within a hair of one direction: the sketch's rounding is wider than their gaps.
    const make = clustered(8, 1, 0.0005);
    const pair = twins(SKETCH_FROM * 2);
    for (let seq = 1; seq <= SKETCH_FROM * 2; seq++) pair.set(seq, make(seq));
    for (const probe of [make(0), make(1), make(2)])
      expect(pair.sketched.search(usearch, probe, 10)).toEqual(pair.plain.search(usearch, probe, 10));
    expect(pair.sketched.sketch).toBeInstanceOf(Int8Array);
    expect(pair.sketched.sketchAnswers).toBe(0);
  });

  it("scans f32 when a held vector has no direction (all zeros)", async () => {
    const usearch = await loadUsearch();
    const make = clustered(11, 10, 0.5);
    const pair = twins(SKETCH_FROM + 10);
    for (let seq = 1; seq <= SKETCH_FROM + 10; seq++) pair.set(seq, seq === 77 ? new Float32Array(DIMS) : make(seq));
    for (const probe of [make(3), make(4)]) expect(pair.sketched.search(usearch, probe, 10)).toEqual(pair.plain.search(usearch, probe, 10));
    expect(pair.sketched.sketchError).toBe(Number.POSITIVE_INFINITY);
    expect(pair.sketched.sketchAnswers).toBe(0);
  });
});
