import type { IndexedChunk } from "@docdb/analyzer";

/** Messages between the analysis pool and its workers. */

/** What a chunk of code adds to its index terms (absent for prose). */
export type CodeFields = Pick<IndexedChunk, "symbol" | "symbols" | "doc" | "language">;

/**
 * The states of a request's claim slot, an Int32 in memory the pool shares with its worker
 * (`workerData.claims`): whoever moves it from FREE analyses the piece, the worker (WORKER) or
 * the main thread while it waits (HERE), which then answers the request itself.
 */
export const CLAIM = { FREE: 0, WORKER: 1, HERE: 2 } as const;

export interface AnalysisRequest {
  id: number;
  /** The request's claim slot (see CLAIM). */
  slot: number;
  /**
   * Per document: its title, and each chunk's heading and text, with its code fields (language,
   * symbols, documentation) when it has any.
   */
  documents: { title: string | null; chunks: [heading: string | null, text: string, code?: CodeFields][] }[];
}

export type AnalysisReply =
  | { id: number /** Per document, per chunk: title terms and body terms (IndexTerms fields). */; terms: [string, string][][] }
  /** The main thread claimed the piece first and analysed it. */
  | { id: number; skipped: true }
  | { id: number; error: string };
