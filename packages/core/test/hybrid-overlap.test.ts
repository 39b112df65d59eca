// Hybrid find overlaps its legs: the query's embedding is under way before the keyword search
// runs, and the vector search does not wait for the keyword search (a real SQLite engine, its
// calls recorded by a delegating wrapper; a test model).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { StoreEngine } from "@docdb/store";
import { createSqliteEngine } from "@docdb/store-sqlite";
import { afterEach, beforeEach, expect, it } from "vitest";
import { openDocDB, silentLogger } from "../src/index.js";
import { withStoreMethods } from "./helpers/store-methods.js";

let dataDir: string;
beforeEach(() => {
  dataDir = mkdtempSync(join(tmpdir(), "docdb-hybrid-"));
});
afterEach(() => rmSync(dataDir, { recursive: true, force: true }));

/** A 2-dimension model: every text gets the same vector; each call is written to `log`, and a
 * query's answer waits until a keyword search has been logged (as a slow provider would). */
function recordingModel(log: string[]) {
  return {
    provider: "test",
    modelId: "flat-2",
    dimensions: 2,
    maxBatchSize: 64,
    supportsParallelCalls: false,
    async embed(texts: string[], { kind }: { kind: string }) {
      log.push(`embed ${kind} started`);
      while (kind === "query" && !log.includes("keyword search")) await new Promise((resolve) => setImmediate(resolve));
      log.push(`embed ${kind} done`);
      return texts.map(() => new Float32Array([1, 0]));
    },
  };
}

/**
 * The real SQLite engine, with each keyword search written to `log` before it runs. With
 * `slowKeywords`, a keyword search answers only once a vector search has started (or after 500
 * turns of the event loop), as a query on another connection of a pool would.
 */
function recordingEngine(log: string[], slowKeywords = false): StoreEngine {
  return withStoreMethods(createSqliteEngine({ dataDir }), (name, own) => {
    if (name === "vectorSearch") {
      return (...a: unknown[]) => {
        log.push("vector search");
        return own(...a);
      };
    }
    if (name !== "keywordSearch") return undefined;
    return async (...a: unknown[]) => {
      log.push("keyword search");
      const hits = await own(...a);
      for (let turn = 0; slowKeywords && turn < 500 && !log.includes("vector search"); turn++) {
        await new Promise((resolve) => setImmediate(resolve));
      }
      log.push("keyword search done");
      return hits;
    };
  });
}

it("starts the query's embedding before the keyword search, and fuses both", async () => {
  const log: string[] = [];
  const docdb = openDocDB({ store: recordingEngine(log), embedding: recordingModel(log) as never, logger: silentLogger() });
  try {
    const db = await docdb.database("overlap", { create: true });
    await db.insertDocument({ text: "The harbour bridge opens at dawn." });
    log.length = 0;
    const found = await db.findSimilar({ query: "harbour bridge" });
    expect(found.warnings).toEqual([]);
    expect(found.results[0]?.distance).toBeDefined();
    // The provider call is sent before the (synchronous) keyword search holds the thread.
    expect(log.slice(0, 2)).toEqual(["embed query started", "keyword search"]);
  } finally {
    await docdb.close();
  }
});

it("starts the vector search once the query is embedded, without waiting for a slow keyword search", async () => {
  const log: string[] = [];
  const docdb = openDocDB({ store: recordingEngine(log, true), embedding: recordingModel(log) as never, logger: silentLogger() });
  try {
    const db = await docdb.database("overlap", { create: true });
    await db.insertDocument({ text: "The harbour bridge opens at dawn." });
    log.length = 0;
    const found = await db.findSimilar({ query: "harbour bridge" });
    expect(found.results[0]?.distance).toBeDefined();
    expect(log).toEqual(["embed query started", "keyword search", "embed query done", "vector search", "keyword search done"]);
  } finally {
    await docdb.close();
  }
});
