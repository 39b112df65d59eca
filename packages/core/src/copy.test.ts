import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { DocumentWrite, Store, StoreEngine } from "@docdb/store";
import { createSqliteEngine } from "@docdb/store-sqlite";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { copyStore } from "./copy.js";
import { openDocDB } from "./docdb.js";
import { DocDBError } from "./errors.js";

let root: string;
const engines: StoreEngine[] = [];
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), "docdb-copy-"));
});
afterEach(async () => {
  for (const engine of engines.splice(0)) await engine.close();
  rmSync(root, { recursive: true, force: true });
});

async function open(dir: string, name = "vectors"): Promise<Store> {
  const engine = createSqliteEngine({ dataDir: join(root, dir) });
  engines.push(engine);
  return engine.openDatabase(name, { create: true });
}

function doc(i: number, vector?: Float32Array): DocumentWrite {
  return {
    document: {
      id: `doc${String(i).padStart(4, "0")}`,
      key: `k${i}`,
      title: `title ${i}`,
      content: `document number ${i}`,
      contentHash: `h${i}`,
      metadata: { i },
      createdAt: `2024-01-01T00:00:${String(i % 60).padStart(2, "0")}.000Z`,
      updatedAt: `2024-01-01T00:00:${String(i % 60).padStart(2, "0")}.000Z`,
    },
    chunks: [
      {
        id: `chunk${String(i).padStart(4, "0")}`,
        idx: 0,
        text: `document number ${i}`,
        start: 0,
        end: 20,
        inputHash: `i${i}`,
        vector,
        locator: { page: i + 1 },
      },
    ],
  };
}

const labels = { from: "a", to: "b" };

describe("copyStore", () => {
  it("copies in batches, keeps ids, keys, times and vectors, and skips what the target already has unchanged", async () => {
    const source = await open("a");
    await source.setEmbeddingInfo({ provider: "test", model: "m", dimensions: 2 });
    await source.writeDocuments(Array.from({ length: 25 }, (_, i) => doc(i, Float32Array.from([i, 1]))));
    const target = await open("b");
    // As if an earlier run had got this far.
    await target.setEmbeddingInfo({ provider: "test", model: "m", dimensions: 2 });
    await target.writeDocuments([doc(0, Float32Array.from([0, 1])), doc(1, Float32Array.from([1, 1]))]);
    const progress: number[] = [];
    const result = await copyStore(source, target, labels, { batchSize: 10, onProgress: ({ done }) => progress.push(done) });
    expect(result).toMatchObject({ copied: 23, updated: 0, deleted: 0, skipped: 2, chunks: 23, vectors: 23 });
    expect(progress).toEqual([0, 10, 20, 25]);
    expect(await target.counts()).toEqual(await source.counts());
    const copied = await target.getDocument("doc0007");
    expect(copied).toEqual(await source.getDocument("doc0007"));
    expect((await target.exportChunks("doc0007"))[0]?.vector).toEqual(Float32Array.from([7, 1]));
    // A chunk's locator (page, slide, sheet…) travels with it.
    expect((await target.getChunks("doc0007"))[0]?.locator).toEqual({ page: 8 });
  });

  it("refuses a target embedded with another model", async () => {
    const source = await open("a");
    await source.setEmbeddingInfo({ provider: "test", model: "m", dimensions: 2 });
    const other = await open("b");
    await other.setEmbeddingInfo({ provider: "test", model: "other", dimensions: 2 });
    await expect(copyStore(source, other, labels)).rejects.toMatchObject({ code: "MODEL_MISMATCH" });
    const wider = await open("c");
    await wider.setEmbeddingInfo({ provider: "test", model: "m", dimensions: 3 });
    await expect(copyStore(source, wider, labels)).rejects.toMatchObject({ code: "DIMENSION_MISMATCH" });
  });

  it("DocDB.copyDatabase resolves sqlite: addresses and refuses unknown schemes", async () => {
    const source = await open("data", "notes");
    await source.writeDocuments([doc(1)]);
    const docdb = openDocDB({ dataDir: join(root, "data"), embedding: null });
    try {
      const result = await docdb.copyDatabase("notes", `sqlite:${join(root, "backup", "copy.db")}`);
      expect(result).toMatchObject({ copied: 1, model: null, to: `${join(root, "backup")}#copy` });
      expect(await docdb.copyDatabase("sqlite:notes", "sqlite:again")).toMatchObject({ copied: 1 });
      const error = await docdb.copyDatabase("notes", "mysql://h/db").catch((e: unknown) => e);
      expect(DocDBError.isInstance(error) && error.code).toBe("INVALID_REQUEST");
    } finally {
      await docdb.close();
    }
  });
});
