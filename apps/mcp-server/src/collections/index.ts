export { LIST_COLLECTIONS_TOOL, listCollectionsTool } from "./list-tool.js";
export { COLLECTION_TOOL_PREFIX, collectionSearchTool, collectionToolName } from "./search-tool.js";
export { attachCollectionTools, type CollectionToolsOptions } from "./sync.js";
export { startCollectionWatcher } from "./watch.js";
