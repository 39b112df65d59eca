// The worker thread of the analysis pool (analysis.ts): analyses the chunks of the documents it
// is sent with @docdb/analyzer, bundled into this file (dist/analysis-worker.mjs), so the terms
// are those the main thread would compute.
import { parentPort, workerData } from "node:worker_threads";
import { analyzeForIndex, indexTerms } from "@docdb/analyzer";
import { type AnalysisReply, type AnalysisRequest, CLAIM } from "./analysis-protocol.js";

const port = parentPort;
if (!port) throw new Error("analysis-worker runs as a worker thread");
const claims: Int32Array | undefined = workerData?.claims ? new Int32Array(workerData.claims) : undefined;

port.on("message", (request: AnalysisRequest) => {
  // A piece the main thread took while it waited is its own to answer.
  if (claims && Atomics.compareExchange(claims, request.slot, CLAIM.FREE, CLAIM.WORKER) !== CLAIM.FREE) {
    port.postMessage({ id: request.id, skipped: true } satisfies AnalysisReply);
    return;
  }
  let reply: AnalysisReply;
  try {
    reply = {
      id: request.id,
      terms: request.documents.map(({ title, chunks }) => {
        const titleTerms = title ? analyzeForIndex(title) : "";
        return chunks.map(([heading, text, code]) => {
          const terms = indexTerms(title, code ? { heading, ...code } : { heading }, text, titleTerms);
          return [terms.title, terms.body];
        });
      }),
    };
  } catch (error) {
    reply = { id: request.id, error: error instanceof Error ? error.message : String(error) };
  }
  port.postMessage(reply);
});
