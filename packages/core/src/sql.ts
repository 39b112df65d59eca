import { SQL_DEFAULT_MAX_BYTES } from "@docdb/store";
import { DocDBError } from "./errors.js";
import type { SqlOptions } from "./types.js";

export const SQL_DEFAULT_MAX_ROWS = 100;
export const SQL_MAX_ROWS_LIMIT = 10_000;
export const SQL_DEFAULT_TIMEOUT_MS = 5_000;
const SQL_MAX_TIMEOUT_MS = 60_000;
const SQL_MAX_LENGTH = 100_000;

export { SQL_DEFAULT_MAX_BYTES };
/** The largest result a caller may ask for (max_bytes). */
export const SQL_MAX_BYTES_LIMIT = 64 * 1024 * 1024;
const SQL_MIN_BYTES = 1024;

/**
 * The documented read-only views and their columns, the same on every engine: documents,
 * chunks, collections and files (packages/store-sqlite/migrations/0004_views.sql, packages/store-postgres/migrations/0005_views.sql,
 * code fields from 0007_code_symbols.sql of each engine), and agent memory's topics, QA and
 * knowledge records (0006_memory_views.sql of each engine).
 */
export const SQL_VIEWS: Readonly<Record<string, readonly string[]>> = {
  documents_v: ["id", "key", "title", "source", "collection", "metadata", "created_at", "updated_at", "length"],
  chunks_v: [
    "id",
    "doc_id",
    "idx",
    "text",
    "start",
    "end",
    "heading",
    "line_start",
    "line_end",
    "language",
    "symbol",
    "symbol_kind",
    "locator",
    "embedded",
  ],
  collections_v: ["name", "description", "source", "enabled", "settings", "created_at", "updated_at", "last_import_at"],
  files_v: ["collection", "path", "size", "mtime", "content_hash", "doc_id", "chunking", "imported_at"],
  topics_v: ["id", "name", "normalized_name", "description", "qa_count", "unmerged_count", "knowledge_count", "created_at", "updated_at"],
  qa_v: ["id", "topic", "question", "answer", "merged", "merged_into", "created_at", "updated_at"],
  knowledge_v: ["id", "topic", "text", "source_qa_ids", "source_count", "created_at", "updated_at"],
};

/** The query text and its caps, checked. */
export function validateSql(sql: unknown, options: SqlOptions = {}): { sql: string; maxRows: number; timeoutMs: number; maxBytes: number } {
  if (typeof sql !== "string" || sql.trim() === "") {
    throw new DocDBError(
      "INVALID_REQUEST",
      'sql must be a SELECT statement, e.g. "SELECT collection, count(*) FROM documents_v GROUP BY 1"',
    );
  }
  if (sql.length > SQL_MAX_LENGTH) throw new DocDBError("INVALID_REQUEST", `sql is longer than ${SQL_MAX_LENGTH} characters`);
  const maxRows = options.max_rows ?? SQL_DEFAULT_MAX_ROWS;
  if (!Number.isInteger(maxRows) || maxRows < 1 || maxRows > SQL_MAX_ROWS_LIMIT) {
    throw new DocDBError("INVALID_REQUEST", `max_rows must be an integer from 1 to ${SQL_MAX_ROWS_LIMIT}`);
  }
  const timeoutMs = options.timeout_ms ?? SQL_DEFAULT_TIMEOUT_MS;
  if (!Number.isInteger(timeoutMs) || timeoutMs < 100 || timeoutMs > SQL_MAX_TIMEOUT_MS) {
    throw new DocDBError("INVALID_REQUEST", `timeout_ms must be an integer from 100 to ${SQL_MAX_TIMEOUT_MS}`);
  }
  const maxBytes = options.max_bytes ?? SQL_DEFAULT_MAX_BYTES;
  if (!Number.isInteger(maxBytes) || maxBytes < SQL_MIN_BYTES || maxBytes > SQL_MAX_BYTES_LIMIT) {
    throw new DocDBError("INVALID_REQUEST", `max_bytes must be an integer from ${SQL_MIN_BYTES} to ${SQL_MAX_BYTES_LIMIT}`);
  }
  return { sql, maxRows, timeoutMs, maxBytes };
}

/** A short description of the views, for help texts and the MCP tool. */
export function describeSqlViews(): string {
  return Object.entries(SQL_VIEWS)
    .map(([view, columns]) => `${view}(${columns.join(", ")})`)
    .join("; ");
}
