#!/usr/bin/env node
/**
 * This checkout beside another one (e.g. the previous commit), in one process and one run:
 * ingest (with precomputed vectors, keyword-only, and one document at a time), then keyword
 * and vector searches (precomputed query vectors), alternating between the two builds in rounds so both meet the same machine state.
 * CPU time (user + system, all threads of the process) is reported beside wall time, because
 * other jobs on a shared machine distort wall time; read the CPU ratios.
 *
 *   git worktree add /tmp/prev HEAD~1 && (cd /tmp/prev && pnpm install && pnpm build)
 *   pnpm build && node scripts/bench-compare.mjs --other /tmp/prev [--documents 1200] [--queries 300] [--rounds 8]
 *                                               [--store postgres://…] [--corpus ../shared/eval]
 *
 * With `--corpus`, the documents are the eval sets' own (SciFact abstracts and JaQuAD passages,
 * alternating; `--documents` of them) instead of bench/data.mjs's generated ones.
 *
 * With `--store`, both builds write to that PostgreSQL server (databases compare_<build>_<path>,
 * dropped afterwards) instead of SQLite files; the server's work is then outside this process,
 * so read the wall-time ratios.
 *
 * Each round measures the two builds back to back on the same documents; the ratio of such a
 * pair is printed per round, and their median beside the ratio of the totals: on a loaded
 * machine a round that meets a burst of other work moves the totals, not the median.
 *
 * Ingest runs each build's best path: `insertDocuments` (batches per transaction) where the
 * build has it, else `insertDocument` in a loop (older builds; the output says which ran).
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { clusteredVectors, documents, queries } from "./bench/data.mjs";
import { keywordIndexReady } from "./bench/keyword-ready.mjs";
import { PrecomputedEmbeddings } from "./bench/model.mjs";

const { values } = parseArgs({
  options: {
    other: { type: "string" },
    documents: { type: "string", default: "1200" },
    queries: { type: "string", default: "300" },
    rounds: { type: "string", default: "8" },
    store: { type: "string" },
    corpus: { type: "string" },
  },
});
if (!values.other) {
  process.stderr.write("usage: node scripts/bench-compare.mjs --other <checkout of another commit, built>\n");
  process.exit(2);
}
const trees = { other: resolve(values.other), this: fileURLToPath(new URL("..", import.meta.url)) };
const ROUNDS = Number(values.rounds);
const DOCS = Number(values.documents);
if (!Number.isInteger(ROUNDS) || ROUNDS < 1 || !Number.isInteger(DOCS) || DOCS < ROUNDS) {
  process.stderr.write("--rounds must be a positive whole number and --documents at least --rounds\n");
  process.exit(2);
}
// A collection between measurements, so one build's garbage is not collected on the other's time.
setFlagsFromString("--expose-gc");
const gc = runInNewContext("gc");

const docs = [];
if (values.corpus) {
  // Real documents: the eval sets' SciFact abstracts and JaQuAD passages, alternating.
  const read = (set) =>
    readFileSync(join(values.corpus, set, "corpus.jsonl"), "utf8")
      .split("\n")
      .filter(Boolean)
      .map((line) => JSON.parse(line));
  const [english, japanese] = [read("scifact"), read("jaquad")];
  for (let i = 0; docs.length < DOCS && (i < english.length || i < japanese.length); i++) {
    for (const d of [english[i], japanese[i]]) if (d && docs.length < DOCS) docs.push({ title: d.title || undefined, text: d.text });
  }
} else {
  // Flat strings (the generator builds them by concatenation), as texts read from files or JSON are.
  for (const d of documents({ seed: 5 })) {
    if (docs.length >= DOCS) break;
    docs.push({ ...d, text: JSON.parse(JSON.stringify(d.text)) });
  }
}
const texts = queries(Number(values.queries), { seed: 9 });
const queryVectorSet = clusteredVectors(texts.length, 384, { seed: 11 });
const queryVectors = new Map(texts.map((text, i) => [text, queryVectorSet.at(i)]));

/** The ingest paths measured: each gets its own database in each build. */
const PATHS = [
  { key: "vectors", label: "precomputed vectors, best path", vectors: true, single: false },
  { key: "keyword", label: "keyword-only (no model), best path", vectors: false, single: false },
  { key: "single", label: "precomputed vectors, insertDocument one at a time", vectors: true, single: true },
];

