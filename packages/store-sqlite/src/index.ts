export { createSqliteEngine, SqliteEngine, type SqliteEngineOptions } from "./engine.js";
export { findMigrationsDir } from "./migrate.js";
export { SQLITE_CAPABILITIES, SqliteStore } from "./store.js";
export { DEFAULT_VECTOR_INDEX_SETTINGS, USEARCH_VERSION } from "./vector-index.js";
export { DEFAULT_BUSY_TIMEOUT_MS, processesHolding } from "./write-lock.js";
