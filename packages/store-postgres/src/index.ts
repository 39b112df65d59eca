export { isConnectionError, type Queryable } from "./db.js";
export { createPostgresEngine, findMigrationsDir, PostgresEngine, type PostgresEngineOptions, schemaNameFor } from "./engine.js";
export { DELETE_BATCH, PostgresStore } from "./store.js";