const state = {};
for (const [name, dir] of Object.entries(trees)) {
  const core = await import(pathToFileURL(join(dir, "packages/core/dist/index.js")).href);
  const dataDir = mkdtempSync(join(tmpdir(), `docdb-compare-${name}-`));
  const open = (vectors) =>
    core.openDocDB({
      dataDir,
      ...(values.store ? { store: values.store } : {}),
      embedding: vectors ? new PrecomputedEmbeddings(clusteredVectors(docs.length * 8, 384, { seed: 3 }), queryVectors) : null,
      logger: core.silentLogger(),
    });
  const withVectors = open(true);
  const keywordOnly = open(false);
  // `await` also accepts the synchronous API of commits before the storage contract.
  const s = {
    dataDir,
    handles: [withVectors, keywordOnly],
    names: [],
    ingest: {},
    keyword: { cpu: 0, wall: 0 },
    vector: { cpu: 0, wall: 0 },
  };
  for (const p of PATHS) {
    const dbName = `compare_${name}_${p.key}`;
    const db = await (p.vectors ? withVectors : keywordOnly).database(dbName, { create: true });
    s.names.push({ handle: p.vectors ? withVectors : keywordOnly, dbName });
    const bulk = !p.single && typeof db.insertDocuments === "function";
    s.ingest[p.key] = { db, bulk, cpu: 0, wall: 0, chunks: 0, documents: 0 };
  }
  state[name] = s;
}

async function measure(target, work) {
  gc();
  const cpu0 = process.cpuUsage();
  const wall0 = performance.now();
  const chunks0 = target.chunks ?? 0;
  await work();
  const used = process.cpuUsage(cpu0);
  const cpu = (used.user + used.system) / 1e6;
  const wall = (performance.now() - wall0) / 1000;
  target.cpu += cpu;
  target.wall += wall;
  target.rounds ??= [];
  target.rounds.push({ cpu, wall, chunks: (target.chunks ?? 0) - chunks0 });
}

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};

async function ingestPart(target, part) {
  if (target.bulk) {
    const result = await target.db.insertDocuments(part);
    if (result.failed > 0) throw new Error(`${result.failed} documents failed`);
    target.chunks += result.chunks;
  } else {
    for (const doc of part) target.chunks += (await target.db.insertDocument(doc)).chunk_count;
  }
  target.documents += part.length;
}

const order = (round) => (round % 2 === 0 ? ["other", "this"] : ["this", "other"]);
const perRound = Math.ceil(docs.length / ROUNDS);
for (let round = 0; round < ROUNDS; round++) {
  const part = docs.slice(round * perRound, (round + 1) * perRound);
  for (const p of PATHS) {
    for (const name of order(round)) {
      const target = state[name].ingest[p.key];
      await measure(target, () => ingestPart(target, part));
    }
  }
}
// A build with a keyword index builds it in the background on the first keyword find: that
// one-time cost is reported apart, and the queries are timed with the index ready.
for (const [name, s] of Object.entries(state)) {
  const cpu = process.cpuUsage();
  const ready = await keywordIndexReady(s.ingest.vectors.db, { query: texts[0] });
  if (ready.state === "ready") {
    const used = process.cpuUsage(cpu);
    console.log(
      `keyword index of ${name}: built in ${ready.seconds.toFixed(2)} s (${((used.user + used.system) / 1e6).toFixed(2)} CPU-s, once)`,
    );
  }
}
const perQueryRound = Math.ceil(texts.length / ROUNDS);
for (let round = 0; round < ROUNDS; round++) {
  for (const name of order(round)) {
    const s = state[name];
    const db = s.ingest.vectors.db;
    await measure(s.keyword, async () => {
      // Both spellings of top k: the contract's snake_case and the camelCase of older commits.
      for (const query of texts.slice(round * perQueryRound, (round + 1) * perQueryRound))
        await db.findSimilar({ query, mode: "keyword", top_k: 10, topK: 10 });
    });
    await measure(s.vector, async () => {
      for (const query of texts.slice(round * perQueryRound, (round + 1) * perQueryRound))
        await db.findSimilar({ query, mode: "vector", top_k: 10, topK: 10 });
    });
  }
}
for (const s of Object.values(state)) {
  // On a server the databases would stay: drop them (SQLite files go with the folder).
  if (values.store) for (const { handle, dbName } of s.names) await handle.dropDatabase(dbName);
  for (const h of s.handles) await h.close();
  rmSync(s.dataDir, { recursive: true, force: true });
}

