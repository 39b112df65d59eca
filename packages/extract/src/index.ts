// @docdb/extract: bytes of a document in, Markdown text with locators out.
export { detectFormat, extract } from "./extract.js";
export * from "./types.js";
export {
  type AutoOptions,
  DEFAULT_TIMEOUT_MS,
  DEFAULT_WORKER_THRESHOLD_BYTES,
  extractAuto,
  extractFile,
  extractInWorker,
  extractWorkerScript,
  type WorkerOptions,
} from "./worker.js";
export { readZip } from "./zip.js";
