import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { DocumentWrite, Store, StoreEngine } from "@docdb/store";
import { createSqliteEngine } from "@docdb/store-sqlite";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { storeContentHash as contentHash } from "../../../test/support/store-hash.js";
import { copyStore } from "./copy.js";

let root: string;
const engines: StoreEngine[] = [];
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), "docdb-copy-sync-"));
});
afterEach(async () => {
  for (const engine of engines.splice(0)) await engine.close();
  rmSync(root, { recursive: true, force: true });
});

async function open(dir: string): Promise<Store> {
  const engine = createSqliteEngine({ dataDir: join(root, dir) });
  engines.push(engine);
  return engine.openDatabase("vectors", { create: true });
}

/** A document of two chunks, without vectors unless given; `v` makes its ids and text differ. */
function doc(i: number, v = 0, extra: Partial<DocumentWrite> = {}, vectors?: Float32Array[]): DocumentWrite {
  const id = (s: string) => `${s}${String(i).padStart(4, "0")}`;
  const text = `document ${i} version ${v}`;
  return {
    document: {
      id: id("doc"),
      key: `k${i}`,
      title: `title ${i}`,
      content: `${text}\n\nmore`,
      contentHash: `h${i}.${v}`,
      metadata: { i, v },
      createdAt: `2024-01-01T00:00:${String(i % 60).padStart(2, "0")}.000Z`,
      updatedAt: `2024-02-01T00:00:${String(v % 60).padStart(2, "0")}.000Z`,
    },
    chunks: [0, 1].map((n) => ({
      id: `${id("chunk")}.${v}.${n}`,
      idx: n,
      text: n === 0 ? text : "more",
      start: n === 0 ? 0 : text.length + 2,
      end: n === 0 ? text.length : text.length + 6,
      inputHash: `in${i}.${v}.${n}`,
      ...(vectors?.[n] ? { vector: vectors[n] } : {}),
    })),
    ...extra,
  };
}

const labels = { from: "a", to: "b" };
const file = (path: string, v: number) => ({
  collection: "notes",
  record: { path, size: 10 + v, mtime: 1_700_000_000_000 + v, contentHash: `f${v}`, chunking: "c1" },
});

