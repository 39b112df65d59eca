import { ANALYZER_VERSION, buildKeywordQuery, words } from "@docdb/analyzer";
import { type DocumentWrite, type Filter, type Store, StoreError } from "@docdb/store";
import { cosineDistance } from "@docdb/store/contract-suite";
import { describe, expect, it } from "vitest";
import { DELETE_BATCH, type PostgresEngine, type PostgresStore, schemaNameFor } from "../src/index.js";
import { describeServers, uniqueName } from "./support/servers.js";

const doc = (id: string, extra: Partial<DocumentWrite["document"]> = {}): DocumentWrite["document"] => ({
  id,
  content: `content of ${id}`,
  contentHash: `hash-${id}`,
  metadata: {},
  ...extra,
});

const chunk = (id: string, idx: number, text: string, extra: Partial<DocumentWrite["chunks"][number]> = {}) => ({
  id,
  idx,
  text,
  start: 0,
  end: text.length,
  ...extra,
});

async function code(promise: Promise<unknown>): Promise<string | undefined> {
  try {
    await promise;
    return undefined;
  } catch (error) {
    if (StoreError.isInstance(error)) return error.code;
    throw error;
  }
}

describe("schemaNameFor", () => {
  it("lower-cases, prefixes and keeps within 63 bytes", () => {
    expect(schemaNameFor("My-DB")).toBe("docdb_my-db");
    const long = "a".repeat(64);
    const other = `${"a".repeat(63)}b`;
    expect(schemaNameFor(long).length).toBeLessThanOrEqual(63);
    expect(schemaNameFor(long)).not.toBe(schemaNameFor(other));
    expect(schemaNameFor(long.toUpperCase())).toBe(schemaNameFor(long));
  });
});

