export { analyzeForIndex, buildKeywordQuery, buildMatchQuery, type KeywordQuery, normalize, type Term, terms, words } from "./analyzer.js";
export { type CollectionCounts, type CollectionRow, CollectionStore, type FileRecord, type FileRow } from "./collection-store.js";
export { FilterError, type SearchFilter } from "./filter.js";
export { findMigrationsDir, migrate } from "./migrate.js";
export { type OpenStoreOptions, SqliteStore } from "./store.js";
export type { ChunkHit, ChunkRow, DocumentRow, EmbeddingInfo, EmbeddingSource, NewChunk, NewDocument, StoreCounts } from "./types.js";
