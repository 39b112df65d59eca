export type { AccessLevel, AuditRecord, TokenLimits, TokenRecord } from "@docdb/store";
export {
  Access,
  type Actor,
  type AuditInput,
  hashToken,
  SERVER_DB_NAME,
  TOKEN_NAME_PATTERN,
  type TokenCheck,
  type TokenInfo,
  type TokenInput,
} from "./access.js";
export { wordSegmentation } from "./analysis.js";
export {
  COLLECTION_NAME_PATTERN,
  type CollectionFileStatus,
  type CollectionInfo,
  type CollectionStatus,
  Collections,
  type CollectionsListener,
  CollectionWatcher,
  DEFAULT_MAX_DOCUMENT_SIZE,
  DEFAULT_MAX_FILE_SIZE,
  fileKind,
  IMPORT_MODES,
  type ImportFailure,
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
export { COPY_BATCH, type CopyChanges, type CopyOptions, type CopyProgress, type CopyResult, copyStore } from "./copy.js";
export { Database } from "./database/database.js";
export { MAX_INSERT_BYTES } from "./database/insert-file.js";
export { DocDB, isPostgresUrl, type OpenDocDBOptions, openDocDB } from "./docdb.js";
export { createEngine, ENGINES, type EngineEntry, type EngineFactory, type EngineSettings } from "./engines.js";
export { DocDBError, ECHO_MAX_CHARS, ERROR_CODES, type ErrorCode, echo, MESSAGE_MAX_CHARS, toDocDBError } from "./errors.js";
export { describeLocator, EXTRACT_FORMATS, type ExtractFormatName, extractedFormatOfName } from "./extraction.js";
export { FETCH_DEFAULTS, type Fetched, type FetchOptions, fetchUrl, isPrivateAddress } from "./fetch-url.js";
export { FILTER_LIMITS, parseFilter } from "./filter.js";
export { type HealerOptions, type HealingStatus, PendingHealer } from "./healer.js";
export { createLogger, humanLogLine, type Logger, silentLogger } from "./logger.js";
export * from "./memory/index.js";
export {
  checkModelDownloads,
  type DownloadCheck,
  type LocalModelStatus,
  type LocalModelsReport,
  listLocalModels,
} from "./models.js";
export { createEmbeddingModel, environmentFolders, type ModelFolders } from "./provider.js";
export { createReranker, RERANK_CANDIDATES, rerankerProviderOf } from "./reranker.js";
export { DEFAULT_MAX_CHARS, MAX_MAX_CHARS } from "./search/passages.js";
export * from "./settings/index.js";
export {
  describeSqlViews,
  SQL_DEFAULT_MAX_BYTES,
  SQL_DEFAULT_MAX_ROWS,
  SQL_DEFAULT_TIMEOUT_MS,
  SQL_MAX_BYTES_LIMIT,
  SQL_MAX_ROWS_LIMIT,
  SQL_VIEWS,
} from "./sql.js";
export type {
  DatabaseStatus,
  DocumentListing,
  DocumentRange,
  DocumentView,
  EmbedOptions,
  EmbedProgress,
  EmbedResult,
  FindBudget,
  FindInput,
  FindResult,
  InsertBytesInput,
  InsertFileOptions,
  InsertInput,
  InsertManyItem,
  InsertManyOptions,
  InsertManyResult,
  InsertResult,
  InsertUrlOptions,
  SearchMode,
  SearchResult,
  SqlOptions,
  SqlResult,
} from "./types.js";
export { SEARCH_MODES } from "./types.js";
export { DB_NAME_PATTERN, DEFAULT_DB_NAME, DEFAULT_MAX_TEXT_LENGTH, MAX_TOP_K, validateDbName } from "./validate.js";
