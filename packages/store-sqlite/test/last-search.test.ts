// The HNSW search's last answer (hnsw/delta.ts LastSearch): a second search for the same query
// that explores the same candidates takes its hits from the first, with the same answer a fresh
// connection gives; a wider search, another query or any write walks the graph again.
import type { Store } from "@docdb/store";
import { makeDocument, random, randomUnit } from "@docdb/store/contract-suite";
import { expect, it } from "vitest";
import { createSqliteEngine } from "../src/index.js";
import { storeFolder } from "./helpers/store-folder.js";

const DIMS = 16;
const folder = storeFolder("docdb-lastsearch-");

async function open(expansionSearch?: number): Promise<Store> {
  const engine = createSqliteEngine({
    dataDir: folder.dir,
    vectorIndex: { threshold: 1, ...(expansionSearch ? { expansionSearch } : {}) },
  });
  const store = await engine.openDatabase("vec", { create: true });
  folder.track(store);
  return store;
}

function docs(count: number, seed: number) {
  const next = random(seed);
  return Array.from({ length: count }, (_, i) => makeDocument([`passage ${i}`], {}, () => ({ vector: randomUnit(next, DIMS) })));
}

/** Counts the graph searches of a store's loaded index (usearch's own `search`, observed). */
function countGraphSearches(store: Store): { n: number } {
  const held = store as unknown as { vectors: { ann: { loaded?: { index: { search: (...a: unknown[]) => unknown } } } } };
  const index = held.vectors.ann.loaded?.index;
  if (!index) throw new Error("the index is not loaded");
  const counter = { n: 0 };
  const search = index.search.bind(index);
  index.search = (...a: unknown[]) => {
    counter.n++;
    return search(...a);
  };
  return counter;
}

const plain = (hits: { chunkId: string; distance: number }[]) => hits.map((h) => [h.chunkId, h.distance]);

it("answers a search for more hits of the same query from the last graph walk, as a fresh connection would", async () => {
  const a = await open();
  await a.setEmbeddingInfo({ provider: "p", model: "m", dimensions: DIMS });
  await a.writeDocuments(docs(300, 1));
  const next = random(5);
  await a.vectorSearch(randomUnit(next, DIMS), { limit: 1 });
  const walks = countGraphSearches(a);
  for (let i = 0; i < 5; i++) {
    const probe = randomUnit(next, DIMS);
    const ten = await a.vectorSearch(probe, { limit: 10, withChunks: true });
    const twenty = await a.vectorSearch(probe, { limit: 20, withChunks: 10 });
    expect(walks.n).toBe(i + 1);
    const fresh = await open();
    expect(plain(twenty)).toEqual(plain(await fresh.vectorSearch(probe, { limit: 20 })));
    expect(plain(twenty.slice(0, 10))).toEqual(plain(ten));
  }
  // The same query asking more than the walk kept (20), or another query, walks the graph.
  const probe = randomUnit(next, DIMS);
  await a.vectorSearch(probe, { limit: 10 });
  const before = walks.n;
  const forty = await a.vectorSearch(probe, { limit: 40 });
  expect(walks.n).toBe(before + 1);
  expect(plain(forty)).toEqual(plain(await (await open()).vectorSearch(probe, { limit: 40 })));
  await a.vectorSearch(randomUnit(next, DIMS), { limit: 10 });
  expect(walks.n).toBe(before + 2);
});

it("walks the graph again after a write, and never reuses past ef_search", async () => {
  const a = await open(12);
  await a.setEmbeddingInfo({ provider: "p", model: "m", dimensions: DIMS });
  await a.writeDocuments(docs(300, 2));
  const next = random(9);
  const probe = randomUnit(next, DIMS);
  await a.vectorSearch(probe, { limit: 10 });
  const walks = countGraphSearches(a);
  // ef_search 12: a search for 10 keeps 12, enough for one for 12; one for 20 explores 20
  // candidates, not 12, and walks the graph again.
  const twelve = await a.vectorSearch(probe, { limit: 12 });
  expect(walks.n).toBe(0);
  expect(plain(twelve)).toEqual(plain(await (await open(12)).vectorSearch(probe, { limit: 12 })));
  const twenty = await a.vectorSearch(probe, { limit: 20 });
  expect(walks.n).toBe(1);
  expect(plain(twenty)).toEqual(plain(await (await open(12)).vectorSearch(probe, { limit: 20 })));
  // A chunk written by another connection near the query is found: the kept answer is forgotten.
  const b = await open(12);
  await b.writeDocuments([makeDocument(["close by"], {}, () => ({ vector: probe }))]);
  const after = await a.vectorSearch(probe, { limit: 12 });
  expect(walks.n).toBe(2);
  expect(after[0]?.distance).toBeLessThan(1e-6);
  expect(plain(after)).toEqual(plain(await (await open(12)).vectorSearch(probe, { limit: 12 })));
});

it("below the index threshold, takes more hits of the same query from the last exact answer: no second scan, no vectors loaded", async () => {
  const engine = createSqliteEngine({ dataDir: folder.dir, vectorIndex: { threshold: 100_000 } });
  const a = await engine.openDatabase("vec", { create: true });
  folder.track(a);
  await a.setEmbeddingInfo({ provider: "p", model: "m", dimensions: DIMS });
  await a.writeDocuments(docs(120, 3));
  const ann = (a as unknown as { vectors: { ann: { exact?: unknown; exactSearchNow: (...x: unknown[]) => unknown } } }).vectors.ann;
  const next = random(31);
  const fresh = async (probe: Float32Array, limit: number) => {
    const other = await createSqliteEngine({ dataDir: folder.dir, vectorIndex: { threshold: 100_000 } }).openDatabase("vec");
    folder.track(other);
    return plain(await other.vectorSearch(probe, { limit }));
  };
  // A connection's first query scans with sqlite-vec; asking for more of it loads nothing.
  const probe = randomUnit(next, DIMS);
  const ten = await a.vectorSearch(probe, { limit: 10, withChunks: true });
  const twenty = await a.vectorSearch(probe, { limit: 20, withChunks: 10 });
  expect(ann.exact).toBeUndefined();
  expect(plain(twenty.slice(0, 10))).toEqual(plain(ten));
  expect(plain(twenty)).toEqual(await fresh(probe, 20));
  // Later queries scan the vectors in memory: once per query, not once per call.
  let scans = 0;
  const scan = ann.exactSearchNow.bind(ann);
  ann.exactSearchNow = (...x: unknown[]) => {
    scans++;
    return scan(...x);
  };
  const other = randomUnit(next, DIMS);
  await a.vectorSearch(other, { limit: 10 });
  const more = await a.vectorSearch(other, { limit: 20 });
  expect(scans).toBe(1);
  expect(plain(more)).toEqual(await fresh(other, 20));
  // More than the answer kept, or a write by another connection: scanned again.
  await a.vectorSearch(other, { limit: 40 });
  expect(scans).toBe(2);
  const b = await createSqliteEngine({ dataDir: folder.dir, vectorIndex: { threshold: 100_000 } }).openDatabase("vec");
  folder.track(b);
  await b.writeDocuments([makeDocument(["right here"], {}, () => ({ vector: other }))]);
  const after = await a.vectorSearch(other, { limit: 10 });
  expect(scans).toBe(3);
  expect(after[0]?.distance).toBeLessThan(1e-6);
});
