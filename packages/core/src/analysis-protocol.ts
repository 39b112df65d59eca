import type { IndexedChunk } from "@docdb/analyzer";

/** Messages between the analysis pool and its workers. */

/** What a chunk of code adds to its index terms (absent for prose). */
export type CodeFields = Pick<IndexedChunk, "symbol" | "symbols" | "doc" | "language">;

export interface AnalysisRequest {
  id: number;
  /**
   * Per document: its title, and each chunk's heading and text, with its code fields (language,
   * symbols, documentation) when it has any.
   */
  documents: { title: string | null; chunks: [heading: string | null, text: string, code?: CodeFields][] }[];
}

export type AnalysisReply =
  | { id: number /** Per document, per chunk: title terms and body terms (IndexTerms fields). */; terms: [string, string][][] }
  | { id: number; error: string };
