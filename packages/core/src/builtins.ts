import { createRequire } from "node:module";

// Node built-ins that only some of docdb's work needs, required when first used instead of at
// import. Each costs 1-5 ms to load, and an MCP server answering its first tools/list needs
// none of them (issue 12: start-up).
const load = createRequire(import.meta.url);

let crypto: typeof import("node:crypto") | undefined;
let workerThreads: typeof import("node:worker_threads") | undefined;

/** node:crypto: content hashes and the randomness of new ids. */
export function nodeCrypto(): typeof import("node:crypto") {
  crypto ??= load("node:crypto") as typeof import("node:crypto");
  return crypto;
}

/** node:worker_threads: the analysis pool of large batches. */
export function nodeWorkerThreads(): typeof import("node:worker_threads") {
  workerThreads ??= load("node:worker_threads") as typeof import("node:worker_threads");
  return workerThreads;
}
