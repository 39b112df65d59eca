// Building the HNSW graph from every stored vector: read in one snapshot, inserted in batches on
// every core (usearch's multi-threaded `add`), the event loop running between batches.
import { availableParallelism } from "node:os";
import { setImmediate as yieldToEventLoop } from "node:timers/promises";
import type { VectorIndexProgress, VectorIndexSettings } from "@docdb/store";
import { type LoadedIndex, newIndex } from "./file.js";
import type { IndexLog } from "./log.js";
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
  for (let start = 0; start < total; start += BUILD_BATCH) {
    const end = Math.min(total, start + BUILD_BATCH);
    // A fresh copy per batch: the native side ignores a view's byteOffset.
    index.add(keys.slice(start, end), matrix.slice(start * dimensions, end * dimensions), threads);
    onProgress?.({ phase: "build", done: end, total });
    await yieldToEventLoop();
  }
  onProgress?.({ phase: "build", done: total, total });
  return { index, fingerprint, dimensions, settings, highWater, unsaved: total };
}
