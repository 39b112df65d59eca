// The order a large build inserts its vectors in: a spread-out sample first (the graph's skeleton),
// then the rest grouped by nearest coarse centroid, so consecutive inserts search the same region
// of the graph (kept in the CPU's caches) and neighbours sit near each other in the file.
import { setImmediate as yieldToEventLoop } from "node:timers/promises";
import { quantizeInto } from "./exact.js";
import type { USearch } from "./settings.js";

/** From this many vectors a build inserts in local order (below it the graph fits the caches well enough). */
export const LOCAL_ORDER_FROM = 200_000;
/** Every this-many-th vector (in stored order) goes into the skeleton, inserted first. */
const SKELETON_EVERY = 10;
/** Coarse centroids the rest is grouped by (about 4,000 vectors each at 1M). */
const GROUPS = 256;
/** Vectors assigned to their centroid per native call; the event loop runs between. */
const ASSIGN_BATCH = 16_384;

/**
 * Positions into `matrix` (`count` rows of `dimensions`) in insertion order: every
 * SKELETON_EVERY-th row first, in stored order, so the graph's upper layers and long links span
 * all the data (inserting grouped data alone left recall at 0.955 however wide the search, at
 * 200k); then the other rows grouped by their nearest of GROUPS rows spread through the data,
 * in stored order within a group. Below LOCAL_ORDER_FROM rows: stored order.
 */
export async function insertionOrder(
  usearch: USearch,
  matrix: Float32Array,
  count: number,
  dimensions: number,
  threads: number,
): Promise<Uint32Array> {
  const order = new Uint32Array(count);
  if (count < LOCAL_ORDER_FROM) {
    for (let i = 0; i < count; i++) order[i] = i;
    return order;
  }
  // Centroids and rows at one byte a dimension (as the exact path's sketch): the nearest centroid
  // only orders the inserts, and the byte kernel computes it 2–3× faster than f32.
  const row = (i: number) => matrix.subarray(i * dimensions, (i + 1) * dimensions);
  const centroids = new Int8Array(GROUPS * dimensions);
  for (let g = 0; g < GROUPS; g++) quantizeInto(centroids, g * dimensions, row(Math.floor(((g + 0.5) * count) / GROUPS)));
  // The nearest centroid of each row outside the skeleton (skeleton rows are placed first anyway).
  const group = new Uint16Array(count);
  const batch = new Int8Array(ASSIGN_BATCH * dimensions);
  const rows = new Uint32Array(ASSIGN_BATCH);
  for (let i = 0; i < count; ) {
    let filled = 0;
    for (; i < count && filled < ASSIGN_BATCH; i++) {
      if (i % SKELETON_EVERY === 0) continue;
      quantizeInto(batch, filled * dimensions, row(i));
      rows[filled++] = i;
    }
    if (filled === 0) break;
    // A fresh copy: the native side ignores a view's byteOffset.
    const found = usearch.exactSearch(centroids, batch.slice(0, filled * dimensions), dimensions, 1, usearch.MetricKind.Cos, threads);
    for (let j = 0; j < filled; j++) group[rows[j] as number] = Number(found.keys[j]);
    await yieldToEventLoop();
  }
  // Counting sort by group; skeleton rows take the first places.
  const starts = new Uint32Array(GROUPS + 1);
  let skeleton = 0;
  for (let i = 0; i < count; i++) {
    if (i % SKELETON_EVERY === 0) skeleton++;
    else {
      const g = (group[i] as number) + 1;
      starts[g] = (starts[g] as number) + 1;
    }
  }
  starts[0] = skeleton;
  for (let g = 1; g <= GROUPS; g++) starts[g] = (starts[g] as number) + (starts[g - 1] as number);
  let next = 0;
  for (let i = 0; i < count; i++) {
    if (i % SKELETON_EVERY === 0) order[next++] = i;
    else {
      const g = group[i] as number;
      const at = starts[g] as number;
      order[at] = i;
      starts[g] = at + 1;
    }
  }
  return order;
}
