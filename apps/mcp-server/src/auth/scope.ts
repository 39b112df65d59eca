// Database scoping: a caller limited to some databases meets every other one exactly as if it did
// not exist (same error, absent from every listing). `scopedDocDB` gives resources that view.
import { DEFAULT_DB_NAME, type DocDB, DocDBError } from "@docdb/core";
import { type Caller, seesDatabase } from "./caller.js";

/** The error core gives for a database that does not exist (docdb.ts), word for word. */
export function missingDatabase(name: string, location: string): DocDBError {
  return new DocDBError(
    "NOT_FOUND",
    `database "${name}" does not exist in ${location}: create it with \`docdb db create ${name}\` (createDatabase in code)`,
    { details: { database: name, location } },
  );
}

/** Throws the not-found error when `caller` may not see `name`. */
export async function assertSees(docdb: DocDB, caller: Caller, name: string): Promise<void> {
  if (!seesDatabase(caller, name)) throw missingDatabase(name, await docdb.location());
}

/** A DocDB that shows `caller` only its databases; everything else is the DocDB itself. */
export function scopedDocDB(docdb: DocDB, caller: Caller): DocDB {
  if (caller.databases === "*") return docdb;
  const overrides: Record<string, unknown> = {
    databaseNames: async () => (await docdb.databaseNames()).filter((name) => seesDatabase(caller, name)),
    exists: async (name: string) => seesDatabase(caller, name) && docdb.exists(name),
    database: async (name: string = DEFAULT_DB_NAME, options?: { create?: boolean }) => {
      await assertSees(docdb, caller, name);
      return docdb.database(name, options);
    },
    listDatabases: async () => (await docdb.listDatabases()).filter((status) => seesDatabase(caller, status.name)),
  };
  return new Proxy(docdb, {
    get(target, property, receiver) {
      if (typeof property === "string" && property in overrides) return overrides[property];
      const value = Reflect.get(target, property, receiver);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}
