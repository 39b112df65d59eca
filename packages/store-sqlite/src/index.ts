export { createSqliteEngine, SqliteEngine, type SqliteEngineOptions } from "./engine.js";
export { findMigrationsDir } from "./migrate.js";
export { SQLITE_CAPABILITIES, SqliteStore } from "./store.js";
export { DEFAULT_BUSY_TIMEOUT_MS, processesHolding } from "./write-lock.js";
