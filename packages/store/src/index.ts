export { SqliteStore, type OpenStoreOptions } from "./store.js";
export { migrate, findMigrationsDir } from "./migrate.js";
export { analyzeForIndex, buildMatchQuery, normalize, words } from "./analyzer.js";
export { FilterError, type SearchFilter } from "./filter.js";
export type { ChunkHit, ChunkRow, DocumentRow, EmbeddingInfo, NewChunk, NewDocument, StoreCounts } from "./types.js";
