// Embeddings: the recorded model and its dimensions, vectors of deleted chunks, pending chunks, settings.
import { describe, expect, it } from "vitest";
import { type ContractContext, expectStoreError } from "./context.js";
import { makeDocument, unit } from "./fixtures.js";

export function embeddingsContract(ctx: ContractContext): void {
  const { fresh } = ctx;
  describe("embeddings", () => {
    it("records the model, checks dimensions, and drops every vector on replace", async () => {
      const store = await fresh();
      expect(await store.getEmbeddingInfo()).toBeUndefined();
      const doc = makeDocument(["a", "b"]);
      await store.writeDocuments([doc]);
      await expectStoreError(store.writeVectors([{ chunkId: doc.chunks[0]?.id as string, vector: unit([1, 0, 0]) }]), "INVALID_REQUEST");
      await store.setEmbeddingInfo({ provider: "p", model: "m", dimensions: 3 });
      expect(await store.getEmbeddingInfo()).toEqual({ provider: "p", model: "m", dimensions: 3 });
      await expectStoreError(store.writeVectors([{ chunkId: doc.chunks[0]?.id as string, vector: unit([1, 0]) }]), "INVALID_REQUEST");
      expect(await store.writeVectors(doc.chunks.map((c) => ({ chunkId: c.id, vector: unit([1, 1, 0]) })))).toBe(2);
      expect(await store.counts()).toMatchObject({ embedded: 2, pending: 0, vectors: 2 });
      await expectStoreError(store.vectorSearch(unit([1, 0]), { limit: 1 }), "INVALID_REQUEST");
      await store.setEmbeddingInfo({ provider: "p2", model: "m2", dimensions: 2 }, { replace: true });
      expect(await store.getEmbeddingInfo()).toEqual({ provider: "p2", model: "m2", dimensions: 2 });
      expect(await store.counts()).toMatchObject({ embedded: 0, pending: 2, vectors: 0 });
      expect(await store.vectorSearch(unit([1, 0]), { limit: 5 })).toEqual([]);
    });

    it("skips vectors for chunks deleted while they were being embedded", async () => {
      const store = await fresh();
      await store.setEmbeddingInfo({ provider: "p", model: "m", dimensions: 2 });
      const doc = makeDocument(["x"]);
      await store.writeDocuments([doc]);
      await store.deleteDocuments([doc.document.id]);
      expect(await store.writeVectors([{ chunkId: doc.chunks[0]?.id as string, vector: unit([1, 0]) }])).toBe(0);
      expect(await store.counts()).toMatchObject({ chunks: 0, vectors: 0 });
    });

    it("pages through pending chunks in id order", async () => {
      const store = await fresh();
      const docs = Array.from({ length: 5 }, (_, i) => makeDocument([`chunk ${i} a`, `chunk ${i} b`], { title: `T${i}` }));
      await store.writeDocuments(docs);
      const seen: string[] = [];
      let after: string | undefined;
      for (;;) {
        const page = await store.pendingChunks(3, after);
        if (page.length === 0) break;
        seen.push(...page.map((p) => p.chunkId));
        after = page[page.length - 1]?.chunkId;
      }
      const all = docs.flatMap((d) => d.chunks.map((c) => c.id)).sort();
      expect(seen).toEqual(all);
      const [first] = await store.pendingChunks(1);
      expect(first).toMatchObject({ text: "chunk 0 a", title: "T0", heading: null });
    });

    it("settings: set, read, remove", async () => {
      const store = await fresh();
      expect(await store.getSetting("reembed")).toBeUndefined();
      await store.setSetting("reembed", "1");
      expect(await store.getSetting("reembed")).toBe("1");
      await store.setSetting("reembed", undefined);
      expect(await store.getSetting("reembed")).toBeUndefined();
    });
  });
}
