// The order a large HNSW build inserts its vectors in (hnsw/order.ts): a spread-out skeleton first,
// then the rest grouped by region, every row exactly once; stored order below the size that needs it.
import { describe, expect, it } from "vitest";
import { insertionOrder, LOCAL_ORDER_FROM } from "../src/hnsw/order.js";
import { loadUsearch } from "../src/hnsw/settings.js";

const DIMS = 4;
const CLUSTERS = 8;

/** `count` rows around CLUSTERS directions, in stored order cycling through them (row i in cluster i % CLUSTERS). */
function clustered(count: number): Float32Array {
  const matrix = new Float32Array(count * DIMS);
  let seed = 7;
  const next = () => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return seed / 2 ** 31 - 0.5;
  };
  for (let i = 0; i < count; i++) {
    const c = i % CLUSTERS;
    for (let d = 0; d < DIMS; d++) {
      // Each cluster a distinct corner of the cube, with a little noise.
      const corner = (c >> d) & 1 ? 1 : -1;
      matrix[i * DIMS + d] = (d < 3 ? corner : 0.5) + 0.01 * next();
    }
  }
  return matrix;
}

describe("the insertion order of an HNSW build", () => {
  it("is the stored order below LOCAL_ORDER_FROM vectors", async () => {
    const usearch = await loadUsearch();
    const count = 1000;
    const order = await insertionOrder(usearch, clustered(count), count, DIMS, 1);
    expect(Array.from(order)).toEqual(Array.from({ length: count }, (_, i) => i));
  });

  it("puts every 10th row first, then groups rows of one region together, each row once", { timeout: 120_000 }, async () => {
    const usearch = await loadUsearch();
    const count = LOCAL_ORDER_FROM + 37;
    const order = await insertionOrder(usearch, clustered(count), count, DIMS, 2);
    expect(order.length).toBe(count);
    const seen = new Uint8Array(count);
    for (const row of order) seen[row]++;
    expect(seen.every((n) => n === 1)).toBe(true);
    const skeleton = Math.ceil(count / 10);
    expect(Array.from(order.subarray(0, skeleton))).toEqual(Array.from({ length: skeleton }, (_, i) => i * 10));
    // Stored order changes cluster at every row; after the skeleton, nearly every next row is in the same cluster.
    let same = 0;
    for (let i = skeleton + 1; i < count; i++) if ((order[i] as number) % CLUSTERS === (order[i - 1] as number) % CLUSTERS) same++;
    expect(same / (count - skeleton - 1)).toBeGreaterThan(0.99);
  });
});
