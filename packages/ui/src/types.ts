// The shapes the page reads from its API (a subset of what the server sends).
export interface Me {
  name: string;
  access: "read" | "write" | "admin";
}

export interface DatabaseInfo {
  name: string;
  engine: string;
  location: string;
  documents: number;
  chunks: number;
  embedded: number;
  pending: number;
  model: { provider: string; model: string; dimensions: number } | null;
  index: { state?: string; size?: number; [key: string]: unknown } | null;
}

export interface CollectionInfo {
  name: string;
  source: string;
  documents: number;
  chunks: number;
  pending: number;
  last_import_at: string | null;
  watched: boolean;
}

export interface Passage {
  chunk_id: string;
  doc_id: string;
  text?: string;
  score: number;
  start: number;
  end: number;
  title?: string;
  source?: string;
  heading?: string;
  line_start?: number;
  line_end?: number;
  metadata: Record<string, unknown>;
  /** Where in the original file (page, slide, sheet and row, section), for extracted documents. */
  locator?: { page?: number; slide?: number; sheet?: string; row?: number; section?: string } | null;
  collection?: string;
  stale?: boolean;
  why: { keyword_rank: number | null; vector_rank: number | null; fused: number | null };
}

export interface SearchAnswer {
  results: Passage[];
  terms: string[];
  warnings: string[];
  took_ms: number;
  mode: string;
}
