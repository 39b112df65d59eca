#!/usr/bin/env node
// Vector `findSimilar` p50/p95 of this checkout beside other built checkouts, on one database kept
// by `pnpm bench --data-dir DIR`, interleaved in one process, with the raw floors on the same data.
//
//   node scripts/bench-vector-compare.mjs --data-dir DIR --size 10000 [--dims 384] [--queries 300] [--other ../prev]
//                                         [--mode vector|hybrid|keyword]
//
// Rows: without an index file, sqlite-vec's own KNN and usearch `exactSearch` over the vectors in
// memory (the SIMD floor); with one (`DIR/c<size>d<dims>.db.hnsw`), usearch on it (ef 128, mapped);
// and per checkout the engine's `vectorSearch` alone (top 10 with their chunks, the layer under
// find) and docdb's find in `--mode` (default vector); wall and CPU time (CPU time swings less on
// a loaded machine); then whether the checkouts answered the same (ids, order, scores).
import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { loadavg } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { clusteredVectors, queries } from "./bench/data.mjs";
import { PrecomputedEmbeddings } from "./bench/model.mjs";
import { percentile } from "./bench/stats.mjs";

const { values } = parseArgs({
  options: {
    "data-dir": { type: "string" },
    size: { type: "string", default: "10000" },
    dims: { type: "string", default: "384" },
    queries: { type: "string", default: "300" },
    other: { type: "string", multiple: true, default: [] },
    mode: { type: "string", default: "vector" },
  },
});
if (!values["data-dir"]) {
  process.stderr.write(
    "usage: node scripts/bench-vector-compare.mjs --data-dir DIR --size N [--other ../prev] (DIR from pnpm bench --data-dir)\n",
  );
  process.exit(2);
}
const dataDir = resolve(values["data-dir"]);
const dims = Number(values.dims);
const size = Number(values.size);
const name = `c${size}d${dims}`;
if (!existsSync(join(dataDir, `${name}.db`))) {
  process.stderr.write(
    `${join(dataDir, `${name}.db`)} is missing: build it with pnpm bench --sizes ${size} --dims ${dims} --data-dir ${dataDir}\n`,
  );
  process.exit(2);
}
const here = fileURLToPath(new URL("..", import.meta.url));
const requireStore = createRequire(join(here, "packages/store-sqlite/package.json"));
const Database = requireStore("better-sqlite3");
const usearch = requireStore("usearch");
const TOP_K = 10;
const WARMUP = 5;

// The queries and vectors `pnpm bench` times on this database (its seed is the size).
const texts = queries(Number(values.queries) + WARMUP, { seed: size + 1 });
const vectors = clusteredVectors(texts.length, dims, { seed: size + 2 });
const byText = new Map(texts.map((t, i) => [t, vectors.at(i)]));

const raw = new Database(join(dataDir, `${name}.db`), { readonly: true });
requireStore("sqlite-vec").load(raw);
const knn = raw.prepare("SELECT rowid, distance FROM chunks_vec WHERE embedding MATCH ? AND k = ? ORDER BY distance");
const rows = raw.prepare("SELECT embedding FROM chunks_vec").pluck().all();
const matrix = new Float32Array(rows.length * dims);
for (const [i, blob] of rows.entries()) new Uint8Array(matrix.buffer, i * dims * 4, dims * 4).set(blob);
const blobOf = (v) => Buffer.from(v.buffer, v.byteOffset, v.byteLength);
const indexFile = join(dataDir, `${name}.db.hnsw`);
// The exact floors where docdb scans exactly (no index file); above the threshold they only take time.
const ops = existsSync(indexFile)
  ? {}
  : {
      "sqlite-vec KNN": (t) => knn.all(blobOf(byText.get(t)), TOP_K),
      "usearch exactSearch (floor)": (t) => usearch.exactSearch(matrix, byText.get(t).slice(), dims, TOP_K, "cos", 1),
    };
