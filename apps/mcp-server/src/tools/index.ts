import type { DocDB, Logger } from "@docdb/core";
import { DEFAULT_DB_NAME, validateDbName } from "@docdb/core";
import { ToolRegistry } from "../registry.js";
import type { ToolDefinition } from "../tool.js";
import type { ToolsContext } from "./context.js";
import { createDatabaseTool } from "./create-database.js";
import { deleteDocumentTool } from "./delete-document.js";
import { findSimilarDocumentsTool } from "./find-similar-documents.js";
import { getDocumentTool } from "./get-document.js";
import { insertDocumentTool } from "./insert-document.js";
import { insertFileTool, insertUrlTool } from "./insert-file.js";
import { listDatabasesTool } from "./list-databases.js";
import { memoryTools } from "./memory.js";
import { querySqlTool } from "./query-sql.js";
import { statusTool } from "./status.js";

export type { ToolsContext };

export interface DocdbToolsOptions {
  /** The database used when a call leaves out db_name. Default "vectors". */
  defaultDb?: string;
  /** Where tool failures are logged; default the DocDB's logger. */
  logger?: Logger;
  /** Whether insert_url may fetch, and reach private addresses (see ToolsContext.fetch); default neither. */
  fetch?: { allow: boolean; allowPrivate: boolean };
}

/** docdb's own tools (documents, read-only SQL and agent memory), in the order `tools/list` gives them. */
export function docdbToolDefinitions(context: ToolsContext): ToolDefinition[] {
  const memory = memoryTools(context);
  return [
    createDatabaseTool(context),
    listDatabasesTool(context),
    insertDocumentTool(context),
    insertFileTool(context),
    insertUrlTool(context),
    findSimilarDocumentsTool(context),
    getDocumentTool(context),
    deleteDocumentTool(context),
    statusTool(context),
    querySqlTool(context),
    memory.storeQa,
    memory.queryQa,
    memory.mergeKnowledge,
    memory.storeKnowledge,
    memory.listTopics,
  ];
}

/** A registry holding docdb's tools (documents, read-only SQL and agent memory); add more (e.g. per-collection search) with `registry.add`. */
export function createDocdbTools(docdb: DocDB, options: DocdbToolsOptions = {}): ToolRegistry {
  const context: ToolsContext = { docdb, defaultDb: validateDbName(options.defaultDb ?? DEFAULT_DB_NAME), fetch: options.fetch };
  const registry = new ToolRegistry(options.logger ?? docdb.logger);
  for (const tool of docdbToolDefinitions(context)) registry.add(tool);
  return registry;
}
