// The vector find path's shortcuts: what a connection keeps while the database does not change
// (the model record, index settings, chunks seen alive and their rows) is forgotten on any write,
// from this connection or another; chunks are read only for the hits the caller reads.
import type { Store } from "@docdb/store";
import { makeDocument, random, randomUnit } from "@docdb/store/contract-suite";
import { expect, it } from "vitest";
import { createSqliteEngine } from "../src/index.js";
import { storeFolder } from "./helpers/store-folder.js";

const DIMS = 16;
const folder = storeFolder("docdb-vecpath-");

/** A connection of its own to one database (index from the first vector when `indexed`). */
async function open(indexed: boolean): Promise<Store> {
  const engine = createSqliteEngine({ dataDir: folder.dir, vectorIndex: { threshold: indexed ? 1 : 100_000 } });
  const store = await engine.openDatabase("vec", { create: true });
  folder.track(store);
  return store;
}

function docs(count: number, seed: number) {
  const next = random(seed);
  return Array.from({ length: count }, (_, i) =>
    makeDocument([`passage ${i}`, `more ${i}`], {}, () => ({ vector: randomUnit(next, DIMS) })),
  );
}

it("sees a model recorded by another connection at its next call", async () => {
  const a = await open(false);
  await a.setEmbeddingInfo({ provider: "p", model: "first", dimensions: DIMS });
  expect((await a.getEmbeddingInfo())?.model).toBe("first");
  const b = await open(false);
  await b.setEmbeddingInfo({ provider: "p", model: "second", dimensions: DIMS }, { replace: true });
  expect((await a.getEmbeddingInfo())?.model).toBe("second");
});

for (const indexed of [false, true]) {
  it(`reads chunks for the first hits asked for, and never returns a chunk deleted since the last query (${indexed ? "HNSW index" : "exact scan"})`, async () => {
    const a = await open(indexed);
    await a.setEmbeddingInfo({ provider: "p", model: "m", dimensions: DIMS });
    await a.writeDocuments(docs(60, 1));
    const next = random(7);
    for (let i = 0; i < 6; i++) {
      const probe = randomUnit(next, DIMS);
      // The first query of a connection below the threshold scans with sqlite-vec, the next ones in memory.
      const plain = await a.vectorSearch(probe, { limit: 12 });
      const all = await a.vectorSearch(probe, { limit: 12, withChunks: true });
      const some = await a.vectorSearch(probe, { limit: 12, withChunks: 3 });
      expect(all.map(({ chunk: _c, ...h }) => h)).toEqual(plain);
      expect(some.map(({ chunk: _c, ...h }) => h)).toEqual(plain);
      expect(all.every((h) => h.chunk !== undefined)).toBe(true);
      expect(some.map((h) => h.chunk !== undefined)).toEqual(plain.map((_, j) => j < 3));
      expect(some.slice(0, 3).map((h) => h.chunk)).toEqual(await a.chunkHits(plain.slice(0, 3).map((h) => h.chunkId)));
    }

    const probe = randomUnit(next, DIMS);
    const before = await a.vectorSearch(probe, { limit: 5, withChunks: true });
    const top = before[0]?.chunk;
    if (!top) throw new Error("no hit to delete");
    // Deleted by another connection: the kept knowledge that the chunk is there must not survive.
    const b = await open(indexed);
    await b.deleteDocuments([top.docId]);
    const after = await a.vectorSearch(probe, { limit: 5, withChunks: 2 });
    expect(after.map((h) => h.chunkId)).not.toContain(top.id);
    expect(after.every((h) => h.chunk === undefined || h.chunk.docId !== top.docId)).toBe(true);
    // And by this connection.
    const second = after[0]?.chunk;
    if (!second) throw new Error("no second hit to delete");
    await a.deleteDocuments([second.docId]);
    const last = await a.vectorSearch(probe, { limit: 5, withChunks: true });
    expect(last.map((h) => h.chunk?.docId)).not.toContain(second.docId);
  });
}

