import { analyzeForIndex, indexTerms } from "@docdb/analyzer";
import type { DocumentWrite } from "@docdb/store";

/**
 * Gives every chunk of the writes its keyword-index terms (`NewChunk.terms`), before the write
 * transaction, so the store holds the write lock only to insert. A document title's words are
 * computed once for all its chunks.
 *
 * In this thread: analysis in worker threads (a pool of `node:worker_threads` analysing the
 * next batch while this one is written) was built and measured on the 2-core machine docdb is
 * benchmarked on, and did not pay: the same or a slower rate, 4–15% more CPU (BENCHMARKS.md).
 */
export function analyseInThread(writes: DocumentWrite[]): void {
  for (const w of writes) {
    const title = w.document.title ?? null;
    const titleTerms = title ? analyzeForIndex(title) : "";
    for (const chunk of w.chunks) chunk.terms = indexTerms(title, chunk.heading, chunk.text, titleTerms);
  }
}
