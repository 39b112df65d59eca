export { Collections, type CollectionsListener } from "./collections.js";
export { fileKind } from "./file-kind.js";
export type {
  CollectionFileStatus,
  CollectionInfo,
  CollectionStatus,
  ImportFailure,
  ImportMode,
  ImportOptions,
  ImportProgress,
  ImportSettings,
  ImportSummary,
  SkipReason,
} from "./types.js";
export { DEFAULT_MAX_DOCUMENT_SIZE, DEFAULT_MAX_FILE_SIZE, IMPORT_MODES } from "./types.js";
export { COLLECTION_NAME_PATTERN, validateCollectionName } from "./validate.js";
export { CollectionWatcher, type WatchEvent, type WatchOptions } from "./watch.js";
