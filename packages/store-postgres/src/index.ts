export { isConnectionError, type Queryable } from "./db.js";
export { DELETE_BATCH } from "./delete.js";
export { createPostgresEngine, PostgresEngine, type PostgresEngineOptions, schemaNameFor } from "./engine.js";
export { findMigrationsDir } from "./migrate.js";
export { PostgresStore } from "./store.js";
