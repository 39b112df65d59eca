// How many hits a vector find asks the store for: top_k first (unfiltered, merging, no
// threshold), more only when neighbouring chunks merge into fewer passages; and the answer is
// the one a find that asks for many at once gives (the real SQLite engine and PostgreSQL on
// PGlite, their vectorSearch calls recorded by a delegating wrapper; a test model).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { StoreEngine } from "@docdb/store";
import { createPostgresEngine } from "@docdb/store-postgres";
import { createSqliteEngine } from "@docdb/store-sqlite";
import { afterEach, beforeEach, expect, it } from "vitest";
import { startPgliteServer } from "../../store-postgres/test/support/pglite-server.js";
import { openDocDB, silentLogger } from "../src/index.js";
import { withStoreMethods } from "./helpers/store-methods.js";

let dataDir: string;
beforeEach(() => {
  dataDir = mkdtempSync(join(tmpdir(), "docdb-rounds-"));
});
afterEach(() => rmSync(dataDir, { recursive: true, force: true }));

/** 4 dimensions: texts about the harbour point one way, the others another, each a little apart. */
const model = {
  provider: "test",
  modelId: "topic-4",
  dimensions: 4,
  maxBatchSize: 64,
  supportsParallelCalls: false,
  async embed(texts: string[]) {
    return texts.map((t) => {
      let h = 0;
      for (const c of t) h = (h * 31 + (c.codePointAt(0) ?? 0)) % 1000;
      const near = t.includes("harbour") ? 1 : 0;
      return new Float32Array([near, 1 - near, h / 4000, 0.01]);
    });
  },
};

/** A real engine, each vectorSearch's limit written to `limits`. */
function recordingEngine(engine: StoreEngine, limits: number[]): StoreEngine {
  return withStoreMethods(engine, (name, own) =>
    name === "vectorSearch"
      ? (vector: Float32Array, options: { limit: number }) => {
          limits.push(options.limit);
          return own(vector, options);
        }
      : undefined,
  );
}

const shown = (found: { results: { chunk_id: string; chunk_ids?: string[]; score: number; text?: string }[] }) =>
  found.results.map((r) => [r.chunk_id, r.chunk_ids, r.score, r.text]);

async function asksTopKFirst(engine: StoreEngine): Promise<void> {
  const limits: number[] = [];
  const docdb = openDocDB({ store: recordingEngine(engine, limits), embedding: model as never, logger: silentLogger() });
  try {
    const db = await docdb.database("rounds", { create: true });
    for (let i = 0; i < 12; i++) await db.insertDocument({ text: `Note ${i} on the harbour bridge and its ${i} lamps.` });
    // One long document about the harbour: its neighbouring chunks merge into one passage.
    const paragraph = (i: number) => `Harbour paragraph ${i}. ${"The harbour tide turns at the stone steps of the old pier. ".repeat(12)}`;
    await db.insertDocument({ text: Array.from({ length: 12 }, (_, i) => paragraph(i)).join("\n\n") });
    for (let i = 0; i < 12; i++) await db.insertDocument({ text: `Unrelated text ${i} about mountains.` });

    limits.length = 0;
    const few = await db.findSimilar({ query: "harbour bridge", mode: "vector", top_k: 3 });
    expect(few.results).toHaveLength(3);
    // Asked with a threshold every hit passes: many candidates at once, the same answer.
    const wide = await db.findSimilar({ query: "harbour bridge", mode: "vector", top_k: 3, threshold: 0 });
    expect(shown(few)).toEqual(shown(wide));
    const merged = few.results.some((r) => (r.chunk_ids?.length ?? 1) > 1);
    // No merge: one call for top_k; a merge: top_k first, then top_k × 2.
    expect(limits[0]).toBe(3);
    expect(limits.slice(0, limits.length - 1)).toEqual(merged ? [3, 6] : [3]);

    limits.length = 0;
    const many = await db.findSimilar({ query: "harbour tide at the pier", mode: "vector", top_k: 10 });
    const manyWide = await db.findSimilar({ query: "harbour tide at the pier", mode: "vector", top_k: 10, threshold: 0 });
    expect(shown(many)).toEqual(shown(manyWide));
    expect(many.results.some((r) => (r.chunk_ids?.length ?? 1) > 1)).toBe(true);
    expect(limits.slice(0, 2)).toEqual([10, 20]);
  } finally {
    await docdb.close();
  }
}

it("asks for top_k hits when they make top_k passages, and for more when neighbours merge, with the same answer (SQLite)", async () => {
  await asksTopKFirst(createSqliteEngine({ dataDir }));
});

it("asks for top_k hits first on PostgreSQL too, with the same answer", async () => {
  const pg = await startPgliteServer();
  try {
    await asksTopKFirst(createPostgresEngine({ url: pg.url }));
  } finally {
    await pg.stop();
  }
}, 120_000);
