// MCP writes in the audit trail: after a write tool succeeds, one entry naming the caller, where
// it called from, the action, the database and a short summary of ids and keys.
import type { DocDB } from "@docdb/core";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { CallerScope } from "./current.js";
import { WRITE_ACTIONS } from "./policy.js";

export interface AuditEntryInput {
  action: string;
  database: string;
  detail: string;
}

/** Where a server sends its audit entries. */
export type AuditSink = (scope: CallerScope, entry: AuditEntryInput) => Promise<void>;

/** The audit trail of `docdb`'s location. */
export function auditSink(docdb: DocDB): AuditSink {
  return (scope, entry) => docdb.access().record({ name: scope.caller.name, origin: scope.origin }, entry);
}

const ARG_KEYS = ["doc_id", "key", "title", "topic", "question", "db_name"];
const RESULT_KEYS = ["doc_id", "id", "qa_id", "knowledge_id", "chunks", "deleted_chunks", "created", "merged", "topic"];

function pick(source: unknown, keys: string[]): Record<string, unknown> {
  if (typeof source !== "object" || source === null) return {};
  const out: Record<string, unknown> = {};
  for (const key of keys) {
    const value = (source as Record<string, unknown>)[key];
    if (value !== undefined) out[key] = typeof value === "string" ? value.slice(0, 80) : value;
  }
  return out;
}

/** The entry a successful call of write tool `name` records, or undefined (a read, or a failure). */
export function auditEntryFor(name: string, args: unknown, result: CallToolResult, defaultDb: string): AuditEntryInput | undefined {
  const action = WRITE_ACTIONS[name];
  if (action === undefined || result.isError) return undefined;
  const given = pick(args, ARG_KEYS);
  const database = typeof given.db_name === "string" ? given.db_name : defaultDb;
  delete given.db_name;
  const detail = JSON.stringify({ ...given, ...pick(result.structuredContent, RESULT_KEYS) }).slice(0, 500);
  return { action, database, detail };
}
