// Many documents in one write, and the index terms a write brings (or the engine computes).
import { ANALYZER_VERSION } from "@docdb/analyzer";
import { describe, expect, it } from "vitest";
import { type ContractContext, query } from "./context.js";
import { makeDocument, random, randomUnit, unit } from "./fixtures.js";

export function manyDocumentsContract(ctx: ContractContext): void {
  const { fresh } = ctx;
  describe("many documents in one write", () => {
    it("writes a call of many documents as each would be written alone, a replacement in the same call included", async () => {
      const store = await fresh();
      await store.setEmbeddingInfo({ provider: "test", model: "m", dimensions: 3 });
      const next = random(5);
      const writes = Array.from({ length: 120 }, (_, i) =>
        makeDocument([`文書${i} の本文 alpha${i}`, `second part beta${i}`], { metadata: { n: i } }, (c) =>
          i % 3 === 0 ? {} : { vector: randomUnit(next, 3), inputHash: `h${i}-${c}` },
        ),
      );
      // A keyed document, then (later in the same call) its replacement keeping one chunk's vector.
      const first = makeDocument(["unchanged keyed text", "obsolete wording"], { key: "k" }, (c) => ({
        vector: unit([1, c, 0]),
        inputHash: `k${c}`,
      }));
      const second = makeDocument(["unchanged keyed text", "brandnew wording"], { key: "k" }, (c) => ({
        inputHash: c === 0 ? "k0" : "k-new",
      }));
      const all = [...writes.slice(0, 60), { ...first, upsertByKey: true }, ...writes.slice(60), { ...second, upsertByKey: true }];
      const results = await store.writeDocuments(all);
      expect(results).toHaveLength(all.length);
      expect(results.slice(0, 60).map((r) => r.docId)).toEqual(writes.slice(0, 60).map((w) => w.document.id));
      expect(results[60]).toEqual({ docId: first.document.id, replaced: false, reusedVectors: 0 });
      expect(results[results.length - 1]).toEqual({ docId: first.document.id, replaced: true, reusedVectors: 1 });
      const withVectors = writes.filter((_, i) => i % 3 !== 0).length * 2;
      expect(await store.counts()).toEqual({
        documents: 121,
        chunks: 242,
        embedded: withVectors + 1,
        pending: 242 - withVectors - 1,
        keywordRows: 242,
        vectors: withVectors + 1,
        // The one vector the replacement took over, counted in the same write.
        reusedVectors: 1,
      });
      for (const i of [0, 59, 60, 119]) {
        const hits = await store.keywordSearch(query(`beta${i}`), { limit: 3 });
        expect(hits.map((h) => h.chunkId)).toEqual([writes[i]?.chunks[1]?.id]);
      }
      expect(await store.keywordSearch(query("obsolete"), { limit: 3 })).toEqual([]);
      expect((await store.keywordSearch(query("brandnew"), { limit: 3 })).map((h) => h.chunkId)).toEqual([second.chunks[1]?.id]);
      expect((await store.getChunks(first.document.id)).map((c) => c.embedded)).toEqual([true, false]);
      const near = await store.vectorSearch(unit([1, 0, 0]), { limit: 1, exact: true });
      expect(near[0]?.chunkId).toBe(second.chunks[0]?.id);
    });

    it("indexes the terms a write brings, and analyses a chunk itself when they are missing or of another analyzer version", async () => {
      const store = await fresh();
      const given = makeDocument(["plain words here"], {}, () => ({
        terms: { version: ANALYZER_VERSION, title: "", body: "zzgiven plain" },
      }));
      const stale = makeDocument(["other words there"], {}, () => ({
        terms: { version: ANALYZER_VERSION + 1000, title: "", body: "zzstale" },
      }));
      const none = makeDocument(["東京の天気"]);
      await store.writeDocuments([given, stale, none]);
      expect((await store.keywordSearch(query("zzgiven"), { limit: 3 })).map((h) => h.chunkId)).toEqual([given.chunks[0]?.id]);
      expect(await store.keywordSearch(query("words here"), { limit: 3 })).toHaveLength(1);
      expect(await store.keywordSearch(query("zzstale"), { limit: 3 })).toEqual([]);
      expect((await store.keywordSearch(query("other words there"), { limit: 3 }))[0]?.chunkId).toBe(stale.chunks[0]?.id);
      expect((await store.keywordSearch(query("東京"), { limit: 3 })).map((h) => h.chunkId)).toEqual([none.chunks[0]?.id]);
    });
  });
}
