// Collections and their files: records, replacing a file's document, batched clear and delete.
import { describe, expect, it } from "vitest";
import { type ContractContext, expectStoreError } from "./context.js";
import { makeDocument } from "./fixtures.js";

export function collectionsContract(ctx: ContractContext): void {
  const { fresh } = ctx;
  describe("collections and files", () => {
    const record = (path: string, hash = path) => ({
      path,
      size: 10,
      mtime: 1_700_000_000_000,
      contentHash: hash,
      chunking: "v1:700:100",
    });

    it("creates, updates, lists and refuses a taken name", async () => {
      const store = await fresh();
      const created = await store.createCollection({ name: "api", description: "API docs", source: "/tmp/api", enabled: true });
      expect(created).toMatchObject({
        name: "api",
        description: "API docs",
        source: "/tmp/api",
        enabled: true,
        settings: {},
        lastImportAt: null,
      });
      await expectStoreError(store.createCollection({ name: "api", description: "x", source: "/x", enabled: true }), "CONFLICT");
      expect(await store.updateCollection("api", { description: "new", enabled: false, settings: { chunk_size: 500 } })).toBe(true);
      expect(await store.updateCollection("nope", { description: "x" })).toBe(false);
      await store.updateCollection("api", { lastImportAt: "2026-11-22T00:00:00.000Z" });
      expect(await store.getCollection("api")).toMatchObject({
        description: "new",
        enabled: false,
        settings: { chunk_size: 500 },
        lastImportAt: "2026-11-22T00:00:00.000Z",
      });
      await store.createCollection({ name: "blog", description: "Blog", source: "/tmp/blog", enabled: true });
      expect((await store.listCollections()).map((c) => c.name)).toEqual(["api", "blog"]);
      expect(await store.getCollection("missing")).toBeUndefined();
    });

    it("a file's document, chunks and row are replaced together; removeFile and touchFile", async () => {
      const store = await fresh();
      await store.createCollection({ name: "c", description: "d", source: "/tmp/c", enabled: true });
      const v1 = makeDocument(["版1の本文"]);
      const [first] = await store.writeDocuments([{ ...v1, file: { collection: "c", record: record("a.md", "h1") } }]);
      expect(first).toMatchObject({ docId: v1.document.id, replaced: false });
      const v2 = makeDocument(["版2の本文", "追加"]);
      const [second] = await store.writeDocuments([{ ...v2, file: { collection: "c", record: record("a.md", "h2") } }]);
      expect(second).toMatchObject({ docId: v2.document.id, replaced: true });
      expect(await store.getDocument(v1.document.id)).toBeUndefined();
      const files = await store.listFiles("c");
      expect(files).toHaveLength(1);
      expect(files[0]).toMatchObject({
        collection: "c",
        path: "a.md",
        contentHash: "h2",
        docId: v2.document.id,
        chunkCount: 2,
        chunking: "v1:700:100",
      });
      expect((await store.getDocument(v2.document.id))?.source).toBe("a.md");
      expect((await store.getDocument(v2.document.id))?.collection).toBe("c");
      await store.touchFile("c", "a.md", 99, 42);
      expect((await store.listFiles("c"))[0]).toMatchObject({ size: 99, mtime: 42, contentHash: "h2" });
      expect((await store.filesOfDocuments([v2.document.id, "x"])).map((f) => f.path)).toEqual(["a.md"]);
      expect(await store.collectionCounts("c")).toEqual({
        documents: 1,
        chunks: 2,
        embedded: 0,
        pending: 2,
        files: 1,
        codeFallbackDocuments: 0,
        codeFallbackChunks: 0,
      });
      expect(await store.removeFile("c", "a.md")).toBe(2);
      expect(await store.removeFile("c", "a.md")).toBe(0);
      expect(await store.counts()).toMatchObject({ documents: 0, chunks: 0, keywordRows: 0 });
      expect(await store.listFiles("c")).toEqual([]);
    });

    it("deleting a document removes its file row", async () => {
      const store = await fresh();
      await store.createCollection({ name: "c", description: "d", source: "/tmp/c", enabled: true });
      const doc = makeDocument(["x"]);
      await store.writeDocuments([{ ...doc, file: { collection: "c", record: record("x.txt") } }]);
      await store.deleteDocuments([doc.document.id]);
      expect(await store.listFiles("c")).toEqual([]);
    });

    it("clears and deletes a large collection in batches, leaving other documents alone", async () => {
      const store = await fresh();
      await store.createCollection({ name: "big", description: "d", source: "/tmp/big", enabled: true });
      const writes = Array.from({ length: 450 }, (_, i) => ({
        ...makeDocument([`file ${i}`]),
        file: { collection: "big", record: record(`f${i}.txt`) },
      }));
      for (let i = 0; i < writes.length; i += 100) await store.writeDocuments(writes.slice(i, i + 100));
      const other = makeDocument(["unrelated"]);
      await store.writeDocuments([other]);
      expect((await store.collectionCounts("big")).files).toBe(450);
      expect(await store.clearCollection("big")).toEqual({ documents: 450, chunks: 450 });
      expect(await store.collectionCounts("big")).toEqual({
        documents: 0,
        chunks: 0,
        embedded: 0,
        pending: 0,
        files: 0,
        codeFallbackDocuments: 0,
        codeFallbackChunks: 0,
      });
      expect(await store.getCollection("big")).toBeDefined();
      await store.writeDocuments([{ ...makeDocument(["again"]), file: { collection: "big", record: record("g.txt") } }]);
      expect(await store.deleteCollection("big")).toEqual({ documents: 1, chunks: 1 });
      expect(await store.getCollection("big")).toBeUndefined();
      expect(await store.counts()).toMatchObject({ documents: 1, chunks: 1, keywordRows: 1 });
    });
  });
}
