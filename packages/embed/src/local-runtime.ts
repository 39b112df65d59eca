import { availableParallelism } from "node:os";
import type { DownloadProgress } from "./download-progress.js";

/**
 * What the local embedding model and the local reranker share: both run on transformers.js,
 * whose settings live in one global `env`, so every load (folder or download) goes through one
 * queue; the same session options; the same quick reachability check before a download.
 */

let loadChain: Promise<unknown> = Promise.resolve();

/** Runs `fn` after every load queued before it (transformers.js keeps its settings in one global `env`). */
export function serialisedLoad<T>(fn: () => Promise<T>): Promise<T> {
  const run = loadChain.then(fn, fn);
  loadChain = run.catch(() => undefined);
  return run;
}

export function onnxSessionOptions(threads: number | undefined) {
  return { intraOpNumThreads: threads ?? availableParallelism(), interOpNumThreads: 1, logSeverityLevel: 3 as const };
}

/**
 * A quick HEAD request before a download, so an offline machine fails in seconds instead of
 * hanging. Throws what `unavailable(reason)` makes.
 */
export async function checkModelReachable(
  host: string,
  modelId: string,
  timeoutMs: number,
  unavailable: (reason: string, cause?: unknown) => Error,
): Promise<void> {
  const url = `${host}/${modelId}/resolve/main/config.json`;
  let status: number;
  try {
    const response = await fetch(url, { method: "HEAD", signal: AbortSignal.timeout(timeoutMs) });
    status = response.status;
  } catch (error) {
    const cause = (error as { cause?: { code?: string } }).cause?.code;
    const why = (error as Error).name === "TimeoutError" ? "no answer in time" : (cause ?? (error as Error).message);
    throw unavailable(`it is not on disk and ${host} cannot be reached to download it (${why})`, error);
  }
  if (status === 401 || status === 403 || status === 404) {
    throw unavailable(`${host} has no model "${modelId}" (HTTP ${status}); check the name`);
  }
  if (status >= 400) throw unavailable(`${host} answered HTTP ${status} when asked for it`);
}

/** A transformers.js `progress_callback` that reports per-file download progress. */
export function downloadProgressCallback(modelId: string, report: (progress: DownloadProgress) => void) {
  const sizes = new Map<string, { loaded: number; total: number }>();
  return (event: { status: string; file?: string; loaded?: number; total?: number }) => {
    if (event.status === "progress" && event.file !== undefined) {
      const size = { loaded: event.loaded ?? 0, total: event.total ?? 0 };
      sizes.set(event.file, size);
      report({ model: modelId, file: event.file, ...size, done: false });
    } else if (event.status === "done" && event.file !== undefined && sizes.has(event.file)) {
      const size = sizes.get(event.file) ?? { loaded: 0, total: 0 };
      report({ model: modelId, file: event.file, ...size, done: true });
    }
  };
}
