export {
  attachCollectionTools,
  COLLECTION_TOOL_PREFIX,
  type CollectionToolsOptions,
  collectionSearchTool,
  collectionToolName,
  LIST_COLLECTIONS_TOOL,
  listCollectionsTool,
  startCollectionWatcher,
} from "./collections/index.js";
export { CONFIG_FLAGS, fromServeFlags, parseArgsOptions, SERVE_FLAGS, type ServeFlag, serveFlagsHelp } from "./flags.js";
export { DEFAULT_HTTP_HOST, DEFAULT_HTTP_PORT, DEFAULT_MAX_BODY_BYTES, type HttpHandle, type HttpOptions, serveHttp } from "./http.js";
export { isLoopbackHost } from "./http-guard.js";
export { KNOWLEDGE_TEMPLATE, KnowledgeResources, knowledgeUri } from "./memory/resources.js";
export { type ResolvedServeOptions, resolveServeOptions, type ServeOptions, withConfigFiles } from "./options.js";
export { describeTool, ToolRegistry } from "./registry.js";
export { invalidRequest, RequestError } from "./request-error.js";
export {
  COLLECTION_TEMPLATE,
  DOCUMENT_TEMPLATE,
  DocdbResources,
  type DocdbResourcesOptions,
  RESOURCE_PAGE_SIZE,
  SEARCH_PROMPT,
} from "./resources.js";
export { docdbTools, runServer } from "./run.js";
export { type CreateServerOptions, createServer, SERVER_NAME, SERVER_VERSION } from "./server.js";
export { type StdioHandle, type StdioOptions, serveStdio } from "./stdio.js";
export { defineTool, type ToolContext, type ToolDefinition } from "./tool.js";
export { readToolDescriptors, TOOL_DESCRIPTORS_FILE, type ToolDescriptors, toolDescriptorsBeside } from "./tool-descriptors.js";
export { toolErrorResult } from "./tool-result.js";
export { createDocdbTools, type DocdbToolsOptions, docdbToolDefinitions, type ToolsContext } from "./tools/index.js";
