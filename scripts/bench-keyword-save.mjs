#!/usr/bin/env node
/**
 * The cost of saving the keyword index after a trickle of writes, for this checkout and another
 * built one, interleaved, each run in a fresh process on its own copy of a database:
 *
 *   node scripts/bench-keyword-save.mjs --dir DIR --name kw [--other /work/base6] [--more 400] [--repeat 2] [--dims 384] [--compact-after N]
 *
 * DIR/this and DIR/other each hold a copy of the database (`<name>.db`, `.db.keywords`, …), made by
 * hand once (a run writes to it: it grows by `--more` documents a run). A run opens the database,
 * waits until the keyword index is loaded, asks 20 finds, then inserts `--more` documents (bench/data.mjs,
 * more chunks than the 1,000 changes after which the index is saved) 10 at a time with a keyword
 * find after each, as a server taking a trickle of writes, and goes on finding until the index's
 * files record the save (`indexStatus().keyword.savedAt` changes). It reports the CPU and wall time
 * of that trickle, the slowest find, and the longest stall of the event loop meanwhile (perf_hooks
 * monitorEventLoopDelay). `--dims` gives the
 * inserted chunks vectors (a database made with a `clustered-<dims>` model, as bench.mjs makes).
 * With `--compact-after`, a run also reports resident memory before the trickle and its peak during
 * it (`--vector-finds N` asks N vector finds first), and `--more 0` only times opening: until the
 * keyword index itself answers (`load s`, with a delta file, after a compaction, or the log replayed).
 */
import { execFileSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { loadavg } from "node:os";
import { join, resolve } from "node:path";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { fileURLToPath, pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { clusteredVectors, documents, queries } from "./bench/data.mjs";
import { keywordIndexReady } from "./bench/keyword-ready.mjs";
import { PrecomputedEmbeddings } from "./bench/model.mjs";

const { values } = parseArgs({
  options: {
    dir: { type: "string" },
    name: { type: "string", default: "kw" },
    other: { type: "string" },
    more: { type: "string", default: "400" },
    repeat: { type: "string", default: "2" },
    dims: { type: "string" },
    child: { type: "string" },
    seed: { type: "string", default: "1" },
    "compact-after": { type: "string" },
    "vector-finds": { type: "string", default: "0" },
  },
});
const SELF = fileURLToPath(import.meta.url);
const THIS = fileURLToPath(new URL("..", import.meta.url));
const cpu = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e6;
};

/** Resident memory now and its peak (MB), from /proc (Linux); resetPeak() starts the peak afresh. */
function memory() {
  try {
    const status = readFileSync("/proc/self/status", "utf8");
    const mb = (key) => Math.round(Number(status.match(new RegExp(`^${key}:\\s+(\\d+) kB`, "m"))?.[1] ?? Number.NaN) / 1024);
    return { rss: mb("VmRSS"), anon: mb("RssAnon"), file: mb("RssFile"), peak: mb("VmHWM") };
  } catch {
    return { rss: Math.round(process.memoryUsage.rss() / 1e6) };
  }
}
function resetPeak() {
  try {
    writeFileSync("/proc/self/clear_refs", "5");
  } catch {
    // Not Linux, or not allowed: the peak then counts from the start.
  }
}

/**
 * `--compact-after N`: the store opened on its own (no core), its keyword index told to write a
 * compacted file once N rows changed (1: at every save), so a run times compaction rather than the
 * delta; builds without the option ignore it (and write the whole file at every save, as before).
 */
/** What both kinds of child report of the trickle: CPU and wall, the finds, the longest stall, the file. */
function trickleFigures({ spent, wall, finds, delay, after }) {
  return {
    "trickle cpu-s": spent.toFixed(2),
    "trickle wall-s": wall.toFixed(2),
    finds: finds.length,
    "first find ms": Math.round(finds[0]),
    "finds ms": Math.round(finds.reduce((a, b) => a + b, 0)),
    "slowest find ms": Math.round(Math.max(...finds)),
    "max stall ms": Math.round(delay.max / 1e6),
    "file MB": (after.bytes / 1e6).toFixed(1),
  };
}

async function storeChild({ root, dataDir, name, more, seed, compactAfter, dims, vectorFinds }) {
  const { createSqliteEngine } = await import(pathToFileURL(join(root, "packages/store-sqlite/dist/index.js")).href);
  const { buildKeywordQuery } = await import(pathToFileURL(join(root, "packages/analyzer/dist/index.js")).href);
  const texts = queries(60, { seed: 40 + seed });
  const engine = createSqliteEngine({ dataDir, keywordIndex: { compactAfterChanges: compactAfter } });
  const store = await engine.openDatabase(name);
  const find = (q) => store.keywordSearch(buildKeywordQuery(q), { limit: 10 });
  const c0 = cpu();
  const t0 = performance.now();
  // Until the keyword index itself answers (not FTS5 while it loads or catches up with the log): one
  // find starts the load, then the index is asked directly (no FTS5 find, whose CPU would be counted too).
  const own = buildKeywordQuery(texts[0]);
  await find(texts[0]);
  for (;;) {
    if (store.keywords.search(own, 10, undefined) !== undefined) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  const load = { s: (performance.now() - t0) / 1000, cpu: cpu() - c0 };
  for (const q of texts.slice(0, 20)) await find(q);
  // `--vector-finds N` (with --dims): vector finds first, so the HNSW index's pages are resident as in a server.
  if (vectorFinds > 0 && dims) {
    const vs = clusteredVectors(vectorFinds, dims, { seed: 3 });
    for (let i = 0; i < vectorFinds; i++) await store.vectorSearch(vs.at(i), { limit: 10 });
  }
  const settled = memory();
  resetPeak();
  // RSS sampled every 10 ms as well (the peak from /proc counts what sampling misses).
  let sampled = 0;
  const sampler = setInterval(() => {
    sampled = Math.max(sampled, process.memoryUsage.rss());
  }, 10);
  const writes = [];
  for (const d of documents({ seed: 1000 + seed })) {
    if (writes.length >= more) break;
    const id = `save-${seed}-${writes.length}`;
    const third = Math.ceil(d.text.length / 3);
    const chunks = [0, 1, 2].map((i) => ({
      id: `${id}-${i}`,
      idx: i,
      text: d.text.slice(i * third, (i + 1) * third),
      start: i * third,
      end: Math.min(d.text.length, (i + 1) * third),
    }));
    writes.push({ upsertByKey: true, document: { id, key: id, title: d.title, content: d.text, contentHash: id, metadata: {} }, chunks });
  }
  const before = store.keywords.status();
  const delay = monitorEventLoopDelay({ resolution: 5 });
  delay.enable();
  const c1 = cpu();
  const t1 = performance.now();
  const finds = [];
  let after = before;
  let added = 0;
  const timed = async (i) => {
    const t = performance.now();
    await find(texts[20 + (i % 40)]);
    finds.push(performance.now() - t);
    await new Promise((r) => setImmediate(r));
    after = store.keywords.status();
  };
  for (let at = 0; at < writes.length; at += 10) {
    await store.writeDocuments(writes.slice(at, at + 10));
    added += writes.slice(at, at + 10).length * 3;
    await timed(at / 10);
  }
  // Then a find every 20 ms until the save is recorded (a save in steps runs between them).
  for (let i = 0; more > 0 && performance.now() - t1 < 20 * 60_000; i++) {
    if (after.savedAt !== before.savedAt && after.backlog === 0) break;
    await new Promise((r) => setTimeout(r, 20));
    await timed(i);
  }
  const wall = (performance.now() - t1) / 1000;
  const spent = cpu() - c1;
  delay.disable();
  clearInterval(sampler);
  const end = memory();
  await engine.close();
  return {
    chunks: after.chunks,
    added,
    "load s": load.s.toFixed(1),
    "rss before MB": settled.rss,
    "anon/file before MB": `${settled.anon}/${settled.file}`,
    "rss peak MB": end.peak,
    "rss sampled max MB": Math.round(sampled / 2 ** 20),
    "rss after MB": end.rss,
    "anon/file after MB": `${end.anon}/${end.file}`,
    "load cpu-s": load.cpu.toFixed(1),
    ...trickleFigures({ spent, wall, finds, delay, after }),
  };
}

async function child({ root, dataDir, name, more, dims, seed, compactAfter, vectorFinds }) {
  if (compactAfter !== undefined) return storeChild({ root, dataDir, name, more, seed, compactAfter, dims, vectorFinds });
  const core = await import(pathToFileURL(join(root, "packages/core/dist/index.js")).href);
  const texts = queries(60, { seed: 40 + seed });
  let embedding = null;
  if (dims) {
    const qv = clusteredVectors(texts.length, dims, { seed: 3 });
    const pv = clusteredVectors(more * 20, dims, { seed: 100 + seed });
    embedding = new PrecomputedEmbeddings({ dims, count: more * 20, at: (i) => pv.at(i) }, new Map(texts.map((t, i) => [t, qv.at(i)])));
  }
  const docdb = core.openDocDB({ dataDir, embedding, logger: core.silentLogger() });
  const db = await docdb.database(name);
  const c0 = cpu();
  const ready = await keywordIndexReady(db, { query: texts[0] });
  const loadCpu = cpu() - c0;
  for (const q of texts.slice(0, 20)) await db.findSimilar({ query: q, mode: "keyword", top_k: 10 });
  const docs = [];
  for (const d of documents({ seed: 1000 + seed })) {
    if (docs.length >= more) break;
    docs.push({ ...d, key: `save-${seed}-${docs.length}` });
  }
  const before = (await db.indexStatus()).keyword;
  const delay = monitorEventLoopDelay({ resolution: 5 });
  delay.enable();
  const c1 = cpu();
  const t1 = performance.now();
  const finds = [];
  let added = 0;
  let after = before;
  const find = async (i) => {
    const t = performance.now();
    await db.findSimilar({ query: texts[20 + (i % 40)], mode: "keyword", top_k: 10 });
    finds.push(performance.now() - t);
    // As a server's requests arrive: through the event loop (timers and I/O run between finds).
    await new Promise((r) => setImmediate(r));
    after = (await db.indexStatus()).keyword;
  };
  // A trickle of writes: 10 documents (about 30 chunks) at a time, a find after each.
  for (let at = 0; at < docs.length; at += 10) {
    added += (await db.insertDocuments(docs.slice(at, at + 10))).chunks;
    await find(at / 10);
  }
  // Then a find every 20 ms until the save is recorded (a save in steps runs between them).
  for (let i = 0; performance.now() - t1 < 20 * 60_000; i++) {
    if (after.savedAt !== before.savedAt && after.backlog === 0) break;
    await new Promise((r) => setTimeout(r, 20));
    await find(i);
  }
  const wall = (performance.now() - t1) / 1000;
  const spent = cpu() - c1;
  delay.disable();
  await docdb.close();
  return {
    chunks: after.chunks,
    added,
    "load s": ready.seconds.toFixed(1),
    "load cpu-s": loadCpu.toFixed(1),
    ...trickleFigures({ spent, wall, finds, delay, after }),
    ...(after.deltaBytes !== undefined ? { "delta MB": (after.deltaBytes / 1e6).toFixed(2) } : {}),
  };
}

if (values.child) {
  const args = JSON.parse(values.child);
  process.stdout.write(`${JSON.stringify(await child(args))}\n`);
  process.exit(0);
}

const dir = resolve(values.dir ?? "");
const trees = [{ label: "this", root: THIS }];
if (values.other) trees.push({ label: "other", root: resolve(values.other) });
const rows = [];
let seed = Date.now() % 100000;
for (let round = 0; round < Number(values.repeat); round++) {
  for (const tree of trees) {
    const args = {
      root: tree.root,
      dataDir: join(dir, tree.label),
      name: values.name,
      more: Number(values.more),
      dims: values.dims ? Number(values.dims) : undefined,
      seed: seed++,
      compactAfter: values["compact-after"] === undefined ? undefined : Number(values["compact-after"]),
      vectorFinds: Number(values["vector-finds"]),
    };
    const out = execFileSync(process.execPath, ["--max-old-space-size=8192", SELF, "--child", JSON.stringify(args)], {
      encoding: "utf8",
      maxBuffer: 1 << 24,
      stdio: ["ignore", "pipe", "inherit"],
    });
    const row = { tree: tree.label, ...JSON.parse(out.trim().split("\n").pop()), load: loadavg()[0].toFixed(1) };
    rows.push(row);
    console.log(JSON.stringify(row));
  }
}
console.table(rows);
