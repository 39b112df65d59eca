import { indexTerms, words } from "@docdb/analyzer";
import type { DocumentWrite } from "@docdb/store";

/**
 * Gives every chunk of the writes its keyword-index terms (`NewChunk.terms`), in this thread:
 * analysed before the write transaction, so the store holds the write lock only to insert. A
 * document title's words are computed once for all its chunks.
 */
export function analyseInThread(writes: DocumentWrite[]): void {
  for (const w of writes) {
    const title = w.document.title ?? null;
    const titleWords = title ? words(title) : [];
    for (const chunk of w.chunks) chunk.terms = indexTerms(title, chunk.heading, chunk.text, titleWords);
  }
}

/** Analyses the writes' chunks (see analyseInThread). */
export async function analyse(writes: DocumentWrite[]): Promise<void> {
  analyseInThread(writes);
}
