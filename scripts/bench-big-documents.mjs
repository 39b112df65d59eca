#!/usr/bin/env node
// Reads that show a document's fields (a find's hits, a filter, a listing) on a database holding
// books-sized documents beside small ones, this checkout beside other built checkouts, interleaved.
//
//   node scripts/bench-big-documents.mjs --data-dir DIR [--big 50] [--mb 1.5] [--small 2000] [--dims 64]
//                                        [--queries 200] [--other ../base5]
//
// The first run writes DIR/big.db with the LAST checkout named (the oldest schema), then each
// checkout gets a copy of its own (DIR/big<i>.db; a newer one migrates its copy when it opens).
// Rows per checkout: vector find, vector find filtered on the collection and on one book's metadata,
// keyword find, a page of
// 20 documents listed, and the engine's `chunkHits` for 10 chunks of big documents; wall and CPU.
import { copyFileSync, existsSync, readdirSync } from "node:fs";
import { loadavg } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { clusteredVectors, documents, queries } from "./bench/data.mjs";
import { PrecomputedEmbeddings } from "./bench/model.mjs";
import { percentile } from "./bench/stats.mjs";

const { values } = parseArgs({
  options: {
    "data-dir": { type: "string" },
    big: { type: "string", default: "50" },
    mb: { type: "string", default: "1.5" },
    small: { type: "string", default: "2000" },
    dims: { type: "string", default: "64" },
    queries: { type: "string", default: "200" },
    other: { type: "string", multiple: true, default: [] },
  },
});
if (!values["data-dir"]) {
  process.stderr.write("usage: node scripts/bench-big-documents.mjs --data-dir DIR [--other ../base5]\n");
  process.exit(2);
}
const dataDir = resolve(values["data-dir"]);
const dims = Number(values.dims);
const here = fileURLToPath(new URL("..", import.meta.url));
const trees = [here, ...values.other.map((o) => resolve(o))];
const TOP_K = 10;
const WARMUP = 5;
const texts = queries(Number(values.queries) + WARMUP, { seed: 29 });
const queryVectors = clusteredVectors(texts.length, dims, { seed: 31 });
const byText = new Map(texts.map((t, i) => [t, queryVectors.at(i)]));
const open = async (tree, name, embedding, create = false) => {
  const core = await import(pathToFileURL(join(tree, "packages/core/dist/index.js")).href);
  const docdb = core.openDocDB({ dataDir, embedding, logger: core.silentLogger(), maxTextLength: 4_000_000 });
  if (create) await docdb.createDatabase(name);
  return { core, db: await docdb.database(name) };
};

if (!existsSync(join(dataDir, "big.db"))) {
  // Books: 1–2× `--mb` MB of text each (about half Japanese, 3 bytes a character), one every
  // `small / big` small documents, so that listings meet them too.
  const bigCount = Number(values.big);
  const smallCount = Number(values.small);
  const bigBytes = Number(values.mb) * 1e6;
  const small = documents({ seed: 37 });
  const prose = documents({ seed: 41, length: 20_000 });
  const passages = clusteredVectors(Math.ceil((bigCount * bigBytes * 1.5) / 700 + smallCount * 4 + 1000), dims, { seed: 43 });
  const model = new PrecomputedEmbeddings(passages, byText);
  const { db } = await open(trees.at(-1), "big", model, true);
  const every = Math.max(1, Math.floor(smallCount / bigCount));
  let bigs = 0;
  const started = performance.now();
  for (let n = 0; n < smallCount + bigCount; n++) {
    if (n % (every + 1) === 0 && bigs < bigCount) {
      const target = bigBytes * (1 + (bigs % 5) / 4);
      const parts = [];
      let bytes = 0;
      while (bytes < target) {
        const part = prose.next().value.text;
        parts.push(part);
        bytes += Buffer.byteLength(part);
      }
      await db.insertDocument({ text: parts.join("\n\n"), title: `book ${bigs}`, collection: "lib", metadata: { kind: "book", n: bigs } });
      bigs++;
    } else {
      const d = small.next().value;
      await db.insertDocument({ ...d, collection: "lib" });
    }
  }
  console.log(`wrote ${join(dataDir, "big.db")} in ${((performance.now() - started) / 1000).toFixed(0)} s (${model.next} chunks)`);
}
for (const [i] of trees.entries()) {
  if (existsSync(join(dataDir, `big${i}.db`))) continue;
  for (const file of readdirSync(dataDir).filter((f) => f.startsWith("big.db")))
    copyFileSync(join(dataDir, file), join(dataDir, file.replace(/^big\.db/, `big${i}.db`)));
}

