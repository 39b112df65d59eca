// The worker thread of the analysis pool (analysis.ts): analyses the chunks of the documents it
// is sent with @docdb/analyzer, bundled into this file (dist/analysis-worker.mjs), so the terms
// are those the main thread would compute.
import { parentPort } from "node:worker_threads";
import { analyzeForIndex, indexTerms } from "@docdb/analyzer";
import type { AnalysisReply, AnalysisRequest } from "./analysis-protocol.js";

const port = parentPort;
if (!port) throw new Error("analysis-worker runs as a worker thread");

port.on("message", (request: AnalysisRequest) => {
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
