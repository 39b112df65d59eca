#!/usr/bin/env node
/**
 * The cost of saving the keyword index after a trickle of writes, for this checkout and another
 * built one, interleaved, each run in a fresh process on its own copy of a database:
 *
 *   node scripts/bench-keyword-save.mjs --dir DIR --name kw [--other /work/base6] [--more 400] [--repeat 2] [--dims 384]
 *
 * DIR/this and DIR/other each hold a copy of the database (`<name>.db`, `.db.keywords`, …), made by
 * hand once (a run writes to it: it grows by `--more` documents a run). A run opens the database,
 * waits until the keyword index is loaded, asks 20 finds, inserts `--more` documents (bench/data.mjs,
 * more than the 1,000 changes after which the index is saved), then asks keyword finds back to back
 * until the index file records the save (`indexStatus().keyword.savedAt` changes). It reports the
 * CPU and wall time from the first find after the insert until then, the slowest find, and the
 * longest stall of the event loop meanwhile (perf_hooks monitorEventLoopDelay). `--dims` gives the
 * inserted chunks vectors (a database made with a `clustered-<dims>` model, as bench.mjs makes).
 */
import { execFileSync } from "node:child_process";
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
  },
});
const SELF = fileURLToPath(import.meta.url);
const THIS = fileURLToPath(new URL("..", import.meta.url));
const cpu = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e6;
};

async function child({ root, dataDir, name, more, dims, seed }) {
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
  for (let i = 0; performance.now() - t1 < 20 * 60_000; i++) {
    if (after.savedAt !== before.savedAt && after.backlog === 0) break;
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
    "trickle cpu-s": spent.toFixed(2),
    "trickle wall-s": wall.toFixed(2),
    finds: finds.length,
    "first find ms": Math.round(finds[0]),
    "slowest find ms": Math.round(Math.max(...finds)),
    "max stall ms": Math.round(delay.max / 1e6),
    "file MB": (after.bytes / 1e6).toFixed(1),
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
