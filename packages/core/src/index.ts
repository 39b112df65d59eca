export {
  COLLECTION_NAME_PATTERN,
  type CollectionFileStatus,
  type CollectionInfo,
  type CollectionStatus,
  Collections,
  type CollectionsListener,
  CollectionWatcher,
  DEFAULT_MAX_FILE_SIZE,
  fileKind,
  IMPORT_MODES,
  type ImportMode,
  type ImportOptions,
  type ImportProgress,
  type ImportSettings,
  type ImportSummary,
  type SkipReason,
  validateCollectionName,
  type WatchEvent,
  type WatchOptions,
} from "./collections/index.js";
export * from "./config.js";
export { Database } from "./database.js";
export { DocDB, isPostgresUrl, type OpenDocDBOptions, openDocDB } from "./docdb.js";
export { DocDBError, ERROR_CODES, type ErrorCode, toDocDBError } from "./errors.js";
export {
  type EvalMetrics,
  type EvalProgress,
  type EvalReport,
  type EvaluateOptions,
  evaluateRetrieval,
  type QueryMetrics,
  queryMetrics,
  type RankedDocument,
} from "./eval/index.js";
export { parseFilter } from "./filter.js";
export { createLogger, type Logger, silentLogger } from "./logger.js";
export * from "./memory/index.js";
export { type LocalModelStatus, type LocalModelsReport, listLocalModels } from "./models.js";
export {
  createEmbeddingModel,
  type EmbeddingConfig,
  embeddingConfigFromEnv,
  PROVIDER_NAMES,
  type ProviderName,
  parseProviderName,
  providerOf,
  resolveEmbeddingConfig,
} from "./provider.js";
export type {
  DatabaseStatus,
  DocumentListing,
  DocumentView,
  EmbedOptions,
  EmbedProgress,
  EmbedResult,
  FindInput,
  FindResult,
  InsertInput,
  InsertResult,
  SearchMode,
  SearchResult,
} from "./types.js";
export { SEARCH_MODES } from "./types.js";
export { DB_NAME_PATTERN, DEFAULT_DB_NAME, DEFAULT_MAX_TEXT_LENGTH, MAX_TOP_K, validateDbName } from "./validate.js";