describeServers("postgres store", ({ engine, url }) => {
  it("lists, opens, creates and drops databases (schemas)", async () => {
    const e = engine();
    const name = uniqueName("Db");
    expect(await e.databaseExists(name)).toBe(false);
    expect(await code(e.openDatabase(name))).toBe("NOT_FOUND");
    const store = await e.openDatabase(name, { create: true });
    expect(store.location).toContain(schemaNameFor(name));
    expect(store.location).not.toContain("postgres:postgres@");
    expect(await e.databaseExists(name)).toBe(true);
    expect(await e.databaseExists(name.toUpperCase())).toBe(true);
    expect(await e.listDatabases()).toContain(name);
    const long = `L${"x".repeat(63)}`;
    await e.openDatabase(long, { create: true });
    expect(await e.listDatabases()).toContain(long);
    // Same database under another case.
    const again = await e.openDatabase(name.toLowerCase());
    await store.setSetting("s", "v");
    expect(await again.getSetting("s")).toBe("v");
    expect(await e.dropDatabase(name)).toBe(true);
    expect(await e.dropDatabase(name)).toBe(false);
    expect(await e.listDatabases()).not.toContain(name);
    expect(await code(e.openDatabase("bad name!"))).toBe("INVALID_REQUEST");
    expect(e.location).not.toContain("postgres@127.0.0.1".replace("postgres@", "postgres:postgres@"));
  });

  it("migrates once when several engines open a new database together", async () => {
    const name = uniqueName("race");
    const stores = await Promise.all([engine(), engine(), engine()].map((e) => e.openDatabase(name, { create: true })));
    expect(stores).toHaveLength(3);
    const counts = await stores[0]!.counts();
    expect(counts.documents).toBe(0);
  });

  it("settings and embedding info", async () => {
    const store = await engine().openDatabase(uniqueName("settings"), { create: true });
    expect(await store.getSetting("x")).toBeUndefined();
    await store.setSetting("x", "1");
    expect(await store.getSetting("x")).toBe("1");
    await store.setSetting("x", undefined);
    expect(await store.getSetting("x")).toBeUndefined();
    expect(await store.getEmbeddingInfo()).toBeUndefined();
    await store.setEmbeddingInfo({ provider: "p", model: "m", dimensions: 3 });
    expect(await store.getEmbeddingInfo()).toEqual({ provider: "p", model: "m", dimensions: 3 });
    expect(await code(store.setEmbeddingInfo({ provider: "p", model: "m2", dimensions: 4 }))).toBe("INVALID_REQUEST");
    await store.writeDocuments([{ document: doc("D1"), chunks: [chunk("C1", 0, "x", { vector: new Float32Array([1, 0, 0]) })] }]);
    expect((await store.counts()).vectors).toBe(1);
    await store.setEmbeddingInfo({ provider: "p", model: "m2", dimensions: 4 }, { replace: true });
    expect(await store.counts()).toMatchObject({ vectors: 0, embedded: 0, pending: 1 });
    expect(await store.pendingChunks(10)).toEqual([{ chunkId: "C1", text: "x", heading: null, title: null }]);
  });

  it("writes, upserts by key and reads documents", async () => {
    const store = await engine().openDatabase(uniqueName("docs"), { create: true });
    const [first] = await store.writeDocuments([
      { document: doc("D1", { key: "k1", title: "T", metadata: { a: 1 } }), chunks: [chunk("C1", 0, "one"), chunk("C2", 1, "two")] },
    ]);
    expect(first).toEqual({ docId: "D1", replaced: false, reusedVectors: 0 });
    const before = (await store.getDocument("D1"))!;
    expect(before).toMatchObject({ id: "D1", key: "k1", title: "T", metadata: { a: 1 }, collection: null, source: null });
    expect(before.createdAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    await new Promise((r) => setTimeout(r, 5));
    const [second] = await store.writeDocuments([
      { document: doc("D2", { key: "k1", content: "new content ✓😀" }), chunks: [chunk("C3", 0, "three")], upsertByKey: true },
    ]);
    expect(second).toEqual({ docId: "D1", replaced: true, reusedVectors: 0 });
    const after = (await store.getDocumentByKey("k1"))!;
    expect(after.id).toBe("D1");
    expect(after.createdAt).toBe(before.createdAt);
    expect(after.updatedAt > before.updatedAt).toBe(true);
    expect(after.content).toBe("new content ✓😀");
    expect((await store.getChunks("D1")).map((c) => c.id)).toEqual(["C3"]);
    expect(await store.getDocument("D2")).toBeUndefined();
    expect(await code(store.writeDocuments([{ document: doc("D3", { key: "k1" }), chunks: [] }]))).toBe("CONFLICT");
    const [summary] = await store.listDocuments({ limit: 10 });
    expect(summary).toMatchObject({ id: "D1", chunkCount: 1, length: [..."new content ✓😀"].length });
    expect(summary).not.toHaveProperty("content");
    expect(await store.counts()).toEqual({
      documents: 1,
      chunks: 1,
      embedded: 0,
      pending: 1,
      keywordRows: 1,
      vectors: 0,
      reusedVectors: 0,
    });
    expect(await store.deleteDocuments(["D1", "nope"])).toEqual({ documents: 1, chunks: 1 });
    expect(await store.counts()).toMatchObject({ documents: 0, chunks: 0, keywordRows: 0 });
  });

  it("writes nothing of a call that fails (one transaction)", async () => {
    const store = await engine().openDatabase(uniqueName("atomic"), { create: true });
    await store.setEmbeddingInfo({ provider: "p", model: "m", dimensions: 2 });
    const failed = store.writeDocuments([
      { document: doc("A"), chunks: [chunk("A0", 0, "fine", { vector: new Float32Array([1, 0]) })] },
      { document: doc("B"), chunks: [chunk("B0", 0, "wrong", { vector: new Float32Array([1, 0, 0]) })] },
    ]);
    expect(await code(failed)).toBe("INVALID_REQUEST");
    expect(await store.counts()).toMatchObject({ documents: 0, chunks: 0, vectors: 0 });
  });

  it("replaces collection files, reusing vectors by input hash", async () => {
    const store = await engine().openDatabase(uniqueName("files"), { create: true });
    await store.setEmbeddingInfo({ provider: "p", model: "m", dimensions: 2 });
    const c = await store.createCollection({ name: "notes", description: "d", source: "/tmp/notes", enabled: true });
    expect(c).toMatchObject({ name: "notes", enabled: true, settings: {}, lastImportAt: null });
    expect(await code(store.createCollection({ name: "notes", description: "d", source: "/x", enabled: true }))).toBe("CONFLICT");
    const record = { path: "a.md", size: 10, mtime: 1700000000000.5, contentHash: "f1", chunking: "v1" };
    await store.writeDocuments([
      {
        document: doc("F1", { collection: "notes", source: "a.md" }),
        chunks: [chunk("F1a", 0, "alpha", { inputHash: "ha" }), chunk("F1b", 1, "beta", { inputHash: "hb" })],
        file: { collection: "notes", record },
      },
    ]);
    expect(await store.writeVectors([{ chunkId: "F1a", vector: new Float32Array([1, 0]) }])).toBe(1);
    // A loose document of the collection with that source is replaced too.
    await store.writeDocuments([{ document: doc("LOOSE", { collection: "notes", source: "a.md" }), chunks: [] }]);
    const [result] = await store.writeDocuments([
      {
        document: doc("F2", { collection: "notes", source: "a.md" }),
        chunks: [chunk("F2a", 0, "alpha", { inputHash: "ha" }), chunk("F2b", 1, "gamma", { inputHash: "hc" })],
        file: { collection: "notes", record: { ...record, contentHash: "f2" } },
      },
    ]);
    expect(result).toEqual({ docId: "F2", replaced: true, reusedVectors: 1 });
    expect(await store.getDocument("F1")).toBeUndefined();
    expect(await store.getDocument("LOOSE")).toBeUndefined();
    expect((await store.getChunks("F2")).map((ch) => [ch.id, ch.embedded])).toEqual([
      ["F2a", true],
      ["F2b", false],
    ]);
    const files = await store.listFiles("notes");
    expect(files).toEqual([
      { collection: "notes", ...record, contentHash: "f2", docId: "F2", importedAt: files[0]!.importedAt, chunkCount: 2 },
    ]);
    expect(await store.filesOfDocuments(["F2", "X"])).toEqual(files);
    await store.touchFile("notes", "a.md", 11, 5);
    expect((await store.listFiles("notes"))[0]).toMatchObject({ size: 11, mtime: 5 });
    expect(await store.collectionCounts("notes")).toMatchObject({ documents: 1, chunks: 2, embedded: 1, pending: 1, files: 1 });
    // writeVectors skips chunks that are gone.
    expect(await store.writeVectors([{ chunkId: "F1b", vector: new Float32Array([0, 1]) }])).toBe(0);
    expect(await store.removeFile("notes", "a.md")).toBe(2);
    expect(await store.removeFile("notes", "a.md")).toBe(0);
    expect(await store.counts()).toMatchObject({ documents: 0, chunks: 0, vectors: 0 });
    expect(await code(store.writeDocuments([{ document: doc("Z"), chunks: [], file: { collection: "none", record } }]))).toBe("NOT_FOUND");
    expect(await store.updateCollection("notes", { enabled: false, settings: { k: 1 }, lastImportAt: "2026-01-01T00:00:00.000Z" })).toBe(
      true,
    );
    expect(await store.getCollection("notes")).toMatchObject({
      enabled: false,
      settings: { k: 1 },
      lastImportAt: "2026-01-01T00:00:00.000Z",
    });
    expect(await store.updateCollection("nope", { enabled: false })).toBe(false);
    expect((await store.listCollections()).map((x) => x.name)).toEqual(["notes"]);
  });

  it("clears and deletes collections in bounded batches", async () => {
    const store = await engine().openDatabase(uniqueName("clear"), { create: true });
    await store.createCollection({ name: "big", description: "d", source: "/big", enabled: true });
    const total = DELETE_BATCH * 2 + 50;
    const writes: DocumentWrite[] = [];
    for (let i = 0; i < total; i++) {
      const id = `B${String(i).padStart(5, "0")}`;
      writes.push({
        document: doc(id, { collection: "big", source: `${id}.md` }),
        chunks: [chunk(`${id}c`, 0, `text ${i}`)],
        file: { collection: "big", record: { path: `${id}.md`, size: 1, mtime: 1, contentHash: id, chunking: "v" } },
      });
    }
    await store.writeDocuments(writes);
    await store.writeDocuments([{ document: doc("OTHER"), chunks: [chunk("Oc", 0, "other")] }]);
    const token = Number((await store.changeToken()).split(":")[1]);
    expect(await store.clearCollection("big")).toEqual({ documents: total, chunks: total });
    const bumps = Number((await store.changeToken()).split(":")[1]) - token;
    expect(bumps).toBeGreaterThanOrEqual(Math.ceil(total / DELETE_BATCH));
    expect(await store.collectionCounts("big")).toMatchObject({ documents: 0, chunks: 0, embedded: 0, pending: 0, files: 0 });
    expect(await store.getCollection("big")).toBeDefined();
    await store.writeDocuments(writes.slice(0, 3));
    expect(await store.deleteCollection("big")).toEqual({ documents: 3, chunks: 3 });
    expect(await store.getCollection("big")).toBeUndefined();
    expect(await store.counts()).toMatchObject({ documents: 1, chunks: 1 });
  });

  it("vector search: HNSW with filters still returns the limit; exact equals brute force", async () => {
    const store = await engine().openDatabase(uniqueName("vec"), { create: true });
    const dims = 8;
    await store.setEmbeddingInfo({ provider: "p", model: "m", dimensions: dims });
    let seed = 7;
    const rand = () => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed / 2147483648 - 0.5;
    };
    const vectors = new Map<string, Float32Array>();
    const writes: DocumentWrite[] = [];
    for (let i = 0; i < 400; i++) {
      const v = new Float32Array(Array.from({ length: dims }, rand));
      const id = `V${String(i).padStart(4, "0")}`;
      vectors.set(`${id}c`, v);
      writes.push({
        document: doc(id, { metadata: { group: i % 25 === 0 ? "rare" : "common" } }),
        chunks: [chunk(`${id}c`, 0, "v", { vector: v })],
      });
    }
    await store.writeDocuments(writes);
    const q = new Float32Array(Array.from({ length: dims }, rand));
    const rare = [...vectors.entries()].filter(([id]) => Number(id.slice(1, 5)) % 25 === 0);
    const brute = rare.map(([id, v]) => ({ id, d: cosineDistance(q, v) })).sort((a, b) => a.d - b.d);
    const filter = { op: "eq" as const, field: { metadata: ["group"] }, value: "rare" };
    const exact = await store.vectorSearch(q, { limit: 10, filter, exact: true });
    expect(exact.map((h) => h.chunkId)).toEqual(brute.slice(0, 10).map((b) => b.id));
    for (const [i, h] of exact.entries()) expect(h.distance).toBeCloseTo(brute[i]!.d, 5);
    const approx = await store.vectorSearch(q, { limit: 10, filter });
    expect(approx).toHaveLength(10);
    for (const h of approx) expect(rare.some(([id]) => id === h.chunkId)).toBe(true);
    for (let i = 1; i < approx.length; i++) expect(approx[i]!.distance).toBeGreaterThanOrEqual(approx[i - 1]!.distance);
    // More than exist: all 16 rare ones.
    expect(await store.vectorSearch(q, { limit: 50, filter })).toHaveLength(16);
    const unfiltered = await store.vectorSearch(q, { limit: 100 });
    expect(unfiltered).toHaveLength(100);
    const all = [...vectors.entries()].map(([id, v]) => ({ id, d: cosineDistance(q, v) })).sort((a, b) => a.d - b.d);
    const recall = unfiltered.filter((h) => all.slice(0, 100).some((b) => b.id === h.chunkId)).length / 100;
    expect(recall).toBeGreaterThan(0.9);
    expect(await code(store.vectorSearch(new Float32Array(3), { limit: 1 }))).toBe("INVALID_REQUEST");
    const hits = await store.chunkHits([exact[1]!.chunkId, "missing", exact[0]!.chunkId]);
    expect(hits.map((h) => h.id)).toEqual([exact[1]!.chunkId, exact[0]!.chunkId]);
    expect(hits[0]).toMatchObject({ embedded: true, metadata: { group: "rare" }, title: null });
  });

  it("keyword search: Japanese, code identifiers, filters, BM25 as FTS5 computes it", async () => {
    const store = await engine().openDatabase(uniqueName("kw"), { create: true });
    const texts: [string, string | null, string, string | null][] = [
      ["J1", "東京", "東京都の人口は約1400万人です。日本の首都です。", "概要"],
      ["J2", "大阪", "大阪の人口は約880万人です。", null],
      ["J3", "京都", "京都は古い都です。東京から新幹線で行けます。", null],
      ["C1", "API", "Call getUserName(id) to read the user's name.", "Users > getUserName"],
      ["C2", "Notes", "The user name is shown. Names of users are listed.", null],
      ["C3", "Config", "Set NODE_MODULES path and node modules cache.", null],
      ["E1", "Quick fox", "The quick brown fox jumps over the lazy dog.", null],
      ["E2", "Dogs", "A lazy dog sleeps; a brown dog is quick? Fox!", null],
    ];
    await store.writeDocuments(
      texts.map(([id, title, text, heading]) => ({
        document: doc(id, { title, content: text, metadata: { lang: id.startsWith("J") ? "ja" : "en" } }),
        chunks: [chunk(`${id}c`, 0, text, { heading })],
      })),
    );
    const search = async (q: string, filter?: Parameters<Store["keywordSearch"]>[1]["filter"]) =>
      (await store.keywordSearch(buildKeywordQuery(q)!, { limit: 10, filter })).map((h) => h.chunkId);
    expect((await search("東京の人口"))[0]).toBe("J1c");
    expect(await search("東京")).toEqual(expect.arrayContaining(["J1c", "J3c"]));
    expect(await search("人口", { op: "eq", field: { builtin: "title" }, value: "大阪" })).toEqual(["J2c"]);
    expect((await search("get_user_name"))[0]).toBe("C1c");
    expect((await search("getUserName"))[0]).toBe("C1c");
    expect(await search("user name")).toEqual(expect.arrayContaining(["C1c", "C2c"]));
    expect((await search("node_modules"))[0]).toBe("C3c");
    expect(await search("東京", { op: "eq", field: { metadata: ["lang"] }, value: "en" })).toEqual([]);
    expect(await store.keywordSearch({ any: [], phrases: [] }, { limit: 10 })).toEqual([]);
    // Asked for their chunks, every hit comes with its chunk from the same statement (with phrases
    // and a filter too), as chunkHits reads it.
    const asked: [string, Filter | undefined][] = [
      ["東京の人口", undefined],
      ["user name", { op: "eq", field: { metadata: ["lang"] }, value: "en" }],
    ];
    for (const [q, filter] of asked) {
      const plain = await store.keywordSearch(buildKeywordQuery(q)!, { limit: 10, filter });
      const withChunks = await store.keywordSearch(buildKeywordQuery(q)!, { limit: 10, filter, withChunks: 1 });
      expect(withChunks.map(({ chunk: _chunk, ...h }) => h)).toEqual(plain);
      expect(withChunks.map((h) => h.chunk)).toEqual(await store.chunkHits(plain.map((h) => h.chunkId)));
    }

    // BM25 exactly as SQLite FTS5's bm25(chunks_fts, 2, 1), computed here from the index terms.
    const rows = texts.map(([id, title, text, heading]) => {
      const t = [...words(title ?? ""), ...(heading ? words(heading) : [])];
      const b = words(text);
      return { id: `${id}c`, t, b, len: t.length + b.length };
    });
    const avg = rows.reduce((s, r) => s + r.len, 0) / rows.length;
    const count = (terms: string[], seq: string[]) => {
      let n = 0;
      for (let i = 0; i + seq.length <= terms.length; i++) if (seq.every((w, j) => terms[i + j] === w)) n++;
      return n;
    };
    const bm25 = (seqs: string[][]) => {
      const scores = new Map<string, number>();
      for (const seq of seqs) {
        const matching = rows.filter((r) => count(r.t, seq) + count(r.b, seq) > 0);
        const idf = Math.max(Math.log((rows.length - matching.length + 0.5) / (matching.length + 0.5)), 1e-6);
        for (const r of matching) {
          const f = 2 * count(r.t, seq) + count(r.b, seq);
          scores.set(r.id, (scores.get(r.id) ?? 0) + (idf * (f * 2.2)) / (f + 1.2 * (1 - 0.75 + (0.75 * r.len) / avg)));
        }
      }
      return scores;
    };
    for (const q of ["quick brown fox", "lazy dog", "東京の人口", "user name", "get_user_name"]) {
      const query = buildKeywordQuery(q)!;
      const main = bm25(query.any);
      const bonus = bm25(query.phrases);
      const expected = [...main.entries()]
        .map(([id, s]) => ({ id, score: s + (query.phrases.length > 0 ? 0.1 * (bonus.get(id) ?? 0) : 0) }))
        .sort((a, b) => b.score - a.score);
      const got = await store.keywordSearch(query, { limit: 10 });
      expect(got.map((h) => h.chunkId)).toEqual(expected.map((e) => e.id));
      for (const [i, h] of got.entries()) expect(h.score).toBeCloseTo(expected[i]!.score, 9);
    }
  });

  it("changeToken changes with writes from another engine (process)", async () => {
    const name = uniqueName("token");
    const a = await engine().openDatabase(name, { create: true });
    const b = await engine().openDatabase(name);
    const t0 = await a.changeToken();
    expect(await a.changeToken()).toBe(t0);
    await b.writeDocuments([{ document: doc("X"), chunks: [] }]);
    const t1 = await a.changeToken();
    expect(t1).not.toBe(t0);
    await b.setSetting("k", "v");
    expect(await a.changeToken()).not.toBe(t1);
    expect(url()).toContain("postgres");
  });

  it("keeps the keyword statistics (chunk count, total terms) in step through every kind of write", async () => {
    const e = engine() as PostgresEngine;
    const store = await e.openDatabase(uniqueName("stats"), { create: true });
    const schema = (store as PostgresStore).schema;
    const check = async () => {
      const [counters] = await e.db.read(`SELECT chunks::int AS chunks, terms::int AS terms FROM "${schema}".counters`);
      const [actual] = await e.db.read(`SELECT count(*)::int AS chunks, COALESCE(sum(kw_length), 0)::int AS terms FROM "${schema}".chunks`);
      expect(counters).toEqual(actual);
      const [orphans] = await e.db.read(
        `SELECT count(*)::int AS n FROM "${schema}".postings p WHERE NOT EXISTS (SELECT 1 FROM "${schema}".chunks c WHERE c.seq = p.seq)`,
      );
      expect(orphans).toEqual({ n: 0 });
    };
    await store.createCollection({ name: "c", description: "d", source: "/c", enabled: true });
    const record = (path: string) => ({ path, size: 1, mtime: 1, contentHash: path, chunking: "v" });
    await store.writeDocuments([
      {
        document: doc("S1", { key: "k", title: "Some title" }),
        chunks: [chunk("S1a", 0, "alpha beta"), chunk("S1b", 1, "gamma", { heading: "H > I" })],
      },
      { document: doc("S2"), chunks: [chunk("S2a", 0, "delta epsilon zeta")], file: { collection: "c", record: record("a.md") } },
      { document: doc("S3"), chunks: [chunk("S3a", 0, "eta")], file: { collection: "c", record: record("b.md") } },
    ]);
    await check();
    await store.writeDocuments([
      { document: doc("S4", { key: "k" }), chunks: [chunk("S4a", 0, "theta iota kappa lambda")], upsertByKey: true },
    ]);
    await store.writeDocuments([
      { document: doc("S5"), chunks: [chunk("S5a", 0, "mu")], file: { collection: "c", record: record("a.md") } },
    ]);
    await check();
    await store.removeFile("c", "b.md");
    await store.deleteDocuments(["S1"]);
    await check();
    await store.clearCollection("c");
    await check();
    expect((await store.counts()).chunks).toBe(0);
  });

  it("rebuilds the postings when they were made by another analyzer version, keeping the BM25 statistics in step", async () => {
    const e = engine() as PostgresEngine;
    const name = uniqueName("reindex");
    const store = await e.openDatabase(name, { create: true });
    const schema = `"${(store as PostgresStore).schema}"`;
    await store.writeDocuments([
      { document: doc("R1"), chunks: [chunk("R1a", 0, "await this.store.writeDocuments(batch)", { symbol: "ImportBatch.flush" })] },
      { document: doc("R2"), chunks: [chunk("R2a", 0, "The experiments were running for weeks.")] },
    ]);
    const [before] = await e.db.read(`SELECT terms::int AS terms FROM ${schema}.counters`);
    // A database indexed by an older analyzer: no postings, lengths zero, an old version recorded.
    await e.db.read(
      `WITH a AS (DELETE FROM ${schema}.postings RETURNING 1), b AS (UPDATE ${schema}.chunks SET kw_length = 0 RETURNING 1),
            c AS (UPDATE ${schema}.counters SET terms = 0 RETURNING 1)
       UPDATE ${schema}.meta SET value = '1' WHERE key = 'analyzer_version'`,
    );
    expect(await store.keywordSearch(buildKeywordQuery("writeDocuments")!, { limit: 5 })).toEqual([]);
    const reopened = await engine().openDatabase(name);
    for (const [q, id] of [
      ["writeDocuments", "R1a"],
      ["flush", "R1a"],
      ["run an experiment", "R2a"],
    ]) {
      expect(
        (await reopened.keywordSearch(buildKeywordQuery(q as string)!, { limit: 5 })).map((h) => h.chunkId),
        q,
      ).toEqual([id]);
    }
    const [after] = await e.db.read(`SELECT terms::int AS terms FROM ${schema}.counters`);
    const [sum] = await e.db.read(`SELECT sum(kw_length)::int AS terms FROM ${schema}.chunks`);
    expect(after).toEqual(before);
    expect(sum).toEqual(before);
    const [version] = await e.db.read(`SELECT value FROM ${schema}.meta WHERE key = 'analyzer_version'`);
    expect(version).toEqual({ value: String(ANALYZER_VERSION) });
  });

  it("a store whose database another process dropped answers NOT_FOUND", async () => {
    const name = uniqueName("dropped");
    const store = await engine().openDatabase(name, { create: true });
    expect(await engine().dropDatabase(name)).toBe(true);
    expect(await code(store.counts())).toBe("NOT_FOUND");
    expect(await code(store.writeDocuments([{ document: doc("X"), chunks: [] }]))).toBe("NOT_FOUND");
  });

  it("pending chunks in id order after a cursor", async () => {
    const store = await engine().openDatabase(uniqueName("pending"), { create: true });
    await store.writeDocuments([
      { document: doc("P", { title: "Title" }), chunks: [chunk("K2", 1, "b", { heading: "H" }), chunk("K1", 0, "a"), chunk("K3", 2, "c")] },
    ]);
    expect((await store.pendingChunks(2)).map((p) => p.chunkId)).toEqual(["K1", "K2"]);
    expect(await store.pendingChunks(5, "K1")).toEqual([
      { chunkId: "K2", text: "b", heading: "H", title: "Title" },
      { chunkId: "K3", text: "c", heading: null, title: "Title" },
    ]);
  });
});
