// Documents and chunks: write/read round trips, exact Unicode, deletes, rollback, replacing under a key
// and vectors reused by a replacement.
import { describe, expect, it } from "vitest";
import { type ContractContext, expectStoreError, query } from "./context.js";
import { makeDocument, testId, unit } from "./fixtures.js";

export function documentsContract(ctx: ContractContext): void {
  const { fresh } = ctx;
  describe("documents and chunks", () => {
    it("writes a document with its chunks in one unit and reads them back", async () => {
      const store = await fresh();
      const doc = makeDocument(["東京は日本の首都です。", "大阪は食べ物で有名です。"], {
        metadata: { lang: "ja", nested: { n: 1 } },
        source: "notes/cities.md",
      });
      doc.chunks[1] = { ...(doc.chunks[1] as (typeof doc.chunks)[number]), heading: "Cities > Osaka", lineStart: 2, lineEnd: 2 };
      const [result] = await store.writeDocuments([doc]);
      expect(result).toEqual({ docId: doc.document.id, replaced: false, reusedVectors: 0 });
      const stored = await store.getDocument(doc.document.id);
      expect(stored).toMatchObject({
        id: doc.document.id,
        key: null,
        title: doc.document.title,
        content: doc.document.content,
        contentHash: doc.document.contentHash,
        metadata: { lang: "ja", nested: { n: 1 } },
        source: "notes/cities.md",
        collection: null,
      });
      expect(new Date(stored?.createdAt as string).toISOString()).toBe(stored?.createdAt);
      const chunks = await store.getChunks(doc.document.id);
      expect(chunks.map((c) => c.text)).toEqual(["東京は日本の首都です。", "大阪は食べ物で有名です。"]);
      expect(chunks[1]).toMatchObject({
        idx: 1,
        heading: "Cities > Osaka",
        lineStart: 2,
        lineEnd: 2,
        embedded: false,
        docId: doc.document.id,
      });
      expect(chunks[0]).toMatchObject({ heading: null, lineStart: null, start: 0 });
      expect(await store.counts()).toEqual({
        documents: 1,
        chunks: 2,
        embedded: 0,
        pending: 2,
        keywordRows: 2,
        vectors: 0,
        reusedVectors: 0,
      });
    });

    it("keeps Unicode, emoji and a 100,000-character document exactly", async () => {
      const store = await fresh();
      const odd = "絵文字👩‍👩‍👧‍👦と結合文字が\u0301、右から左: שלום، 𠮷野家 \uFF21";
      const long = "あ".repeat(50_000) + "🎌".repeat(25_000);
      expect(long.length).toBe(100_000);
      const a = makeDocument([odd], { title: "😀 タイトル", metadata: { キー: "値🎉" } });
      const b = makeDocument([long.slice(0, 50_000), long.slice(50_000)]);
      b.document.content = long;
      await store.writeDocuments([a, b]);
      expect((await store.getDocument(a.document.id))?.content).toBe(odd);
      expect((await store.getDocument(a.document.id))?.metadata).toEqual({ キー: "値🎉" });
      expect((await store.getDocument(b.document.id))?.content).toBe(long);
      const list = await store.listDocuments({ limit: 10 });
      expect(list.find((d) => d.id === b.document.id)?.length).toBe([...long].length);
      const hits = await store.keywordSearch(query("絵文字"), { limit: 5 });
      expect(hits[0]?.chunkId).toBe(a.chunks[0]?.id);
    });

    it("deletes a document with its chunks, vectors and keyword rows", async () => {
      const store = await fresh();
      await store.setEmbeddingInfo({ provider: "test", model: "m", dimensions: 3 });
      const keep = makeDocument(["りんごの話"], {}, () => ({ vector: unit([1, 0, 0]) }));
      const gone = makeDocument(["みかんの話", "みかんの続き"], {}, () => ({ vector: unit([0, 1, 0]) }));
      await store.writeDocuments([keep, gone]);
      expect(await store.counts()).toMatchObject({ documents: 2, chunks: 3, keywordRows: 3, vectors: 3, embedded: 3 });
      expect(await store.deleteDocuments([gone.document.id, "unknown-id"])).toEqual({ documents: 1, chunks: 2 });
      expect(await store.counts()).toEqual({
        documents: 1,
        chunks: 1,
        embedded: 1,
        pending: 0,
        keywordRows: 1,
        vectors: 1,
        reusedVectors: 0,
      });
      expect(await store.getDocument(gone.document.id)).toBeUndefined();
      expect(await store.getChunks(gone.document.id)).toEqual([]);
      expect(await store.keywordSearch(query("みかん"), { limit: 5 })).toEqual([]);
      const near = await store.vectorSearch(unit([0, 1, 0]), { limit: 5 });
      expect(near.map((h) => h.chunkId)).toEqual([keep.chunks[0]?.id]);
      expect(await store.chunkHits(gone.chunks.map((c) => c.id))).toEqual([]);
    });

    it("rolls back a whole write when any part of it fails", async () => {
      const store = await fresh();
      await store.setEmbeddingInfo({ provider: "test", model: "m", dimensions: 3 });
      const good = makeDocument(["正しい文書"]);
      const bad = makeDocument(["壊れたベクトル"], {}, () => ({ vector: new Float32Array([1, 0]) }));
      await expectStoreError(store.writeDocuments([good, bad]), "INVALID_REQUEST");
      expect(await store.counts()).toEqual({
        documents: 0,
        chunks: 0,
        embedded: 0,
        pending: 0,
        keywordRows: 0,
        vectors: 0,
        reusedVectors: 0,
      });
      expect(await store.getDocument(good.document.id)).toBeUndefined();
      // A duplicate chunk id fails inside the engine itself: still nothing is left behind.
      const first = makeDocument(["一つ目"]);
      const clash = makeDocument(["二つ目"]);
      (clash.chunks[0] as { id: string }).id = first.chunks[0]?.id as string;
      await expect(store.writeDocuments([first, clash])).rejects.toThrow();
      expect((await store.counts()).documents).toBe(0);
    });

    it("replaces the document under a caller's key, keeping its id and creation time", async () => {
      const store = await fresh();
      const first = makeDocument(["古い本文 standup notes"], { key: "notes/2026-11-22-standup", metadata: { v: 1 } });
      await store.writeDocuments([{ ...first, upsertByKey: true }]);
      const created = (await store.getDocument(first.document.id))?.createdAt;
      const second = makeDocument(["新しい本文 retro notes"], { key: "notes/2026-11-22-standup", metadata: { v: 2 } });
      const [result] = await store.writeDocuments([{ ...second, upsertByKey: true }]);
      expect(result).toMatchObject({ docId: first.document.id, replaced: true });
      expect(await store.getDocument(second.document.id)).toBeUndefined();
      const stored = await store.getDocumentByKey("notes/2026-11-22-standup");
      expect(stored).toMatchObject({ id: first.document.id, createdAt: created, metadata: { v: 2 }, content: second.document.content });
      expect((await store.counts()).documents).toBe(1);
      expect(await store.keywordSearch(query("古い"), { limit: 5 })).toEqual([]);
      expect((await store.keywordSearch(query("新しい"), { limit: 5 })).map((h) => h.chunkId)).toEqual([second.chunks[0]?.id]);
      expect(await store.getDocumentByKey("no-such-key")).toBeUndefined();
    });

    it("hands vectors of unchanged chunks to the document that replaces theirs", async () => {
      const store = await fresh();
      await store.setEmbeddingInfo({ provider: "test", model: "m", dimensions: 2 });
      const old = makeDocument(["same", "changed"], { key: "k" }, (i) => ({ inputHash: `h${i}` }));
      await store.writeDocuments([{ ...old, upsertByKey: true }]);
      await store.writeVectors(old.chunks.map((c, i) => ({ chunkId: c.id, vector: unit([1, i]) })));
      const next = makeDocument(["same", "different", "new"], { key: "k" }, (i) => ({ inputHash: i === 0 ? "h0" : `x${i}` }));
      const [result] = await store.writeDocuments([{ ...next, upsertByKey: true }]);
      expect(result?.reusedVectors).toBe(1);
      const chunks = await store.getChunks(result?.docId as string);
      expect(chunks.map((c) => c.embedded)).toEqual([true, false, false]);
      expect(await store.counts()).toMatchObject({ chunks: 3, embedded: 1, pending: 2, vectors: 1 });
      const near = await store.vectorSearch(unit([1, 0]), { limit: 1, exact: true });
      expect(near[0]?.chunkId).toBe(next.chunks[0]?.id);
      expect(near[0]?.distance).toBeCloseTo(0, 5);
    });

    it("counts the vectors reused, in total, across writes, files and connections", async () => {
      const name = `rv_${testId().toLowerCase()}`.slice(0, 40);
      const store = await ctx.engine.openDatabase(name, { create: true });
      expect((await store.counts()).reusedVectors).toBe(0);
      await store.setEmbeddingInfo({ provider: "test", model: "m", dimensions: 2 });
      await store.createCollection({ name: "c", description: "", source: "/c", enabled: true });
      const file = (hash: string) => ({
        collection: "c",
        record: { path: "a.md", size: 10, mtime: 1_700_000_000_000, contentHash: hash, chunking: "v1" },
      });
      const v1 = makeDocument(["one", "two", "three"], {}, (i) => ({ inputHash: `h${i}`, vector: unit([1, i]) }));
      expect((await store.writeDocuments([{ ...v1, file: file("1") }]))[0]?.reusedVectors).toBe(0);
      // The file changes: two of its three chunks are unchanged.
      const v2 = makeDocument(["one", "two", "THREE"], {}, (i) => ({ inputHash: i < 2 ? `h${i}` : "x2" }));
      expect((await store.writeDocuments([{ ...v2, file: file("2") }]))[0]?.reusedVectors).toBe(2);
      expect((await store.counts()).reusedVectors).toBe(2);
      // A write that reuses nothing leaves the total alone; a keyed replace adds to it.
      await store.writeDocuments([makeDocument(["other"], { key: "k" }, () => ({ inputHash: "k0", vector: unit([0, 1]) }))]);
      expect((await store.counts()).reusedVectors).toBe(2);
      const again = makeDocument(["other", "more"], { key: "k" }, (i) => ({ inputHash: `k${i}` }));
      expect((await store.writeDocuments([{ ...again, upsertByKey: true }]))[0]?.reusedVectors).toBe(1);
      // Durable: another connection (another process) sees the same total.
      const otherEngine = await ctx.second();
      try {
        const other = await otherEngine.openDatabase(name);
        expect((await other.counts()).reusedVectors).toBe(3);
        await other.writeDocuments([
          { ...makeDocument(["one", "two", "THREE"], {}, (i) => ({ inputHash: i < 2 ? `h${i}` : "x2" })), file: file("3") },
        ]);
        // The two embedded chunks of the second version (its third never got a vector).
        expect((await store.counts()).reusedVectors).toBe(5);
      } finally {
        await otherEngine.close();
      }
    });
  });
}
