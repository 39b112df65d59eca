/** Messages between the analysis pool and its workers. */

export interface AnalysisRequest {
  id: number;
  /** Per document: its title, and each chunk's heading and text. */
  documents: { title: string | null; chunks: [heading: string | null, text: string][] }[];
}

export type AnalysisReply =
  | { id: number /** Per document, per chunk: title terms and body terms (IndexTerms fields). */; terms: [string, string][][] }
  | { id: number; error: string };
