// Collections and their files across the storage contract: the recorded collection, its file rows
// (for incremental imports) and its counts.

/** A file of a collection, as recorded for incremental imports. */
export interface FileRecord {
  path: string;
  size: number;
  /** Milliseconds since the epoch. */
  mtime: number;
  /** sha256 of the file's bytes. */
  contentHash: string;
  /** The chunker settings used; a change means the file must be chunked again. */
  chunking: string;
}

export interface CollectionRecord {
  name: string;
  description: string;
  /** Absolute folder path. */
  source: string;
  enabled: boolean;
  settings: Record<string, unknown>;
  createdAt: string;
  updatedAt: string;
  lastImportAt: string | null;
}

export interface CollectionPatch {
  description?: string;
  source?: string;
  enabled?: boolean;
  settings?: Record<string, unknown>;
  lastImportAt?: string;
}

export interface StoredFile extends FileRecord {
  collection: string;
  docId: string;
  importedAt: string;
  chunkCount: number;
}

export interface CollectionCounts {
  documents: number;
  chunks: number;
  embedded: number;
  pending: number;
  files: number;
  /** Documents with chunks of code cut by line windows (`codeFallback` set), and those chunks. */
  codeFallbackDocuments: number;
  codeFallbackChunks: number;
}
