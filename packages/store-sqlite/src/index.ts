export {
  DEFAULT_CHECKPOINT_AFTER_PAGES,
  SAFETY_NET_WAL_BYTES,
  type WalCheckpointOptions,
  type WalCheckpointStatus,
  type WalCheckpointView,
} from "./checkpointer.js";
export { createSqliteEngine, SqliteEngine, type SqliteEngineOptions } from "./engine.js";
export { DEFAULT_VECTOR_INDEX_SETTINGS, USEARCH_VERSION } from "./hnsw/settings.js";
export {
  type IndexedRow,
  KeywordIndex,
  KeywordIndexFormatError,
  type KeywordIndexHit,
  type KeywordSearchOptions,
  tokenize,
} from "./keyword-index/index.js";
export { KEYWORD_INDEX_THRESHOLD, type KeywordIndexOptions, type KeywordIndexView } from "./keyword-live/live.js";
export { SQLITE_CAPABILITIES } from "./meta.js";
export { findMigrationsDir } from "./migrate.js";
export { SqliteStore } from "./store.js";
export { DEFAULT_BUSY_TIMEOUT_MS, processesHolding } from "./write-lock.js";