describe("copyStore into an existing target", () => {
  it("brings it up to date: re-embedded, replaced, deleted, changed files and collections; then copies nothing", async () => {
    const source = await open("a");
    await source.setEmbeddingInfo({ provider: "test", model: "m", dimensions: 2 });
    await source.createCollection({ name: "notes", description: "notes", source: "/n", enabled: true });
    await source.createCollection({ name: "old", description: "goes away", source: "/o", enabled: true });
    await source.writeDocuments([
      ...Array.from({ length: 6 }, (_, i) => doc(i)),
      doc(6, 0, { file: file("a.md", 0) }),
      doc(7, 0, {}, [Float32Array.from([1, 0]), Float32Array.from([0, 1])]),
    ]);
    const target = await open("b");
    const first = await copyStore(source, target, labels, { batchSize: 3 });
    expect(first).toMatchObject({ copied: 8, updated: 0, deleted: 0, skipped: 0, up_to_date: false });
    expect(await contentHash(target)).toBe(await contentHash(source));

    // Changes on the source: embed the pending chunks of two documents, replace one by key,
    // delete one, rewrite a collection file, change a collection, remove another.
    const pending = (await source.exportChunks("doc0001")).concat(await source.exportChunks("doc0002"));
    expect(await source.writeVectors(pending.map((c, n) => ({ chunkId: c.id, vector: Float32Array.from([n, 1]) })))).toBe(4);
    await source.writeDocuments([{ ...doc(3, 1), document: { ...doc(3, 1).document, id: "ignored" }, upsertByKey: true }]);
    await source.deleteDocuments(["doc0004"]);
    await source.writeDocuments([doc(6, 2, { file: file("a.md", 2) })]);
    await source.touchFile("notes", "a.md", 99, 1_800_000_000_000);
    await source.updateCollection("notes", { description: "my notes", settings: { chunkSize: 300 } });
    await source.deleteCollection("old");
    expect(await contentHash(target)).not.toBe(await contentHash(source));

    const before = await contentHash(target);
    const dry = await copyStore(source, target, labels, { batchSize: 3, dryRun: true });
    expect(dry).toMatchObject({ dry_run: true, copied: 0, updated: 4, deleted: 1, skipped: 3, up_to_date: false });
    expect(dry.changes).toEqual({
      new: [],
      updated: ["doc0001", "doc0002", "doc0003", "doc0006"],
      deleted: ["doc0004"],
      collections_updated: ["notes"],
      collections_deleted: ["old"],
    });
    expect(await contentHash(target)).toBe(before);

    const second = await copyStore(source, target, labels, { batchSize: 3 });
    expect(second).toMatchObject({ copied: 0, updated: 4, deleted: 1, skipped: 3, collections_updated: 1, collections_deleted: 1 });
    expect(second.vectors).toBe(4);
    expect(await contentHash(target)).toBe(await contentHash(source));
    expect((await target.getDocument("doc0003"))?.content).toContain("version 1");
    expect((await target.getChunks("doc0002")).map((c) => c.embedded)).toEqual([true, true]);

    const third = await copyStore(source, target, labels, { batchSize: 3 });
    expect(third).toMatchObject({ up_to_date: true, copied: 0, updated: 0, deleted: 0, skipped: 7, chunks: 0, collections_updated: 0 });
  });

  it("a new document may take the key of one the source deleted", async () => {
    const source = await open("a");
    await source.writeDocuments([doc(1)]);
    const target = await open("b");
    await copyStore(source, target, labels);
    await source.deleteDocuments(["doc0001"]);
    await source.writeDocuments([{ ...doc(2), document: { ...doc(2).document, key: "k1" } }]);
    expect(await copyStore(source, target, labels)).toMatchObject({ copied: 1, deleted: 1 });
    expect(await contentHash(target)).toBe(await contentHash(source));
  });
  it("writers running during a copy: after they stop, one more copy makes the target equal to the source", async () => {
    const source = await open("a");
    await source.setEmbeddingInfo({ provider: "test", model: "m", dimensions: 2 });
    await source.createCollection({ name: "notes", description: "notes", source: "/n", enabled: true });
    await source.writeDocuments(Array.from({ length: 40 }, (_, i) => doc(i, 0, i % 5 === 0 ? { file: file(`f${i}.md`, 0) } : {})));
    // The writers use their own connection to the source, as another process would.
    const writer = await open("a");
    const target = await open("b");

    // Each step changes the source in one of the ways a copy must catch up with.
    let step = 0;
    const change = async () => {
      const n = step++;
      const i = n % 40;
      switch (n % 5) {
        case 0:
          return writer.writeDocuments([doc(100 + n)]);
        case 1:
          return writer.writeDocuments([{ ...doc(i, n), document: { ...doc(i, n).document, id: `r${n}` }, upsertByKey: true }]);
        case 2: {
          const [victim] = await writer.listDocuments({ limit: 1, offset: n % 7 });
          return victim ? writer.deleteDocuments([victim.id]) : undefined;
        }
        case 3: {
          const [pending] = await writer.pendingChunks(2);
          return pending ? writer.writeVectors([{ chunkId: pending.chunkId, vector: Float32Array.from([n, 1]) }]) : undefined;
        }
        default:
          return writer.writeDocuments([doc(200 + n, 0, { file: file(`f${n}.md`, n) })]);
      }
    };

    // One writer keeps writing until the copy ends; another writes at every step the copy reports.
    let copying = true;
    const writes: Promise<unknown>[] = [];
    const loop = (async () => {
      while (copying) await change();
    })();
    const first = await copyStore(source, target, labels, { batchSize: 3, onProgress: () => writes.push(change()) }).finally(() => {
      copying = false;
    });
    await loop;
    await Promise.all(writes);
    expect(first.copied).toBeGreaterThan(0);
    expect(step).toBeGreaterThan(5);

    const final = await copyStore(source, target, labels, { batchSize: 3 });
    expect(final.up_to_date).toBe(false);
    expect(await contentHash(target)).toBe(await contentHash(source));
    expect(await copyStore(source, target, labels)).toMatchObject({ up_to_date: true });
  });
});
