export { listCollectionsTool } from "./list-tool.js";
export { COLLECTION_TOOL_PREFIX, collectionToolName, LIST_COLLECTIONS_TOOL } from "./names.js";
export { collectionSearchTool } from "./search-tool.js";
export { attachCollectionTools, type CollectionToolsOptions } from "./sync.js";
export { startCollectionWatcher } from "./watch.js";
