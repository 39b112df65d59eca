// The worker thread that `extractInWorker` starts: it extracts the one input it is sent and posts
// back the result, or the error's code and message. Built to dist/extract-worker.mjs.
import { parentPort } from "node:worker_threads";
import { extract } from "./extract.js";
import { ExtractError, type ExtractInput } from "./types.js";

const port = parentPort;
if (!port) throw new Error("extract-worker runs as a worker thread (started by extractInWorker)");

port.once("message", async (input: ExtractInput) => {
  try {
    port.postMessage({ ok: await extract(input) });
  } catch (error) {
    const failure =
      error instanceof ExtractError
        ? { code: error.code, message: error.message }
        : { message: String((error as Error)?.message ?? error) };
    port.postMessage({ error: failure });
  }
});
