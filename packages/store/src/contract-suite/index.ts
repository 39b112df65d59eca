import { ANALYZER_VERSION, buildKeywordQuery, type KeywordQuery } from "@docdb/analyzer";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { StoreError } from "../errors.js";
import { type Filter, type FilterableDocument, matchesFilter } from "../filter.js";
import type { Store, StoreEngine } from "../types.js";
import { cosineDistance, makeDocument, random, randomUnit, testId, unit } from "./fixtures.js";

export { cosineDistance, makeDocument, random, randomUnit, testId, unit } from "./fixtures.js";

/** What a contract run needs from an engine's test setup. */
export interface ContractTarget {
  engine: StoreEngine;
  /** A second engine on the same storage (another connection or pool), as another process would have. */
  second: () => Promise<StoreEngine>;
  cleanup?: () => Promise<void>;
}

const query = (text: string): KeywordQuery => {
  const q = buildKeywordQuery(text);
  if (!q) throw new Error(`no keyword query for ${text}`);
  return q;
};

async function expectStoreError(promise: Promise<unknown>, code: string): Promise<StoreError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(StoreError.isInstance(error), `expected a StoreError ${code}, got ${String(error)}`).toBe(true);
  expect((error as StoreError).code).toBe(code);
  return error as StoreError;
}

/**
 * The storage contract as tests: every engine runs this suite (SQLite in its package, PostgreSQL
 * in its own). `setup` is called once; each test works in databases of its own.
 */