if (existsSync(indexFile)) {
  const header = JSON.parse(readFileSync(`${indexFile}.json`, "utf8"));
  const index = new usearch.Index({
    metric: "cos",
    dimensions: dims,
    quantization: header.quantization,
    connectivity: header.connectivity,
    expansion_add: header.expansionAdd,
    expansion_search: 128,
    multi: false,
  });
  // Mapped, as docdb serves it: every row reads the same pages of the same file (a loaded copy
  // would sit in memory of its own, colder in the CPU's caches than the pages docdb's rows share).
  index.view(indexFile);
  ops["usearch on the index file (ef 128)"] = (t) => index.search(byText.get(t).slice(), TOP_K, 1);
}
const answers = {};
for (const tree of [here, ...values.other.map((o) => resolve(o))]) {
  const core = await import(pathToFileURL(join(tree, "packages/core/dist/index.js")).href);
  const model = new PrecomputedEmbeddings({ dims, count: 0, at: () => undefined }, byText);
  model.modelId = `clustered-${dims}`;
  const db = await core.openDocDB({ dataDir, embedding: model, logger: core.silentLogger() }).database(name);
  const which = tree === here ? "this checkout" : tree;
  // The engine alone, on a connection of its own to the same file.
  const { SqliteStore } = await import(pathToFileURL(join(tree, "packages/store-sqlite/dist/index.js")).href);
  const store = await SqliteStore.open(name, join(dataDir, `${name}.db`), { busyTimeoutMs: 5000 });
  ops[`engine vectorSearch + chunks, ${which}`] = (t) =>
    store.vectorSearch(byText.get(t), { limit: TOP_K, withChunks: true }).then((hits) => ({
      results: hits.map((h) => ({ chunk_id: h.chunkId, score: h.distance })),
    }));
  // Hybrid beside its keyword leg alone: what fusing with the vector leg adds.
  if (values.mode === "hybrid") ops[`docdb find keyword, ${which}`] = (t) => db.findSimilar({ query: t, mode: "keyword", top_k: TOP_K });
  const label = `docdb find ${values.mode}, ${which}`;
  ops[label] = (t) => db.findSimilar({ query: t, mode: values.mode, top_k: TOP_K });
  answers[label] = [];
}
const names = Object.keys(ops);
const times = Object.fromEntries(names.map((n) => [n, []]));
const cpu = Object.fromEntries(names.map((n) => [n, []]));
for (const t of texts.slice(0, WARMUP)) for (const n of names) await ops[n](t);
// Interleaved in a rotating order, so every row meets the same machine state. Each row asks every
// query once, but rows ask different queries in the same round (row j is j × n / rows queries
// ahead): a row that asked right after another for the same vector would find the graph nodes
// the first one visited in the CPU's caches — docdb's rows share the mapped file's pages — and
// look faster than a query asked once.
const measured = texts.slice(WARMUP);
const step = Math.floor(measured.length / names.length);
for (let i = 0; i < measured.length; i++) {
  for (let j = 0; j < names.length; j++) {
    const n = names[(i + j) % names.length];
    const q = (i + ((i + j) % names.length) * step) % measured.length;
    const used = process.cpuUsage();
    const started = performance.now();
    const found = await ops[n](measured[q]);
    times[n].push(performance.now() - started);
    const spent = process.cpuUsage(used);
    cpu[n].push((spent.user + spent.system) / 1000);
    if (answers[n]) answers[n][q] = JSON.stringify(found.results.map((r) => [r.chunk_id, r.score]));
  }
}
console.log(
  `${name}: ${rows.length} vectors, ${texts.length - WARMUP} queries, load ${loadavg()
    .map((l) => l.toFixed(1))
    .join(" ")}`,
);
for (const n of names) {
  console.log(
    `${n}: p50 ${percentile(times[n], 50).toFixed(2)} ms, p95 ${percentile(times[n], 95).toFixed(2)} ms; CPU p50 ${percentile(cpu[n], 50).toFixed(2)} ms`,
  );
}
// The Must-show's ratio: each checkout's find against the raw floor of the same run.
const floor = names.find((n) => n.startsWith("usearch"));
for (const n of names.filter((m) => m.startsWith("docdb find"))) {
  const ratio = (series) => (percentile(series[n], 50) / percentile(series[floor], 50)).toFixed(2);
  console.log(`${n} / ${floor}: p50 ${ratio(times)}× wall, ${ratio(cpu)}× CPU`);
}
const [first, ...rest] = Object.values(answers);
for (const other of rest) {
  const same = other.filter((a, i) => a === first[i]).length;
  console.log(`same ids, order and scores as this checkout: ${same} / ${other.length}`);
}
process.exit(0);
