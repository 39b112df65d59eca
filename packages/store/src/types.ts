export interface NewDocument {
  id: string;
  source?: string | null;
  title?: string | null;
  content: string;
  contentHash: string;
  metadata: Record<string, unknown>;
  collection?: string | null;
}

export interface NewChunk {
  id: string;
  idx: number;
  text: string;
  start: number;
  end: number;
  heading?: string | null;
  lineStart?: number | null;
  lineEnd?: number | null;
}

export interface DocumentRow {
  id: string;
  source: string | null;
  title: string | null;
  content: string;
  content_hash: string;
  metadata: Record<string, unknown>;
  collection: string | null;
  created_at: string;
  updated_at: string;
}

export interface ChunkRow {
  seq: number;
  id: string;
  doc_id: string;
  idx: number;
  text: string;
  start: number;
  end: number;
  heading: string | null;
  line_start: number | null;
  line_end: number | null;
  embedded: boolean;
}

/** A chunk with what a search result needs from its document. */
export interface ChunkHit extends ChunkRow {
  title: string | null;
  source: string | null;
  collection: string | null;
  metadata: Record<string, unknown>;
  doc_updated_at: string;
}

export interface EmbeddingInfo {
  provider: string;
  model: string;
  dimensions: number;
}

export interface StoreCounts {
  documents: number;
  chunks: number;
  embedded: number;
  pending: number;
  ftsRows: number;
  vectors: number;
}

/** What an embedding of a chunk is computed from. */
export interface EmbeddingSource {
  seq: number;
  text: string;
  heading: string | null;
  title: string | null;
}
