// The exact path's one-byte copy (above 128 MB of f32): its candidates, rescored from the stored
// vectors, hold the exact top k; small copies stay f32. Real usearch, no database needed.
import { cosineDistance, random, randomUnit } from "@docdb/store/contract-suite";
import { describe, expect, it } from "vitest";
import { ExactMatrix, QUANTIZE_ABOVE_FLOATS, rescoreWidth } from "../src/hnsw/exact.js";
import { loadUsearch } from "../src/hnsw/settings.js";

describe("the exact path's in-memory copy", () => {
  it("holds one byte a dimension only when large, and its candidates contain the exact top 10", async () => {
    const usearch = await loadUsearch();
    expect(new ExactMatrix(384, "f", 1000).quantized).toBe(false);
    expect(new ExactMatrix(384, "f", Math.ceil(QUANTIZE_ABOVE_FLOATS / 384) + 1).quantized).toBe(true);
    const dims = 384;
    const next = random(21);
    // Clustered, as embeddings are: near neighbours close together make one-byte rounding matter.
    const centres = Array.from({ length: 8 }, () => randomUnit(next, dims));
    const vectors = new Map<number, Float32Array>();
    const quantized = new ExactMatrix(dims, "f", 10_000, { quantize: true });
    for (let seq = 1; seq <= 10_000; seq++) {
      const centre = centres[seq % 8] as Float32Array;
      const noise = randomUnit(next, dims);
      const v = Float32Array.from(centre, (c, i) => c + 0.4 * (noise[i] as number));
      vectors.set(seq, v);
      quantized.set(seq, v);
    }
    expect(quantized.data).toBeInstanceOf(Int8Array);
    expect(quantized.vector(1)).toBeUndefined();
    for (let q = 0; q < 30; q++) {
      const probe = randomUnit(next, dims);
      const truth = [...vectors]
        .map(([seq, v]) => ({ seq, d: cosineDistance(probe, v) }))
        .sort((a, b) => a.d - b.d)
        .slice(0, 10)
        .map((t) => t.seq);
      const candidates = quantized.search(usearch, probe, rescoreWidth(10)).map((h) => h.seq);
      for (const seq of truth) expect(candidates).toContain(seq);
    }
  });
});
