// Search: exact and approximate vector search, keyword (BM25) ranking, chunk hits.
import { describe, expect, it } from "vitest";
import type { Filter } from "../filter.js";
import { type ContractContext, query } from "./context.js";
import { cosineDistance, makeDocument, random, randomUnit, unit } from "./fixtures.js";

export function searchContract(ctx: ContractContext): void {
  const { fresh } = ctx;
  describe("search", () => {
    it("vector search returns the exact nearest chunks, filtered before the limit", async () => {
      const store = await fresh();
      const dims = 16;
      await store.setEmbeddingInfo({ provider: "p", model: "m", dimensions: dims });
      const next = random(7);
      const docs = Array.from({ length: 60 }, (_, i) =>
        makeDocument([`v${i} a`, `v${i} b`], { metadata: { group: i % 3 === 0 ? "rare" : "common", i } }, () => ({
          vector: randomUnit(next, dims),
        })),
      );
      await store.writeDocuments(docs);
      const vectors = new Map(docs.flatMap((d) => d.chunks.map((c) => [c.id, c.vector as Float32Array])));
      const groupOf = new Map(docs.flatMap((d) => d.chunks.map((c) => [c.id, d.document.metadata.group])));
      for (let q = 0; q < 5; q++) {
        const probe = randomUnit(next, dims);
        const truth = [...vectors].map(([id, v]) => ({ id, d: cosineDistance(probe, v) })).sort((a, b) => a.d - b.d);
        const exact = await store.vectorSearch(probe, { limit: 10, exact: true });
        expect(exact.map((h) => h.chunkId)).toEqual(truth.slice(0, 10).map((t) => t.id));
        for (const [i, h] of exact.entries()) expect(h.distance).toBeCloseTo(truth[i]?.d as number, 4);
        const filter: Filter = { op: "eq", field: { metadata: ["group"] }, value: "rare" };
        const filtered = await store.vectorSearch(probe, { limit: 10, filter, exact: true });
        expect(filtered.map((h) => h.chunkId)).toEqual(
          truth
            .filter((t) => groupOf.get(t.id) === "rare")
            .slice(0, 10)
            .map((t) => t.id),
        );
        const approximate = await store.vectorSearch(probe, { limit: 10, filter });
        expect(approximate).toHaveLength(10);
        for (const h of approximate) expect(groupOf.get(h.chunkId)).toBe("rare");
        // Chunks an engine attaches when asked are the ones chunkHits reads; never unasked.
        expect(approximate.some((h) => h.chunk !== undefined)).toBe(false);
        for (const exactly of [true, false]) {
          const withChunks = await store.vectorSearch(probe, { limit: 10, filter, exact: exactly, withChunks: true });
          expect(withChunks.map(({ chunk: _chunk, ...h }) => h)).toEqual(
            exactly ? filtered : await store.vectorSearch(probe, { limit: 10, filter }),
          );
          const attached = withChunks.filter((h) => h.chunk !== undefined);
          expect(attached.map((h) => h.chunk)).toEqual(await store.chunkHits(attached.map((h) => h.chunkId)));
        }
      }
    });

    it("keyword search ranks analysed terms with BM25 and applies filters", async () => {
      const store = await fresh();
      const docs = [
        makeDocument(["奈良の大仏は東大寺にある大きな仏像です。"], { metadata: { lang: "ja" } }),
        makeDocument(["大仏の写真と奈良公園の鹿。"], { metadata: { lang: "ja" } }),
        makeDocument(["The getUserName function reads the user's name."], { metadata: { lang: "en" } }),
        makeDocument(["Nothing relevant here."], { metadata: { lang: "en" } }),
      ];
      await store.writeDocuments(docs);
      const hits = await store.keywordSearch(query("奈良の大仏"), { limit: 10 });
      expect(hits.map((h) => h.chunkId).slice(0, 2)).toEqual([docs[0]?.chunks[0]?.id, docs[1]?.chunks[0]?.id]);
      expect(hits[0]?.score).toBeGreaterThan(hits[1]?.score as number);
      const code = await store.keywordSearch(query("get_user_name"), { limit: 10 });
      expect(code.map((h) => h.chunkId)).toEqual([docs[2]?.chunks[0]?.id]);
      const filtered = await store.keywordSearch(query("奈良 getUserName"), {
        limit: 10,
        filter: { op: "eq", field: { metadata: ["lang"] }, value: "en" },
      });
      expect(filtered.map((h) => h.chunkId)).toEqual([docs[2]?.chunks[0]?.id]);
      expect(await store.keywordSearch({ any: [], phrases: [] }, { limit: 10 })).toEqual([]);
      // Terms that look like query syntax are only words.
      expect(await store.keywordSearch({ any: [['"', "OR", "NOT", "col:x", "*", "(", "NEAR"]], phrases: [] }, { limit: 3 })).toEqual([]);
    });

    it("keyword search counts the title double and rewards the query's word order", async () => {
      const store = await fresh();
      const inTitle = makeDocument(["本文には関係のない話。"], { title: "量子計算" });
      const inBody = makeDocument(["量子計算の話をします。ほかの話もします。"], { title: "雑記" });
      await store.writeDocuments([inTitle, inBody]);
      const hits = await store.keywordSearch(query("量子計算"), { limit: 5 });
      expect(hits[0]?.chunkId).toBe(inTitle.chunks[0]?.id);
      const ordered = makeDocument(["production of pge2 was measured"]);
      const scrambled = makeDocument(["pge2 measured; production was low"]);
      await store.writeDocuments([scrambled, ordered]);
      const phrase = await store.keywordSearch(query("production of PGE2"), { limit: 5 });
      expect(phrase[0]?.chunkId).toBe(ordered.chunks[0]?.id);
    });

    it("keyword hits carry the chunks asked for, as chunkHits reads them", async () => {
      const store = await fresh();
      const docs = [
        makeDocument(["海の生き物と深海の魚。", "深海探査の記録。"], { metadata: { lang: "ja" }, source: "sea.md", title: "深海" }),
        makeDocument(["Deep sea fish glow in the dark."], { metadata: { lang: "en" }, collection: null }),
        makeDocument(["The deep sea, the deep sea, and more deep sea."], { title: "deep sea" }, () => ({
          symbol: "deepSea",
          symbolKind: "function",
          language: "typescript",
        })),
      ];
      await store.writeDocuments(docs);
      // One chunk with its vector, the others without: the flag comes through as chunkHits gives it.
      await store.setEmbeddingInfo({ provider: "p", model: "m", dimensions: 3 });
      await store.writeVectors([{ chunkId: docs[0]?.chunks[1]?.id as string, vector: unit([3, 4, 0]) }]);
      const q = query("深海 deep sea");
      const plain = await store.keywordSearch(q, { limit: 10 });
      expect(plain.length).toBeGreaterThanOrEqual(4);
      expect(plain.some((h) => h.chunk !== undefined)).toBe(false);
      for (const withChunks of [true, 2] as const) {
        const hits = await store.keywordSearch(q, { limit: 10, withChunks });
        expect(hits.map(({ chunk: _chunk, ...h }) => h)).toEqual(plain);
        // An engine attaches what it reads with the search (at least none, at most every hit).
        const attached = hits.filter((h) => h.chunk !== undefined);
        expect(attached.map((h) => h.chunk)).toEqual(await store.chunkHits(attached.map((h) => h.chunkId)));
      }
      const filtered = await store.keywordSearch(q, {
        limit: 10,
        withChunks: true,
        filter: { op: "eq", field: { metadata: ["lang"] }, value: "en" },
      });
      expect(filtered.map((h) => h.chunkId)).toEqual([docs[1]?.chunks[0]?.id]);
      for (const h of filtered) if (h.chunk) expect(h.chunk).toEqual((await store.chunkHits([h.chunkId]))[0]);
    });

    it("returns chunk hits with their document fields, in the order asked", async () => {
      const store = await fresh();
      const a = makeDocument(["first", "second"], { metadata: { m: 1 }, source: "a.md", title: "A" });
      await store.writeDocuments([a]);
      const ids = [a.chunks[1]?.id as string, "missing", a.chunks[0]?.id as string];
      const hits = await store.chunkHits(ids);
      expect(hits.map((h) => h.text)).toEqual(["second", "first"]);
      expect(hits[0]).toMatchObject({ title: "A", source: "a.md", metadata: { m: 1 }, docId: a.document.id, collection: null });
    });
  });
}