const ops = {};
const answers = {};
const bigShare = {};
for (const [i, tree] of trees.entries()) {
  const which = i === 0 ? "this checkout" : tree;
  const model = new PrecomputedEmbeddings({ dims, count: 0, at: () => undefined }, byText);
  model.modelId = `clustered-${dims}`;
  const { db } = await open(tree, `big${i}`, model);
  const { SqliteStore } = await import(pathToFileURL(join(tree, "packages/store-sqlite/dist/index.js")).href);
  const store = await SqliteStore.open(`big${i}`, join(dataDir, `big${i}.db`), { busyTimeoutMs: 5000 });
  const total = (await db.listDocuments({ limit: 1 })).total ?? Number(values.big) + Number(values.small);
  const find = (mode, filter) => (t) => db.findSimilar({ query: t, mode, top_k: TOP_K, ...(filter ? { filter } : {}) });
  const label = (what) => `${what}, ${which}`;
  ops[label("vector find")] = find("vector");
  ops[label("vector find, filter collection")] = find("vector", { collection: "lib" });
  ops[label("vector find, filter metadata (one book)")] = find("vector", { n: 7, kind: "book" });
  ops[label("keyword find")] = find("keyword");
  let page = 0;
  ops[label("list 20 documents")] = async () => {
    page = (page + 7) % Math.max(1, Math.floor(total / 20));
    const listed = await db.listDocuments({ limit: 20, offset: page * 20 });
    return { results: (listed.documents ?? listed).map((d) => ({ chunk_id: d.doc_id ?? d.id, score: 0 })) };
  };
  // Chunk hits read by id, as core does for keyword hits: the chunks of the query's vector hits.
  const hitIds = new Map();
  ops[label("engine chunkHits (10 ids)")] = async (t) => {
    if (!hitIds.has(t))
      hitIds.set(
        t,
        (await store.vectorSearch(byText.get(t), { limit: TOP_K })).map((h) => h.chunkId),
      );
    const hits = await store.chunkHits(hitIds.get(t));
    return { results: hits.map((h) => ({ chunk_id: h.id, score: 0 })) };
  };
  for (const n of Object.keys(ops).filter((k) => k.endsWith(which))) answers[n] = [];
  bigShare[which] = async () => {
    let inBig = 0;
    let all = 0;
    for (const t of texts.slice(0, 50)) {
      for (const r of (await db.findSimilar({ query: t, mode: "vector", top_k: TOP_K })).results) {
        all++;
        if (String(r.title ?? "").startsWith("book ")) inBig++;
      }
    }
    return `${inBig} / ${all}`;
  };
}
for (const [which, share] of Object.entries(bigShare)) console.log(`vector hits in big documents, ${which}: ${await share()}`);
const names = Object.keys(ops);
const times = Object.fromEntries(names.map((n) => [n, []]));
const cpu = Object.fromEntries(names.map((n) => [n, []]));
for (const t of texts.slice(0, WARMUP)) for (const n of names) await ops[n](t);
// Interleaved in a rotating order (see bench-vector-compare.mjs): every row meets the same machine.
const measured = texts.slice(WARMUP);
for (let i = 0; i < measured.length; i++) {
  for (let j = 0; j < names.length; j++) {
    const n = names[(i + j) % names.length];
    const used = process.cpuUsage();
    const started = performance.now();
    const found = await ops[n](measured[i]);
    times[n].push(performance.now() - started);
    const spent = process.cpuUsage(used);
    cpu[n].push((spent.user + spent.system) / 1000);
    answers[n][i] = JSON.stringify(found.results.map((r) => [r.chunk_id, r.score]));
  }
}
console.log(
  `${measured.length} queries, load ${loadavg()
    .map((l) => l.toFixed(1))
    .join(" ")}`,
);
for (const n of names) {
  console.log(
    `${n}: p50 ${percentile(times[n], 50).toFixed(2)} ms, p95 ${percentile(times[n], 95).toFixed(2)} ms; CPU p50 ${percentile(cpu[n], 50).toFixed(2)} ms`,
  );
}
const mine = names.filter((n) => n.endsWith("this checkout"));
for (const [i, tree] of trees.entries()) {
  if (i === 0) continue;
  const same = mine.map((n) => {
    const other = answers[n.replace(/this checkout$/, tree)];
    return `${n.replace(/, this checkout$/, "")} ${other.filter((a, q) => a === answers[n][q]).length}/${other.length}`;
  });
  console.log(`same answers as ${tree}: ${same.join("; ")}`);
}
process.exit(0);
