// What each tool needs (read, write or admin) and what a write records in the audit trail. A tool
// not named here (another program's) needs admin: nothing new is open to a read-only token by accident.
import { DocDBError } from "@docdb/core";
import { type Access, allows, type Caller } from "./caller.js";

const READ_TOOLS = new Set([
  "list_databases",
  "find_similar_documents",
  "get_document",
  "status",
  "query_qa",
  "list_topics",
  "list_collections",
]);

/** Write tools and the action each records. */
export const WRITE_ACTIONS: Record<string, string> = {
  insert_document: "insert",
  insert_file: "insert_file",
  insert_url: "insert_url",
  delete_document: "delete",
  store_qa: "store_qa",
  merge_knowledge: "merge",
  store_knowledge: "store_knowledge",
  create_database: "create_database",
};

/** Read-only SQL reads every view of a database, memory included: admin, as the issue asks. */
const ADMIN_TOOLS = new Set(["create_database", "query_sql"]);

export function toolAccess(name: string): Access {
  if (ADMIN_TOOLS.has(name)) return "admin";
  if (READ_TOOLS.has(name) || name.startsWith("search_")) return "read";
  if (name in WRITE_ACTIONS) return "write";
  return "admin";
}

/** Throws FORBIDDEN when `caller` may not call tool `name`. */
export function checkToolAccess(caller: Caller, name: string): void {
  const needed = toolAccess(name);
  if (allows(caller, needed)) return;
  throw new DocDBError(
    "FORBIDDEN",
    `"${caller.name}" has ${caller.access} access and ${name} needs ${needed}: nothing was changed. Ask for a token with --access ${needed}`,
  );
}