export function runStoreContract(engineName: string, setup: () => Promise<ContractTarget>): void {
  describe(`Store contract: ${engineName}`, () => {
    let target: ContractTarget;
    let engine: StoreEngine;
    const fresh = async (): Promise<Store> => engine.openDatabase(`t_${testId().toLowerCase()}`.slice(0, 60), { create: true });

    beforeAll(async () => {
      target = await setup();
      engine = target.engine;
    });
    afterAll(async () => {
      await engine?.close();
      await target?.cleanup?.();
    });

    describe("databases", () => {
      it("creates, lists, opens and drops named databases", async () => {
        const name = `db_${testId().toLowerCase()}`.slice(0, 40);
        expect(await engine.databaseExists(name)).toBe(false);
        await expectStoreError(engine.openDatabase(name), "NOT_FOUND");
        expect(await engine.databaseExists(name)).toBe(false);
        const store = await engine.openDatabase(name, { create: true });
        expect(store.name).toBe(name);
        expect(store.location).not.toBe("");
        expect(await engine.databaseExists(name)).toBe(true);
        expect(await engine.listDatabases()).toContain(name);
        const again = await engine.openDatabase(name);
        expect((await again.counts()).documents).toBe(0);
        expect(await engine.dropDatabase(name)).toBe(true);
        expect(await engine.databaseExists(name)).toBe(false);
        expect(await engine.listDatabases()).not.toContain(name);
        expect(await engine.dropDatabase(name)).toBe(false);
      });

      it("keeps databases apart", async () => {
        const a = await fresh();
        const b = await fresh();
        const doc = makeDocument(["only in a"]);
        await a.writeDocuments([doc]);
        expect((await a.counts()).documents).toBe(1);
        expect((await b.counts()).documents).toBe(0);
        expect(await b.getDocument(doc.document.id)).toBeUndefined();
      });

      it("declares its capabilities", () => {
        expect(typeof engine.capabilities.approximateVectorSearch).toBe("boolean");
        expect(typeof engine.capabilities.concurrentWriters).toBe("boolean");
        expect(engine.capabilities.maxDimensions).toBeGreaterThanOrEqual(2000);
      });
    });

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
        const store = await engine.openDatabase(name, { create: true });
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
        const otherEngine = await target.second();
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

    describe("export (copying a database)", () => {
      it("exports chunks with input hashes and vectors byte for byte, and keeps given times", async () => {
        const store = await fresh();
        const next = random(11);
        const dims = 7;
        await store.setEmbeddingInfo({ provider: "test", model: "m", dimensions: dims });
        const vectors = [randomUnit(next, dims), Float32Array.from([1e-8, -0.1, 0.3333333, 1, -1, 2.5e-5, Math.SQRT1_2])];
        const times = { createdAt: "2020-01-02T03:04:05.678Z", updatedAt: "2021-02-03T04:05:06.789Z" };
        const doc = makeDocument(["first part", "second part", "third part"], times, (i) => ({
          inputHash: `h${i}`,
          ...(i < 2 ? { vector: vectors[i] } : {}),
        }));
        await store.writeDocuments([doc]);
        expect(await store.getDocument(doc.document.id)).toMatchObject(times);
        const exported = await store.exportChunks(doc.document.id);
        expect(exported.map((c) => [c.id, c.idx, c.text, c.inputHash, c.embedded])).toEqual([
          [doc.chunks[0]?.id, 0, "first part", "h0", true],
          [doc.chunks[1]?.id, 1, "second part", "h1", true],
          [doc.chunks[2]?.id, 2, "third part", "h2", false],
        ]);
        for (let i = 0; i < 2; i++) {
          const got = exported[i]?.vector as Float32Array;
          expect(got).toBeInstanceOf(Float32Array);
          expect(Buffer.from(got.buffer, got.byteOffset, got.byteLength)).toEqual(Buffer.from((vectors[i] as Float32Array).buffer));
        }
        expect(exported[2]?.vector).toBeUndefined();
        expect(await store.exportChunks("no-such-document")).toEqual([]);
        const plain = await fresh();
        const other = makeDocument(["no model yet"]);
        await plain.writeDocuments([other]);
        expect((await plain.exportChunks(other.document.id)).map((c) => [c.inputHash, c.vector])).toEqual([[null, undefined]]);
      });
    });

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

    describe("filters", () => {
      const docsMetadata: Record<string, unknown>[] = [
        { lang: "ja", n: 1, tags: ["a", "b"], flag: true, author: { name: "Sato" } },
        { lang: "en", n: 2.5, tags: ["b"], flag: false, author: { name: "Smith" } },
        { lang: "ja", n: "1", tags: [], flag: 1, nothing: null },
        { lang: "fr", n: 10, tags: "a", author: { name: "Sato", age: 40 } },
        { n: -3, date: "2026-11-01T00:00:00.000Z", nested: { deep: { x: "y" } } },
        { lang: "日本語", n: 0, date: "2025-01-01T00:00:00.000Z", tags: [1, "1", true, null] },
        {},
      ];
      const filters: Filter[] = [
        { op: "eq", field: { metadata: ["lang"] }, value: "ja" },
        { op: "eq", field: { metadata: ["n"] }, value: 1 },
        { op: "eq", field: { metadata: ["n"] }, value: "1" },
        { op: "eq", field: { metadata: ["flag"] }, value: true },
        { op: "eq", field: { metadata: ["flag"] }, value: 1 },
        { op: "eq", field: { metadata: ["nothing"] }, value: null },
        { op: "eq", field: { metadata: ["tags"] }, value: "a" },
        { op: "eq", field: { metadata: ["tags"] }, value: 1 },
        { op: "eq", field: { metadata: ["tags"] }, value: null },
        { op: "eq", field: { metadata: ["author", "name"] }, value: "Sato" },
        { op: "eq", field: { metadata: ["author"] }, value: "Sato" },
        { op: "ne", field: { metadata: ["lang"] }, value: "ja" },
        { op: "in", field: { metadata: ["lang"] }, values: ["en", "fr", "日本語"] },
        { op: "in", field: { metadata: ["lang"] }, values: [] },
        { op: "nin", field: { metadata: ["tags"] }, values: ["a", "b"] },
        { op: "nin", field: { metadata: ["lang"] }, values: [] },
        { op: "gt", field: { metadata: ["n"] }, value: 1 },
        { op: "gte", field: { metadata: ["n"] }, value: 1 },
        { op: "lt", field: { metadata: ["n"] }, value: 0 },
        { op: "lte", field: { metadata: ["n"] }, value: 2.5 },
        { op: "gt", field: { metadata: ["lang"] }, value: "en" },
        { op: "gte", field: { metadata: ["date"] }, value: "2026-01-01" },
        { op: "exists", field: { metadata: ["nothing"] }, value: true },
        { op: "exists", field: { metadata: ["lang"] }, value: false },
        { op: "exists", field: { metadata: ["nested", "deep", "x"] }, value: true },
        { op: "prefix", field: { metadata: ["lang"] }, value: "j" },
        { op: "prefix", field: { metadata: ["lang"] }, value: "日本" },
        {
          and: [
            { op: "eq", field: { metadata: ["lang"] }, value: "ja" },
            { op: "eq", field: { metadata: ["flag"] }, value: true },
          ],
        },
        {
          or: [
            { op: "eq", field: { metadata: ["lang"] }, value: "fr" },
            { op: "lt", field: { metadata: ["n"] }, value: 0 },
          ],
        },
        { not: { op: "exists", field: { metadata: ["tags"] }, value: true } },
        { and: [] },
        { or: [] },
        { op: "eq", field: { builtin: "source" }, value: "docs/a.md" },
        { op: "eq", field: { builtin: "source" }, value: null },
        { op: "prefix", field: { builtin: "source" }, value: "docs/" },
        { op: "eq", field: { builtin: "collection" }, value: null },
        { op: "eq", field: { builtin: "title" }, value: "T3" },
        { op: "in", field: { builtin: "title" }, values: ["T1", "T5", "nope"] },
        { op: "exists", field: { builtin: "key" }, value: true },
        { op: "gte", field: { builtin: "created_at" }, value: "2000-01-01" },
        { op: "lt", field: { builtin: "created_at" }, value: "2000-01-01" },
        { op: "ne", field: { builtin: "source" }, value: "docs/a.md" },
      ];

      it("every operator means what the reference says, on every query path", async () => {
        const store = await fresh();
        await store.setEmbeddingInfo({ provider: "p", model: "m", dimensions: 2 });
        const docs = docsMetadata.map((metadata, i) =>
          makeDocument(
            [`共通の言葉 common words ${i}`],
            {
              metadata,
              title: `T${i}`,
              source: i % 2 === 0 ? `docs/${String.fromCharCode(97 + i)}.md` : null,
              key: i === 3 ? "the-key" : null,
            },
            () => ({ vector: unit([1, i]) }),
          ),
        );
        for (const d of docs) await store.writeDocuments([{ ...d, upsertByKey: true }]);
        const stored = await Promise.all(docs.map((d) => store.getDocument(d.document.id)));
        const byChunk = new Map(docs.map((d) => [d.chunks[0]?.id as string, d.document.id]));
        for (const filter of filters) {
          const expected = stored
            .filter((s) => matchesFilter(filter, s as FilterableDocument))
            .map((s) => s?.id)
            .sort();
          const label = JSON.stringify(filter);
          const listed = (await store.listDocuments({ limit: 100, filter })).map((d) => d.id).sort();
          expect(listed, `listDocuments ${label}`).toEqual(expected);
          const keyword = (await store.keywordSearch(query("共通"), { limit: 100, filter })).map((h) => byChunk.get(h.chunkId)).sort();
          expect(keyword, `keywordSearch ${label}`).toEqual(expected);
          const vector = (await store.vectorSearch(unit([1, 1]), { limit: 100, filter, exact: true }))
            .map((h) => byChunk.get(h.chunkId))
            .sort();
          expect(vector, `vectorSearch ${label}`).toEqual(expected);
        }
        // The reference itself is not vacuous: the filters above split the documents many ways.
        const sizes = new Set(filters.map((f) => stored.filter((s) => matchesFilter(f, s as FilterableDocument)).length));
        expect(sizes.size).toBeGreaterThan(4);
      });

      it("refuses a metadata path it cannot name safely", async () => {
        const store = await fresh();
        await expectStoreError(
          store.listDocuments({ limit: 1, filter: { op: "eq", field: { metadata: ['a"b'] }, value: 1 } }),
          "INVALID_REQUEST",
        );
        await expectStoreError(
          store.listDocuments({ limit: 1, filter: { op: "eq", field: { metadata: [] }, value: 1 } }),
          "INVALID_REQUEST",
        );
      });
    });

    describe("chunks of code", () => {
      const code = (language: string | null, symbol: string | null, symbolKind: string | null, codeFallback: string | null = null) => ({
        language,
        symbol,
        symbolKind,
        codeFallback,
      });

      it("keeps each chunk's language, symbols, kind, documentation and fallback, on every read", async () => {
        const store = await fresh();
        await store.setEmbeddingInfo({ provider: "p", model: "m", dimensions: 2 });
        const fields = [
          {
            ...code("typescript", "PaymentService.retryCharge", "method"),
            doc: "Retries a failed charge.\nWaits longer each time 🕐.",
            symbols: [],
          },
          { ...code(null, null, null), doc: null, symbols: [] },
          { ...code("cobol", null, null, "unsupported_language"), doc: null, symbols: [] },
          {
            ...code("python", "Invoice", "class"),
            doc: null,
            symbols: [
              { symbol: "Invoice", kind: "class" },
              { symbol: "Invoice.tax", kind: "method" },
              { symbol: "settle", kind: null },
            ],
          },
        ];
        const doc = makeDocument(["async retryCharge() {}", "prose", "IDENTIFICATION DIVISION.", "class Invoice: ..."], {}, (i) => ({
          ...fields[i],
          lineStart: i + 1,
          lineEnd: i + 1,
          vector: unit([1, i]),
        }));
        await store.writeDocuments([doc]);
        const expected = fields.map((f, i) => ({ id: doc.chunks[i]?.id, ...f, lineStart: i + 1, lineEnd: i + 1 }));
        expect(await store.getChunks(doc.document.id)).toMatchObject(expected);
        expect(await store.exportChunks(doc.document.id)).toMatchObject(expected);
        expect(await store.chunkHits(doc.chunks.map((c) => c.id).reverse())).toMatchObject([...expected].reverse());
      });

      it("indexes the symbol with the title: a query naming it finds the definition before its uses", async () => {
        const store = await fresh();
        const definition = makeDocument(
          ["async retryCharge(charge) {\n  for (let attempt = 0; attempt < 3; attempt++) await sleep(2 ** attempt);\n}"],
          {
            title: "src/payments/service.ts",
          },
          () => code("typescript", "PaymentService.retryCharge", "method"),
        );
        const uses = makeDocument(
          ["await payments.retryCharge(a);\nawait payments.retryCharge(b);\nawait payments.retryCharge(c);"],
          { title: "src/jobs/nightly.ts" },
          () => code("typescript", "runNightly", "function"),
        );
        const unrelated = makeDocument(["the charge was refunded"], { title: "notes.md" });
        await store.writeDocuments([uses, unrelated, definition]);
        for (const text of ["retryCharge", "PaymentService.retryCharge", "retry_charge"]) {
          const hits = await store.keywordSearch(query(text), { limit: 5 });
          expect(hits[0]?.chunkId, text).toBe(definition.chunks[0]?.id);
        }
        // The symbol's words alone find it first too ("service" is in its symbol and title only).
        const words = await store.keywordSearch(query("payment service"), { limit: 5 });
        expect(words[0]?.chunkId).toBe(definition.chunks[0]?.id);
      });

      it("indexes documentation and every packed symbol with the title, and a code chunk without its language's reserved words", async () => {
        const store = await fresh();
        const documented = makeDocument(["def tax(self, rate):\n    return self.total * rate"], { title: "billing.py" }, () => ({
          ...code("python", "Invoice.tax", "method"),
          doc: "Consumption tax, rounded down to the yen.",
        }));
        const packed = makeDocument(["class Invoice: ...\ndef settle(invoice): ..."], { title: "models.py" }, () => ({
          ...code("python", "Invoice", "class"),
          symbols: [
            { symbol: "Invoice", kind: "class" },
            { symbol: "settle", kind: "function" },
          ],
        }));
        const prose = makeDocument(["Return the form by the deadline; the tax office will not return it."], { title: "notes.md" });
        const uses = makeDocument(["settle(first)\nsettle(second)\nsettle(third)"], { title: "jobs.py" }, () => code("python", null, null));
        await store.writeDocuments([documented, packed, prose, uses]);
        const top = async (text: string) => (await store.keywordSearch(query(text), { limit: 5 })).map((h) => h.chunkId);
        // "consumption" and "yen" are only in the documentation.
        expect(await top("consumption yen")).toEqual([documented.chunks[0]?.id]);
        // "settle" is the second declaration packed into a chunk: indexed with its title, it outweighs three calls.
        expect(await top("settle")).toEqual([packed.chunks[0]?.id, uses.chunks[0]?.id]);
        // `return` in Python code is syntax: only the prose matches it.
        expect(await top("return")).toEqual([prose.chunks[0]?.id]);
        expect(await top("self")).toEqual([]);
      });

      it("filters on language, symbol and symbol_kind: a search sees one chunk, a listing any chunk of a document", async () => {
        const store = await fresh();
        await store.setEmbeddingInfo({ provider: "p", model: "m", dimensions: 2 });
        const layouts = [
          [code("typescript", "PaymentService", "class"), code("typescript", "PaymentService.retryCharge", "method")],
          [code("python", "retry_charge", "function"), code(null, null, null)],
          [code("typescript", null, null, "syntax_error")],
          [code(null, null, null)],
          [code("go", "Server.Serve", "method"), code("go", "Server", "struct"), code("go", "NewServer", "function")],
        ];
        const docs = layouts.map((chunks, d) =>
          makeDocument(
            chunks.map((_, i) => `共通 common ${d} ${i}`),
            { metadata: { team: d % 2 === 0 ? "pay" : "web" } },
            (i) => ({ ...chunks[i], vector: unit([1, d + i]) }),
          ),
        );
        await store.writeDocuments(docs);
        const chunkOf = new Map(
          docs.flatMap((d, di) => d.chunks.map((c, ci) => [c.id, { doc: d.document.id, fields: layouts[di]?.[ci] }] as const)),
        );
        const stored = await Promise.all(docs.map((d) => store.getDocument(d.document.id)));
        const view = (doc: (typeof stored)[number], chunks: ReturnType<typeof code>[]): FilterableDocument => ({
          ...(doc as FilterableDocument),
          chunks: chunks.map((c) => ({ language: c.language, symbol: c.symbol, symbolKind: c.symbolKind })),
        });
        const filters: Filter[] = [
          { op: "eq", field: { chunk: "language" }, value: "typescript" },
          { op: "eq", field: { chunk: "language" }, value: null },
          { op: "ne", field: { chunk: "language" }, value: "typescript" },
          { op: "in", field: { chunk: "symbol_kind" }, values: ["method", "function"] },
          { op: "nin", field: { chunk: "symbol_kind" }, values: ["class", "struct"] },
          { op: "eq", field: { chunk: "symbol_kind" }, value: "class" },
          { op: "exists", field: { chunk: "symbol" }, value: true },
          { op: "exists", field: { chunk: "symbol" }, value: false },
          { op: "prefix", field: { chunk: "symbol" }, value: "Server." },
          { op: "gt", field: { chunk: "symbol" }, value: "P" },
          { not: { op: "eq", field: { chunk: "symbol_kind" }, value: "method" } },
          {
            and: [
              { op: "eq", field: { chunk: "language" }, value: "typescript" },
              { op: "eq", field: { chunk: "symbol_kind" }, value: "method" },
            ],
          },
          {
            or: [
              { op: "eq", field: { chunk: "language" }, value: "python" },
              { op: "eq", field: { metadata: ["team"] }, value: "pay" },
            ],
          },
        ];
        for (const filter of filters) {
          const label = JSON.stringify(filter);
          const expectedChunks = [...chunkOf]
            .filter(([, c]) =>
              matchesFilter(
                filter,
                view(
                  stored.find((s) => s?.id === c.doc),
                  [c.fields as ReturnType<typeof code>],
                ),
              ),
            )
            .map(([id]) => id)
            .sort();
          const keyword = (await store.keywordSearch(query("共通"), { limit: 100, filter })).map((h) => h.chunkId).sort();
          expect(keyword, `keywordSearch ${label}`).toEqual(expectedChunks);
          const vector = (await store.vectorSearch(unit([1, 1]), { limit: 100, filter, exact: true })).map((h) => h.chunkId).sort();
          expect(vector, `vectorSearch ${label}`).toEqual(expectedChunks);
          const expectedDocs = stored
            .filter((s, i) => matchesFilter(filter, view(s, layouts[i] ?? [])))
            .map((s) => s?.id)
            .sort();
          const listed = (await store.listDocuments({ limit: 100, filter })).map((d) => d.id).sort();
          expect(listed, `listDocuments ${label}`).toEqual(expectedDocs);
        }
        // Chunk and document views differ, and the filters split the chunks many ways.
        const ne = filters[2] as Filter;
        expect(matchesFilter(ne, view(stored[0], layouts[0] ?? []))).toBe(false);
        const sizes = new Set(
          filters.map(
            (f) =>
              [...chunkOf].filter(([, c]) =>
                matchesFilter(
                  f,
                  view(
                    stored.find((s) => s?.id === c.doc),
                    [c.fields as ReturnType<typeof code>],
                  ),
                ),
              ).length,
          ),
        );
        expect(sizes.size).toBeGreaterThan(5);
      });

      it("counts a collection's documents and chunks of code cut by line windows", async () => {
        const store = await fresh();
        await store.createCollection({ name: "src", description: "d", source: "/tmp/src", enabled: true });
        const file = (path: string, fallback: (string | null)[]) => ({
          ...makeDocument(
            fallback.map((_, i) => `line ${i}`),
            {},
            (i) => code("typescript", null, null, fallback[i] ?? null),
          ),
          file: { collection: "src", record: { path, size: 1, mtime: 1, contentHash: path, chunking: "v" } },
        });
        await store.writeDocuments([
          file("ok.ts", [null, null]),
          file("broken.ts", ["syntax_error", "syntax_error"]),
          file("x.cob", ["unsupported_language"]),
        ]);
        expect(await store.collectionCounts("src")).toMatchObject({
          documents: 3,
          chunks: 5,
          codeFallbackDocuments: 2,
          codeFallbackChunks: 3,
        });
      });
    });

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

    describe("read-only SQL over the documented views", () => {
      const sqlOf =
        (store: Store) =>
        (sql: string, maxRows = 100) => {
          expect(typeof store.querySql, "the engine answers querySql").toBe("function");
          return (store.querySql as NonNullable<Store["querySql"]>).call(store, sql, { maxRows, timeoutMs: 5000 });
        };

      it("answers SELECTs over the documented views, cuts at maxRows, refuses writes and leaves the data alone", async () => {
        expect(engine.capabilities.readOnlySql).toBe(true);
        const store = await fresh();
        const run = sqlOf(store);
        await store.writeDocuments([
          makeDocument(["東京は日本の首都です。"], { metadata: { lang: "ja" }, key: "k1" }),
          makeDocument(["Paris is the capital of France.", "It lies on the Seine."], { metadata: { lang: "en" } }),
        ]);
        const byLang = await run("SELECT metadata ->> 'lang' AS lang, count(*) AS n FROM documents_v GROUP BY 1 ORDER BY 1");
        expect(byLang).toEqual({
          columns: ["lang", "n"],
          rows: [
            ["en", 1],
            ["ja", 1],
          ],
          truncated: false,
        });
        const chunks = await run("SELECT idx, text, embedded FROM chunks_v ORDER BY doc_id, idx", 2);
        expect(chunks.rows).toHaveLength(2);
        expect(chunks.truncated).toBe(true);
        expect((await run("SELECT key, length FROM documents_v WHERE key IS NOT NULL")).rows).toEqual([
          ["k1", "東京は日本の首都です。".length],
        ]);
        expect((await run("SELECT count(*) AS n FROM collections_v")).rows).toEqual([[0]]);
        expect((await run("SELECT count(*) AS n FROM files_v")).rows).toEqual([[0]]);
        expect(await run("WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT x FROM c", 3)).toEqual({
          columns: ["x"],
          rows: [[1], [2], [3]],
          truncated: true,
        });
        for (const sql of [
          "DELETE FROM documents",
          "DROP VIEW documents_v",
          "SELECT 1; DELETE FROM documents",
          "WITH gone AS (DELETE FROM documents RETURNING id) SELECT count(*) FROM gone",
          "UPDATE documents SET title = 'x'",
          "SELECT nope FROM documents_v",
          "",
        ]) {
          await expectStoreError(run(sql), "INVALID_REQUEST");
        }
        expect((await store.counts()).documents).toBe(2);
        expect((await run("SELECT count(*) AS n FROM documents_v WHERE title IS NOT NULL")).rows).toEqual([[2]]);
      });

      it("gives the same rows on every engine for the portable SQL subset", async () => {
        const store = await fresh();
        const run = sqlOf(store);
        await store.createCollection({ name: "docs", description: "Project docs", source: "/srv/docs", enabled: true });
        const at = (day: number) => `2026-01-${String(day).padStart(2, "0")}T10:00:00.000Z`;
        const guide = makeDocument(["# Guide\nInstall it.", "Run it."], {
          id: "doc-guide",
          title: "Guide",
          createdAt: at(3),
          updatedAt: at(3),
        });
        guide.chunks[0] = { ...guide.chunks[0], heading: "Guide", lineStart: 1, lineEnd: 2 } as (typeof guide.chunks)[0];
        await store.writeDocuments([
          {
            ...guide,
            file: {
              collection: "docs",
              record: { path: "guide.md", size: 1234, mtime: 1767225600000, contentHash: "h-guide", chunking: "c1" },
            },
          },
          makeDocument(["東京は日本の首都です。"], {
            id: "doc-tokyo",
            title: "東京",
            key: "notes/tokyo",
            metadata: { lang: "ja", year: 2026, author: { name: "Aiko" }, tags: ["city", "japan"] },
            createdAt: at(1),
            updatedAt: at(1),
          }),
          makeDocument(["Paris is the capital of France.", "It lies on the Seine.", "PARIS has many museums."], {
            id: "doc-paris",
            title: "Paris",
            metadata: { lang: "en", year: 2024, author: { name: "Ben" }, tags: ["city"] },
            createdAt: at(2),
            updatedAt: at(2),
          }),
        ]);
        await store.setEmbeddingInfo({ provider: "test", model: "m", dimensions: 2 });
        const paris = await store.getChunks("doc-paris");
        await store.writeVectors(paris.slice(0, 2).map((c) => ({ chunkId: c.id, vector: unit([1, 0]) })));

        const cases: [string, unknown[][]][] = [
          // a breakdown by collection
          [
            "SELECT coalesce(collection, '-') AS collection, count(*) AS docs FROM documents_v GROUP BY 1 ORDER BY 1",
            [
              ["-", 2],
              ["docs", 1],
            ],
          ],
          // the newest documents
          [
            "SELECT id, title, created_at FROM documents_v ORDER BY created_at DESC, id LIMIT 2",
            [
              ["doc-guide", "Guide", at(3)],
              ["doc-paris", "Paris", at(2)],
            ],
          ],
          // JSON metadata: a member, a number, a nested member, an array element
          ["SELECT id FROM documents_v WHERE metadata ->> 'lang' = 'ja'", [["doc-tokyo"]]],
          [
            "SELECT id, CAST(metadata ->> 'year' AS INTEGER) AS year FROM documents_v WHERE CAST(metadata ->> 'year' AS INTEGER) >= 2020 ORDER BY year DESC",
            [
              ["doc-tokyo", 2026],
              ["doc-paris", 2024],
            ],
          ],
          [
            "SELECT metadata -> 'author' ->> 'name' AS author, metadata -> 'tags' ->> 0 AS first_tag FROM documents_v WHERE metadata ->> 'author' IS NOT NULL ORDER BY author",
            [
              ["Aiko", "city"],
              ["Ben", "city"],
            ],
          ],
          // chunks per document with their embedded count
          [
            "SELECT d.title AS title, count(c.id) AS chunks, sum(c.embedded) AS embedded FROM documents_v d JOIN chunks_v c ON c.doc_id = d.id GROUP BY d.title ORDER BY d.title",
            [
              ["Guide", 2, 0],
              ["Paris", 3, 2],
              ["東京", 1, 0],
            ],
          ],
          ["SELECT count(*) AS waiting FROM chunks_v WHERE embedded = 0", [[4]]],
          // case-insensitive text search, lengths, offsets, headings and lines
          ["SELECT count(*) AS n FROM chunks_v WHERE lower(text) LIKE '%paris%'", [[2]]],
          [
            `SELECT idx, start, "end", heading, line_start, line_end, length(text) AS chars FROM chunks_v WHERE doc_id = 'doc-guide' ORDER BY idx`,
            [
              [0, 0, 19, "Guide", 1, 2, 19],
              [1, 20, 27, null, null, null, 7],
            ],
          ],
          [
            "SELECT id, length, key FROM documents_v WHERE key = 'notes/tokyo'",
            [["doc-tokyo", "東京は日本の首都です。".length, "notes/tokyo"]],
          ],
          // collections and files
          [
            "SELECT name, description, source, enabled, last_import_at FROM collections_v",
            [["docs", "Project docs", "/srv/docs", 1, null]],
          ],
          [
            "SELECT f.collection AS collection, f.path AS path, f.size AS size, f.mtime AS mtime, f.content_hash AS hash, f.chunking AS chunking, d.title AS title FROM files_v f JOIN documents_v d ON d.id = f.doc_id",
            [["docs", "guide.md", 1234, 1767225600000, "h-guide", "c1", "Guide"]],
          ],
          // expressions: CASE, substr, ||, integer division, a day out of a timestamp, a window function
          [
            "SELECT substr(created_at, 1, 10) AS day, upper(title) || '!' AS shout, CASE WHEN length > 30 THEN 'long' ELSE 'short' END AS size, length / 10 AS tens, row_number() OVER (ORDER BY created_at) AS n FROM documents_v ORDER BY created_at",
            [
              ["2026-01-01", "東京!", "short", 1, 1],
              ["2026-01-02", "PARIS!", "long", 7, 2],
              ["2026-01-03", "GUIDE!", "short", 2, 3],
            ],
          ],
          [
            "VALUES (1, 'a'), (2, NULL)",
            [
              [1, "a"],
              [2, null],
            ],
          ],
          [
            "SELECT count(DISTINCT collection) AS n, min(created_at) AS first, max(updated_at) AS last FROM documents_v",
            [[1, at(1), at(3)]],
          ],
        ];
        for (const [sql, rows] of cases) {
          const result = await run(sql);
          expect(result.rows, sql).toEqual(rows);
          expect(result.truncated, sql).toBe(false);
        }
        // Column names are the aliases given (compute columns AS a name: unnamed ones differ by engine).
        expect((await run("SELECT count(*) AS n, max(idx) AS top FROM chunks_v")).columns).toEqual(["n", "top"]);
        expect((await run("SELECT * FROM documents_v LIMIT 1")).columns).toEqual([
          "id",
          "key",
          "title",
          "source",
          "collection",
          "metadata",
          "created_at",
          "updated_at",
          "length",
        ]);
        // JSON columns read back as JSON text (its spacing and key order may differ by engine).
        const [metadata] = (await run("SELECT metadata FROM documents_v WHERE id = 'doc-tokyo'")).rows[0] as [string];
        expect(JSON.parse(metadata)).toEqual({ lang: "ja", year: 2026, author: { name: "Aiko" }, tags: ["city", "japan"] });
      });
    });

    describe("several writers", () => {
      it("two connections writing at once both succeed, and each sees the other's writes", async () => {
        const name = `cc_${testId().toLowerCase()}`.slice(0, 40);
        const a = await engine.openDatabase(name, { create: true });
        const otherEngine = await target.second();
        try {
          const b = await otherEngine.openDatabase(name);
          const token = await a.changeToken();
          const writer = (store: Store, tag: string) =>
            Promise.all(
              Array.from({ length: 40 }, async (_, i) => {
                await store.writeDocuments([makeDocument([`${tag} ${i} 並行書き込み`])]);
              }),
            );
          await Promise.all([
            writer(a, "a"),
            writer(b, "b"),
            a.createCollection({ name: "c", description: "d", source: "/c", enabled: true }),
          ]);
          expect((await a.counts()).documents).toBe(80);
          expect((await b.counts()).documents).toBe(80);
          expect(await a.changeToken()).not.toBe(token);
          const before = await a.changeToken();
          await b.writeDocuments([makeDocument(["one more"])]);
          expect(await a.changeToken()).not.toBe(before);
          expect((await a.keywordSearch(query("並行書き込み"), { limit: 100 })).length).toBe(80);
        } finally {
          await otherEngine.close();
        }
      });
    });
  });
}
