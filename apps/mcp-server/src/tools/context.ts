import { type Database, type DocDB, DocDBError } from "@docdb/core";
import { z } from "zod/v4";
import { currentCaller } from "../auth/current.js";
import { assertSees } from "../auth/scope.js";

/** What every docdb tool is built from. */
export interface ToolsContext {
  docdb: DocDB;
  /** The database used when a call leaves out db_name. */
  defaultDb: string;
  /**
   * Whether `insert_url` may fetch (off unless the server was started with --allow-fetch or
   * DOCDB_MCP_ALLOW_FETCH=1), and whether it may reach loopback, link-local and private addresses
   * (--allow-private-fetch or DOCDB_MCP_FETCH_PRIVATE=1; never by default).
   */
  fetch?: { allow: boolean; allowPrivate: boolean };
}

/**
 * The database a tool call names (its db_name, else the default). Only the default database is
 * created by a write; any other missing one is NOT_FOUND naming the create_database tool, so an
 * agent's typo never makes a new, empty database.
 */
export async function databaseFor(
  { docdb, defaultDb }: ToolsContext,
  dbName: string | undefined,
  use: { write?: boolean } = {},
): Promise<Database> {
  const name = dbName ?? defaultDb;
  try {
    // A database the caller may not see fails exactly like one that does not exist.
    await assertSees(docdb, currentCaller(), name);
    return await docdb.database(name, { create: use.write === true && name === defaultDb });
  } catch (error) {
    if (DocDBError.isInstance(error) && error.code === "NOT_FOUND" && error.details?.database === name) {
      throw new DocDBError(
        "NOT_FOUND",
        `database "${name}" does not exist: create it with the create_database tool (db_name "${name}") first, or leave db_name out to use "${defaultDb}"`,
        { cause: error, details: error.details },
      );
    }
    throw error;
  }
}

export function dbNameArgument(defaultDb: string) {
  return z.string().optional().describe(`Database name: 1-64 letters, digits, "_" or "-" (no paths). Default "${defaultDb}".`);
}

export const docIdArgument = z.string().describe("Document id (a ULID), as returned by insert_document or find_similar_documents");

export const modelSchema = z
  .object({ provider: z.string(), model: z.string(), dimensions: z.number().int() })
  .nullable()
  .describe("The embedding model the database's vectors were made with; null before the first vector");

export const databaseStatusSchema = z.object({
  name: z.string(),
  engine: z.string().describe('Storage engine: "sqlite" or "postgres"'),
  location: z.string().describe("Where the database lives: a SQLite file, or host/database/schema on PostgreSQL"),
  documents: z.number().int(),
  chunks: z.number().int(),
  embedded: z.number().int().describe("Chunks with a vector"),
  pending: z.number().int().describe("Chunks waiting for an embedding (still found by keyword search)"),
  reused_vectors: z
    .number()
    .int()
    .describe("Vectors kept from replaced documents because the chunk text did not change (not embedded again), in total"),
  model: modelSchema,
  memory: z
    .object({ documents: z.number().int(), chunks: z.number().int(), embedded: z.number().int(), pending: z.number().int() })
    .optional()
    .describe("Agent memory (topics, QA and knowledge records), counted apart from the documents; absent when empty"),
  healing: z
    .object({
      state: z.enum(["off", "idle", "embedding", "waiting"]),
      last_error: z.string().nullable(),
      next_attempt_at: z.string().nullable(),
      embedded: z.number().int(),
    })
    .optional()
    .describe("This server embeds pending chunks in the background: waiting = the provider failed, next try at next_attempt_at"),
});

export function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? "" : "s"}`;
}

export function describeModel(model: { provider: string; model: string; dimensions: number } | null): string {
  return model ? `${model.provider}/${model.model} (${model.dimensions} dims)` : "no vectors yet";
}