it("reads the rows of the hits a find reads with the check that they are there, and another connection's delete between two finds is seen", async () => {
  const a = await open(true);
  await a.setEmbeddingInfo({ provider: "p", model: "m", dimensions: DIMS });
  await a.writeDocuments(docs(40, 3));
  const probe = randomUnit(random(11), DIMS);
  const first = await a.vectorSearch(probe, { limit: 8, withChunks: 4 });
  const b = await open(true);
  // Deleted by the other connection: one whose row the first find read, one it only checked.
  const docOf = new Map((await a.chunkHits(first.map((h) => h.chunkId))).map((c) => [c.id, c.docId]));
  const deleted = [first[1], first[5]].map((h) => docOf.get(h?.chunkId ?? "") ?? "missing");
  await b.deleteDocuments(deleted);
  const second = await a.vectorSearch(probe, { limit: 8, withChunks: 4 });
  const fresh = await (await open(true)).vectorSearch(probe, { limit: 8, withChunks: 4 });
  expect(second).toEqual(fresh);
  expect(second).toHaveLength(8);
  expect(second.filter((h) => deleted.includes(docOf.get(h.chunkId) ?? ""))).toEqual([]);
  expect(second.map((h) => h.chunk !== undefined)).toEqual([true, true, true, true, false, false, false, false]);
});

it("loses no hit when the rows kept between writes pass their bound", async () => {
  const a = await open(false);
  await a.setEmbeddingInfo({ provider: "p", model: "m", dimensions: DIMS });
  await a.writeDocuments(docs(2100, 5));
  const next = random(13);
  // 4,090 rows kept, then a find over every chunk: past the bound of 4,096 kept rows.
  expect(await a.vectorSearch(randomUnit(next, DIMS), { limit: 4090, withChunks: true })).toHaveLength(4090);
  const all = await a.vectorSearch(randomUnit(next, DIMS), { limit: 4200, withChunks: true });
  expect(all).toHaveLength(4200);
  expect(all.every((h) => h.chunk?.id === h.chunkId)).toBe(true);
}, 120_000);

it("gives a hit's chunk, read as values by the vector path, every field chunkHits gives it", async () => {
  const a = await open(true);
  await a.setEmbeddingInfo({ provider: "p", model: "m", dimensions: DIMS });
  const next = random(17);
  const full = makeDocument(
    ["export function retryCharge() {}", "class PaymentService {}"],
    { source: "src/pay.ts", metadata: { lang: "ts", n: 2 } },
    (i) => ({
      heading: `pay > part ${i}`,
      lineStart: 10 * i + 1,
      lineEnd: 10 * i + 9,
      language: "typescript",
      symbol: i === 0 ? "retryCharge" : "PaymentService",
      symbolKind: i === 0 ? "function" : "class",
      symbols: [{ symbol: i === 0 ? "retryCharge" : "PaymentService", kind: i === 0 ? "function" : "class" }],
      codeFallback: i === 1 ? "syntax_error" : null,
      doc: `documentation ${i}`,
      locator: { page: i + 1, section: "two" },
      vector: randomUnit(next, DIMS),
    }),
  );
  await a.writeDocuments([full, ...docs(10, 19)]);
  for (const chunk of full.chunks) {
    const [hit] = await a.vectorSearch(chunk.vector as Float32Array, { limit: 1, withChunks: true });
    expect(hit?.chunkId).toBe(chunk.id);
    const [expected] = await a.chunkHits([chunk.id]);
    expect(expected?.symbols).toHaveLength(1);
    expect(hit?.chunk).toStrictEqual(expected);
    expect(Object.keys(hit?.chunk ?? {})).toEqual(Object.keys(expected ?? {}));
  }
});

it("reads the same hits and rows whether their seqs go into the statement as parameters (up to 32) or as one JSON array", async () => {
  const a = await open(true);
  await a.setEmbeddingInfo({ provider: "p", model: "m", dimensions: DIMS });
  await a.writeDocuments(docs(40, 23));
  const probe = randomUnit(random(29), DIMS);
  for (const limit of [1, 32, 33, 80]) {
    // A connection of its own each time: nothing known yet, every hit checked and read by one
    // statement. Exact, so that all 80 chunks are found (a graph this small may miss a node).
    const hits = await (await open(true)).vectorSearch(probe, { limit, withChunks: true, exact: true });
    expect(hits).toHaveLength(limit);
    expect(hits.map((h) => h.chunk)).toEqual(await a.chunkHits(hits.map((h) => h.chunkId)));
    const ids = await (await open(true)).vectorSearch(probe, { limit, exact: true });
    expect(ids.map((h) => h.chunkId)).toEqual(hits.map((h) => h.chunkId));
  }
});
