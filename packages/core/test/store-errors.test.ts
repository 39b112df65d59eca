// A store's errors reach core's callers as DocDBErrors with the same code, whether the engine's
// method throws at once or its promise rejects (a real SQLite engine behind a delegating wrapper
// that makes two of its methods fail).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type StoreEngine, StoreError } from "@docdb/store";
import { createSqliteEngine } from "@docdb/store-sqlite";
import { afterEach, beforeEach, expect, it } from "vitest";
import { DocDBError, openDocDB, silentLogger } from "../src/index.js";
import { withStoreMethods } from "./helpers/store-methods.js";

let dataDir: string;
beforeEach(() => {
  dataDir = mkdtempSync(join(tmpdir(), "docdb-store-errors-"));
});
afterEach(() => rmSync(dataDir, { recursive: true, force: true }));

function failingEngine(): StoreEngine {
  return withStoreMethods(createSqliteEngine({ dataDir }), (name) => {
    if (name === "getDocument")
      return () => {
        throw new StoreError("CONFLICT", "thrown at once");
      };
    if (name === "listDocuments") return async () => Promise.reject(new StoreError("UNAVAILABLE", "rejected later"));
    return undefined;
  });
}

it("translates a store error thrown at once and one rejected later", async () => {
  const docdb = openDocDB({ store: failingEngine(), embedding: null, logger: silentLogger() });
  try {
    const db = await docdb.database("errors", { create: true });
    const thrown = db.getDocument("01ARZ3NDEKTSV4RRFFQ69G5FAV");
    expect(thrown).toBeInstanceOf(Promise);
    const first = await thrown.catch((e: unknown) => e);
    expect(DocDBError.isInstance(first)).toBe(true);
    expect(first).toMatchObject({ code: "CONFLICT", message: expect.stringContaining("thrown at once") });
    const later = await db.listDocuments().catch((e: unknown) => e);
    expect(DocDBError.isInstance(later)).toBe(true);
    expect(later).toMatchObject({ code: "STORE_UNAVAILABLE" });
  } finally {
    await docdb.close();
  }
});
