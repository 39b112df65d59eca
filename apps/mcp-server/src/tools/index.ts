import type { DocDB, Logger } from "@docdb/core";
import { DEFAULT_DB_NAME, validateDbName } from "@docdb/core";
import { ToolRegistry } from "../registry.js";
import type { ToolsContext } from "./context.js";
import { createDatabaseTool } from "./create-database.js";
import { deleteDocumentTool } from "./delete-document.js";
import { findSimilarDocumentsTool } from "./find-similar-documents.js";
import { getDocumentTool } from "./get-document.js";
import { insertDocumentTool } from "./insert-document.js";
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
}

/** A registry holding docdb's tools (documents, read-only SQL and agent memory); add more (e.g. per-collection search) with `registry.add`. */
export function createDocdbTools(docdb: DocDB, options: DocdbToolsOptions = {}): ToolRegistry {
  const context: ToolsContext = { docdb, defaultDb: validateDbName(options.defaultDb ?? DEFAULT_DB_NAME) };
  const registry = new ToolRegistry(options.logger ?? docdb.logger);
  registry.add(createDatabaseTool(context));
  registry.add(listDatabasesTool(context));
  registry.add(insertDocumentTool(context));
  registry.add(findSimilarDocumentsTool(context));
  registry.add(getDocumentTool(context));
  registry.add(deleteDocumentTool(context));
  registry.add(statusTool(context));
  registry.add(querySqlTool(context));
  const memory = memoryTools(context);
  registry.add(memory.storeQa);
  registry.add(memory.queryQa);
  registry.add(memory.mergeKnowledge);
  registry.add(memory.storeKnowledge);
  registry.add(memory.listTopics);
  return registry;
}
