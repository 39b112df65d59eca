// A vector find on the SQLite engine reads the change token twice: once for the memory check and
// the model record (asked in one stretch), once in the store's search after the query's
// embedding; a write by another connection between finds is still seen by the next one.
import { mkdtempSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createSqliteEngine } from "@docdb/store-sqlite";
import { afterEach, beforeEach, expect, it } from "vitest";
import { openDocDB, silentLogger } from "../src/index.js";

let dataDir: string;
beforeEach(() => {
  dataDir = mkdtempSync(join(tmpdir(), "docdb-find-token-"));
});
afterEach(() => rmSync(dataDir, { recursive: true, force: true }));

/** 3 dimensions from the text's letters: enough for a find to rank a few notes. */
const model = {
  provider: "test",
  modelId: "letters-3",
  dimensions: 3,
  maxBatchSize: 16,
  supportsParallelCalls: false,
  async embed(texts: string[]) {
    return texts.map((t) => new Float32Array([t.split("a").length, t.split("e").length, t.split("o").length + 1]));
  },
};

/** Counts better-sqlite3's runs of `PRAGMA data_version` (one per read of the change token). */
function countTokenReads(): { n: number; stop: () => void } {
  const Database = createRequire(join(import.meta.dirname, "../../store-sqlite/package.json"))("better-sqlite3");
  const probe = new Database(":memory:");
  const proto = Object.getPrototypeOf(probe.prepare("SELECT 1"));
  probe.close();
  const own = proto.get;
  const counter = { n: 0, stop: () => (proto.get = own) };
  proto.get = function (this: { source: string }, ...args: unknown[]) {
    if (this.source === "PRAGMA data_version") counter.n++;
    return own.apply(this, args);
  };
  return counter;
}

it("reads the change token twice per vector find, and the next find sees another connection's write", async () => {
  const docdb = openDocDB({ store: createSqliteEngine({ dataDir }), embedding: model as never, logger: silentLogger() });
  const second = openDocDB({ store: createSqliteEngine({ dataDir }), embedding: model as never, logger: silentLogger() });
  try {
    const db = await docdb.database("notes", { create: true });
    for (const text of ["a harbour at dawn", "the green tree", "an old stone wall", "boats on a lake"]) await db.insertDocument({ text });
    await db.findSimilar({ query: "a boat", mode: "vector", top_k: 2 });
    const reads = countTokenReads();
    try {
      const found = await db.findSimilar({ query: "a boat", mode: "vector", top_k: 2 });
      expect(found.results).toHaveLength(2);
      expect(reads.n).toBe(2);
    } finally {
      reads.stop();
    }
    const other = await second.database("notes");
    const added = await other.insertDocument({ text: "aaaa boat oooo" });
    const after = await db.findSimilar({ query: "aaaa boat oooo", mode: "vector", top_k: 1 });
    expect(after.results[0]?.doc_id).toBe(added.doc_id);
  } finally {
    await docdb.close();
    await second.close();
  }
});
