export type ImportMode = "new" | "replace" | "update";
export const IMPORT_MODES: readonly ImportMode[] = ["new", "replace", "update"];

/** Largest file imported unless configured otherwise: 1 MB. */
export const DEFAULT_MAX_FILE_SIZE = 1024 * 1024;

/**
 * Largest document docdb extracts (PDF, DOCX, PPTX, spreadsheets, HTML…) in a folder import: 64 MiB,
 * or `max_file_size` when that is larger. A larger one is reported in `failed`.
 */
export const DEFAULT_MAX_DOCUMENT_SIZE = 64 * 1024 * 1024;

/** A file an import could not read, and why (`reason`: encrypted, no_text_layer, corrupt, too_large, limit_exceeded…). */
export interface ImportFailure {
  path: string;
  reason: string;
  message: string;
}

export interface CollectionInfo {
  name: string;
  description: string;
  /** Absolute path of the folder the collection is imported from. */
  source: string;
  enabled: boolean;
  created_at: string;
  updated_at: string;
  last_import_at: string | null;
  /** Chunk size, overlap and file size limit of the last import (reused by `update` and the watcher). */
  settings: ImportSettings;
}

export interface ImportSettings {
  chunk_size?: number;
  chunk_overlap?: number;
  max_file_size?: number;
}

export interface CollectionStatus extends CollectionInfo {
  documents: number;
  chunks: number;
  embedded: number;
  pending: number;
  /** Code files cut by line windows because they did not parse or no grammar covers their language. */
  code_fallback_files: number;
  /** Chunks of those files. */
  code_fallback_chunks: number;
  /** The model that embedded the database, when any chunk has a vector. */
  model: { provider: string; model: string; dimensions: number } | null;
}

export interface CollectionFileStatus {
  path: string;
  size: number;
  chunks: number;
  doc_id: string;
  imported_at: string;
}

export interface ImportOptions {
  /** `update` (default) imports what changed; `new` refuses a collection with documents; `replace` rebuilds. */
  mode?: ImportMode;
  chunk_size?: number;
  chunk_overlap?: number;
  /** Bytes; larger files are skipped. Default: the collection's last setting, else 1 MB. */
  max_file_size?: number;
  /** Embed new chunks after writing them (default true when a model is configured). */
  embed?: boolean;
  signal?: AbortSignal;
  onProgress?: (progress: ImportProgress) => void;
}

export interface ImportProgress {
  phase: "scan" | "files" | "embed";
  files_done: number;
  files_total: number;
  /** Chunks written so far in this run. */
  chunks: number;
  embedded: number;
  embed_total: number;
  /** Files that could not be read so far in this run (see ImportSummary.failed). */
  failed: number;
  /** Set on the report made right after a file failed: that file and why. */
  failure?: ImportFailure;
}

export type SkipReason = "too_large" | "binary" | "empty" | "unreadable" | "symlink_outside";

export interface ImportSummary {
  collection: string;
  mode: ImportMode;
  /** Files found in the folder (after ignore rules). */
  files: number;
  added: number;
  updated: number;
  removed: number;
  unchanged: number;
  skipped: Partial<Record<SkipReason, number>>;
  /** Chunks written by this run. */
  chunks: number;
  /** Chunks of the collection after the run. */
  total_chunks: number;
  /** Chunks of this collection embedded by this run (other writers' pending chunks it embedded are not counted). */
  embedded: number;
  /**
   * Chunks of changed files that kept their vector because their text (and embedding input)
   * did not change: they were not sent to the embedding provider.
   */
  reused_vectors: number;
  /** Chunks of the collection (not the whole database) still waiting for a vector. */
  pending: number;
  seconds: number;
  warnings: string[];
  /**
   * Files that could not be read, each with its reason (an encrypted PDF, a scanned one with "no
   * text layer — OCR it first", a corrupt or oversized file); the other files are imported. A
   * failed file's earlier document, if any, is kept.
   */
  failed: ImportFailure[];
  /** Paths written (added or updated) and removed by this run. */
  changed: { added: string[]; updated: string[]; removed: string[] };
}

/** Called with the full list of collections whenever one is added, changed, enabled, disabled or deleted. */
export type CollectionsListener = (collections: CollectionInfo[]) => void;

/** What a CollectionWatcher needs of a database's collections (Collections provides it). */
export interface WatchedCollections {
  list(): Promise<CollectionInfo[]>;
  import(name: string, options: ImportOptions): Promise<ImportSummary>;
  onChange(listener: CollectionsListener, options: { intervalMs?: number }): () => void;
}
