// Extraction off the main thread: a worker thread per large input (bytes transferred, errors
// carried back with their code), stopped when it takes too long or outgrows its memory.
import { existsSync } from "node:fs";
import { readFile, stat } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { Worker } from "node:worker_threads";
import { detectFormat, extract } from "./extract.js";
import { DEFAULT_LIMITS, ExtractError, type ExtractErrorCode, type Extracted, type ExtractInput } from "./types.js";

export interface WorkerOptions {
  /** Stop the worker after this long. Default 120,000 ms. */
  timeoutMs?: number;
  /** Heap limit of the worker (V8 old generation), in MiB. Default 1,024. */
  maxMemoryMb?: number;
  /** Hand the input's buffer to the worker instead of copying it (the caller's bytes become empty). */
  transfer?: boolean;
}

export interface AutoOptions extends WorkerOptions {
  /** Inputs this size or larger are extracted in a worker thread. Default 1 MiB. */
  workerThresholdBytes?: number;
}

export const DEFAULT_TIMEOUT_MS = 120_000;
export const DEFAULT_WORKER_THRESHOLD_BYTES = 1024 * 1024;

/**
 * The worker script: dist/extract-worker.mjs beside the built module (or beside a bundled
 * program that copies it there), else the package's dist when running from source.
 * Undefined when neither exists.
 */
export function extractWorkerScript(): string | undefined {
  for (const candidate of ["./extract-worker.mjs", "../dist/extract-worker.mjs"]) {
    try {
      const path = fileURLToPath(new URL(candidate, import.meta.url));
      if (existsSync(path)) return path;
    } catch {
      // import.meta.url is not a file URL (bundled elsewhere): no worker script.
    }
  }
  return undefined;
}

/** `extract(input)` in a worker thread; rejects with the worker's ExtractError (same code and message). */
export function extractInWorker(input: ExtractInput, options: WorkerOptions = {}): Promise<Extracted> {
  const script = extractWorkerScript();
  if (!script) {
    return Promise.reject(
      new Error("@docdb/extract: dist/extract-worker.mjs is missing (build the package, or copy it beside the bundle)"),
    );
  }
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const maxMemoryMb = options.maxMemoryMb ?? 1024;
  const { bytes } = input;
  const whole = bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength && bytes.buffer instanceof ArrayBuffer;
  const sent = options.transfer && whole ? bytes : bytes.slice();
  return new Promise<Extracted>((resolve, reject) => {
    const worker = new Worker(script, { resourceLimits: { maxOldGenerationSizeMb: maxMemoryMb } });
    let settled = false;
    const finish = (error: Error | undefined, result?: Extracted) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      void worker.terminate();
      if (error) reject(error);
      else resolve(result as Extracted);
    };
    const timer = setTimeout(() => {
      finish(
        new ExtractError(
          "limit_exceeded",
          `extraction took longer than ${Math.round(timeoutMs / 1000)} s and was stopped; the file is too large or too complex`,
        ),
      );
    }, timeoutMs);
    worker.on("message", (reply: { ok?: Extracted; error?: { code?: ExtractErrorCode; message: string } }) => {
      if (reply.ok) finish(undefined, reply.ok);
      else if (reply.error?.code) finish(new ExtractError(reply.error.code, reply.error.message));
      else finish(new Error(`extraction failed: ${reply.error?.message ?? "no reason given"}`));
    });
    worker.on("error", (error: Error & { code?: string }) => {
      if (error.code === "ERR_WORKER_OUT_OF_MEMORY") {
        finish(new ExtractError("limit_exceeded", `extraction needed more than ${maxMemoryMb} MiB of memory and was stopped`));
      } else finish(new Error(`extraction failed in its worker thread: ${error.message}`));
    });
    worker.on("exit", (code) => finish(new Error(`the extraction worker stopped (exit code ${code}) before it answered`)));
    worker.postMessage({ ...input, bytes: sent }, [sent.buffer as ArrayBuffer]);
  });
}

/** In this thread for small inputs, in a worker thread from `workerThresholdBytes` (1 MiB) up. */
export function extractAuto(input: ExtractInput, options: AutoOptions = {}): Promise<Extracted> {
  const threshold = options.workerThresholdBytes ?? DEFAULT_WORKER_THRESHOLD_BYTES;
  if (input.bytes.length < threshold || !extractWorkerScript()) return extract(input);
  return extractInWorker(input, options);
}

/**
 * Reads and extracts a file (format from its name unless `input.format`/`mediaType` say). The size
 * is checked before reading, so an oversized file fails fast without being loaded.
 */
export async function extractFile(path: string, options: AutoOptions & Omit<ExtractInput, "bytes"> = {}): Promise<Extracted> {
  const { timeoutMs, maxMemoryMb, workerThresholdBytes, transfer: _transfer, ...rest } = options;
  const input = { name: path, ...rest };
  const maxBytes = input.limits?.maxBytes ?? DEFAULT_LIMITS.maxBytes;
  if (detectFormat(input) === null) return extract({ ...input, bytes: new Uint8Array() }); // the clear "cannot tell the format" error
  const { size } = await stat(path);
  if (size > maxBytes) throw new ExtractError("too_large", `the file is ${size} bytes, over the limit of ${maxBytes}`);
  const buffer = await readFile(path);
  const bytes = new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.byteLength);
  return extractAuto({ ...input, bytes }, { timeoutMs, maxMemoryMb, workerThresholdBytes, transfer: true });
}