const load = loadavg()
  .map((x) => x.toFixed(1))
  .join(" ");
console.log(`${cpus()[0]?.model ?? "unknown CPU"}, ${cpus().length} cores, Node ${process.version}, load average after the run ${load}`);
console.log(
  `${docs.length} ${values.corpus ? "eval-set" : "generated"} documents per path, ${ROUNDS} rounds alternating the builds; ${texts.length} keyword queries; store: ${values.store ? "PostgreSQL (--store)" : "SQLite files"}`,
);
console.log("");
const rows = [];
for (const p of PATHS) {
  for (const name of ["other", "this"]) {
    const t = state[name].ingest[p.key];
    rows.push({
      path: p.label,
      build: name,
      ran: t.bulk ? "insertDocuments (batches)" : "insertDocument loop",
      chunks: t.chunks,
      "chunks/cpu-s": Math.round(t.chunks / t.cpu),
      "chunks/s": Math.round(t.chunks / t.wall),
      "docs/s": Math.round(t.documents / t.wall),
    });
  }
}
console.table(rows);
const perQuery = (part) =>
  Object.fromEntries(
    Object.entries(state).map(([name, s]) => [
      name,
      { cpu: (s[part].cpu * 1000) / texts.length, wall: (s[part].wall * 1000) / texts.length },
    ]),
  );
const keyword = perQuery("keyword");
const vector = perQuery("vector");
console.table(
  Object.keys(keyword).map((name) => ({
    build: `${name} (${trees[name]})`,
    "keyword cpu ms/query": +keyword[name].cpu.toFixed(2),
    "keyword ms/query": +keyword[name].wall.toFixed(2),
    "vector cpu ms/query": +vector[name].cpu.toFixed(2),
    "vector ms/query": +vector[name].wall.toFixed(2),
  })),
);
console.log("this / other (higher is faster for ingest; lower is faster for queries):");
for (const p of PATHS) {
  const a = state.other.ingest[p.key];
  const b = state.this.ingest[p.key];
  const cpu = b.chunks / b.cpu / (a.chunks / a.cpu);
  const wall = b.chunks / b.wall / (a.chunks / a.wall);
  // Per round: this build's rate over the other's, measured back to back.
  const pairs = a.rounds.map((ra, i) => {
    const rb = b.rounds[i];
    return { cpu: rb.chunks / rb.cpu / (ra.chunks / ra.cpu), wall: rb.chunks / rb.wall / (ra.chunks / ra.wall) };
  });
  const perRound = pairs.map((x) => x.cpu.toFixed(2)).join(" ");
  console.log(
    `  ingest, ${p.label}: ${cpu.toFixed(2)}× per CPU-second (median of rounds ${median(pairs.map((x) => x.cpu)).toFixed(2)}×: ${perRound}), ` +
      `${wall.toFixed(2)}× per second (wall; median ${median(pairs.map((x) => x.wall)).toFixed(2)}×)`,
  );
}
console.log(`  keyword query: ${(keyword.this.cpu / keyword.other.cpu).toFixed(3)}× CPU per query`);
console.log(`  vector query: ${(vector.this.cpu / vector.other.cpu).toFixed(3)}× CPU per query`);
