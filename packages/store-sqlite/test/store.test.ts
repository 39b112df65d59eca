import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { buildMatchQuery, SqliteStore } from "../src/index.js";

let dir: string;
let path: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "docdb-store-"));
  path = join(dir, "test.db");
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function unit(values: number[]): Float32Array {
  const norm = Math.hypot(...values);
  return Float32Array.from(values.map((v) => v / norm));
}

function addDoc(store: SqliteStore, id: string, texts: string[], metadata: Record<string, unknown> = {}, source?: string) {
  return store.insertDocument(
    { id, title: `title ${id}`, content: texts.join(" "), contentHash: id, metadata, source },
    texts.map((text, idx) => ({ id: `${id}-c${idx}`, idx, text, start: 0, end: text.length })),
  );
}

describe("SqliteStore on a real file", () => {
  it("loads sqlite-vec, uses WAL and records applied migrations", () => {
    const store = SqliteStore.open(path);
    const version = store.db.prepare("SELECT vec_version() AS v").get() as { v: string };
    expect(version.v).toMatch(/^v0\.1\./);
    expect(store.db.pragma("journal_mode", { simple: true })).toBe("wal");
    const migrations = store.db.prepare("SELECT version FROM schema_migrations ORDER BY version").all() as { version: string }[];
    expect(migrations[0]?.version).toBe("0001_init");
    store.close();
    // Re-opening applies nothing twice.
    const again = SqliteStore.open(path);
    expect((again.db.prepare("SELECT count(*) AS n FROM schema_migrations").get() as { n: number }).n).toBe(migrations.length);
    again.close();
  });

  it("round-trips documents, chunks and vectors across a close and reopen", () => {
    const store = SqliteStore.open(path);
    const seqs = addDoc(store, "d1", ["東京は日本の首都です。", "大阪は食べ物で有名です。"], { lang: "ja", tags: { level: 2 } });
    store.setEmbeddingInfo({ provider: "test", model: "m", dimensions: 3 });
    store.writeVectors([
      { seq: seqs[0]!, vector: unit([1, 0, 0]) },
      { seq: seqs[1]!, vector: unit([0, 1, 0]) },
    ]);
    store.close();

    const reopened = SqliteStore.open(path);
    expect(reopened.getEmbeddingInfo()).toEqual({ provider: "test", model: "m", dimensions: 3 });
    const doc = reopened.getDocument("d1");
    expect(doc?.metadata).toEqual({ lang: "ja", tags: { level: 2 } });
    expect(reopened.getChunksOf("d1").map((c) => [c.idx, c.embedded])).toEqual([
      [0, true],
      [1, true],
    ]);
    const near = reopened.vectorSearch(unit([0.9, 0.1, 0]), 2);
    expect(near[0]?.seq).toBe(seqs[0]);
    expect(near[0]?.distance).toBeLessThan(near[1]!.distance);
    const keyword = reopened.keywordSearch(buildMatchQuery("大阪の食べ物")!, 5);
    expect(keyword[0]?.seq).toBe(seqs[1]);
    reopened.close();
  });

  it("delete removes the document, its chunks, vectors and FTS rows in one go", () => {
    const store = SqliteStore.open(path);
    store.setEmbeddingInfo({ provider: "test", model: "m", dimensions: 2 });
    const a = addDoc(store, "a", ["one", "two", "three"]);
    const b = addDoc(store, "b", ["four"]);
    store.writeVectors([...a, ...b].map((seq, i) => ({ seq, vector: unit([1, i + 1]) })));
    expect(store.counts()).toMatchObject({ documents: 2, chunks: 4, ftsRows: 4, vectors: 4, pending: 0 });

    expect(store.deleteDocument("a")).toBe(3);
    expect(store.counts()).toMatchObject({ documents: 1, chunks: 1, ftsRows: 1, vectors: 1 });
    expect(store.keywordSearch('"two"', 10)).toEqual([]);
    expect(store.vectorSearch(unit([1, 1]), 10).map((h) => h.seq)).toEqual(b);
    expect(store.deleteDocument("a")).toBe(-1);
    store.close();
  });

  it("rejects a vector of the wrong dimension and writes nothing of that batch", () => {
    const store = SqliteStore.open(path);
    store.setEmbeddingInfo({ provider: "test", model: "m", dimensions: 3 });
    const seqs = addDoc(store, "d", ["x", "y"]);
    expect(() =>
      store.writeVectors([
        { seq: seqs[0]!, vector: unit([1, 0, 0]) },
        { seq: seqs[1]!, vector: unit([1, 0]) },
      ]),
    ).toThrow(/2 dimensions, the database holds 3/);
    expect(store.counts()).toMatchObject({ vectors: 0, pending: 2 });
    store.close();
  });

  it("filters keyword and vector search by metadata path, source prefix and ids", () => {
    const store = SqliteStore.open(path);
    store.setEmbeddingInfo({ provider: "test", model: "m", dimensions: 2 });
    const ja = addDoc(store, "ja", ["検索 エンジン"], { lang: "ja", author: { name: "佐藤" } }, "docs/ja/a.md");
    const en = addDoc(store, "en", ["検索 engine"], { lang: "en", author: { name: "Smith" } }, "docs/en/a.md");
    store.writeVectors([
      { seq: ja[0]!, vector: unit([1, 0]) },
      { seq: en[0]!, vector: unit([1, 0.1]) },
    ]);
    const match = buildMatchQuery("検索")!;
    expect(store.keywordSearch(match, 10).length).toBe(2);
    expect(store.keywordSearch(match, 10, { metadata: { lang: "en" } }).map((h) => h.seq)).toEqual(en);
    expect(store.keywordSearch(match, 10, { metadata: { "author.name": "佐藤" } }).map((h) => h.seq)).toEqual(ja);
    expect(store.keywordSearch(match, 10, { metadata: { lang: ["en", "fr"] } }).map((h) => h.seq)).toEqual(en);
    expect(store.keywordSearch(match, 10, { sourcePrefix: "docs/ja/" }).map((h) => h.seq)).toEqual(ja);
    expect(store.vectorSearch(unit([1, 0]), 10, { metadata: { lang: "en" } }).map((h) => h.seq)).toEqual(en);
    expect(store.vectorSearch(unit([1, 0]), 10, { docIds: ["ja"] }).map((h) => h.seq)).toEqual(ja);
    expect(() => store.keywordSearch(match, 10, { metadata: { "bad key'": 1 } })).toThrow(/invalid filter key/);
    store.close();
  });

  it("over-fetches KNN when a filter matches too many chunks for an exact scan", () => {
    const store = SqliteStore.open(path);
    store.setEmbeddingInfo({ provider: "test", model: "m", dimensions: 8 });
    let seed = 42;
    const random = () => {
      seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0;
      return seed / 2 ** 32 - 0.5;
    };
    const vectors = new Map<number, Float32Array>();
    const even = new Set<number>();
    store.db.transaction(() => {
      for (let i = 0; i < 11_000; i++) {
        const [seq] = store.insertDocument({ id: `d${i}`, content: "x", contentHash: "h", metadata: { even: i % 2 === 0 } }, [
          { id: `c${i}`, idx: 0, text: "x", start: 0, end: 1 },
        ]);
        vectors.set(seq!, unit(Array.from({ length: 8 }, random)));
        if (i % 2 === 0) even.add(seq!);
      }
    })();
    store.writeVectors([...vectors].map(([seq, vector]) => ({ seq, vector })));
    const query = unit(Array.from({ length: 8 }, random));
    const cosine = (v: Float32Array) => 1 - v.reduce((acc, x, i) => acc + x * query[i]!, 0);
    const expected = [...even].sort((a, b) => cosine(vectors.get(a)!) - cosine(vectors.get(b)!)).slice(0, 5);
    const hits = store.vectorSearch(query, 5, { metadata: { even: true } });
    expect(hits.map((h) => h.seq)).toEqual(expected);
    store.close();
  });
});

describe("buildMatchQuery", () => {
  it("quotes every term so FTS5 syntax in user text cannot break the query", () => {
    for (const hostile of ['"', "AND", "OR NOT", "0-dimensional", "col:umn", "3.5 ?", "(^*)", "NEAR(a b)"]) {
      const store = SqliteStore.open(":memory:");
      const match = buildMatchQuery(hostile);
      if (match !== null) expect(() => store.keywordSearch(match, 5)).not.toThrow();
      store.close();
    }
    expect(buildMatchQuery("   ")).toBeNull();
    expect(buildMatchQuery("?!")).toBeNull();
  });
});
