// Building the HNSW graph from every stored vector: read in one snapshot, inserted in batches on
// every core (usearch's multi-threaded `add`), in local order when large (order.ts), the event
// loop running between batches.
import { availableParallelism } from "node:os";
import { setImmediate as yieldToEventLoop } from "node:timers/promises";
import type { VectorIndexProgress, VectorIndexSettings } from "@docdb/store";
import { type LoadedIndex, newIndex } from "./file.js";
import type { IndexLog } from "./log.js";
import { insertionOrder } from "./order.js";
import { loadUsearch } from "./settings.js";

/** Vectors added per native call while building; the event loop runs between batches. */
const BUILD_BATCH = 8192;

/** A new graph over every stored vector, in memory (not yet written). */
export async function buildIndex(
  log: IndexLog,
  fingerprint: string,
  dimensions: number,
  settings: VectorIndexSettings,
  onProgress?: (p: VectorIndexProgress) => void,
): Promise<LoadedIndex> {
  const usearch = await loadUsearch();
  const { keys, matrix, highWater } = log.readAll(onProgress);
  const index = newIndex(usearch, dimensions, settings);
  const threads = availableParallelism();
  const total = keys.length;
  const order = await insertionOrder(usearch, matrix, total, dimensions, threads);
  for (let start = 0; start < total; start += BUILD_BATCH) {
    const end = Math.min(total, start + BUILD_BATCH);
    // A fresh copy per batch (the native side ignores a view's byteOffset), in insertion order.
    const batchKeys = new BigUint64Array(end - start);
    const batch = new Float32Array((end - start) * dimensions);
    for (let i = start; i < end; i++) {
      const row = order[i] as number;
      batchKeys[i - start] = keys[row] as bigint;
      batch.set(matrix.subarray(row * dimensions, (row + 1) * dimensions), (i - start) * dimensions);
    }
    index.add(batchKeys, batch, threads);
    onProgress?.({ phase: "build", done: end, total });
    await yieldToEventLoop();
  }
  onProgress?.({ phase: "build", done: total, total });
  return { index, fingerprint, dimensions, settings, highWater, unsaved: total };
}
