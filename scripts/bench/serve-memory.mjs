// Serving memory of a vector database on its own: a fresh process opens the database, answers
// vector queries (approximate), keyword and hybrid ones, then `exact: true`, and reports its resident memory after each
// phase (RSS split into anonymous memory and mapped file pages, and the peak). The bench's own
// process holds the exact answers, so its RSS says nothing about docdb's.
//
//   node scripts/bench/serve-memory.mjs --data-dir DIR --name NAME --dims 384 --seed SIZE [--queries 100] [--warmup 5] [--core …/index.js]
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { clusteredVectors, queries } from "./data.mjs";
import { keywordIndexReady } from "./keyword-ready.mjs";
import { PrecomputedEmbeddings } from "./model.mjs";
import { percentile } from "./stats.mjs";

const SELF = fileURLToPath(import.meta.url);
const DEFAULT_CORE = fileURLToPath(new URL("../../packages/core/dist/index.js", import.meta.url));

/** RSS now (MB), its anonymous and file-backed parts, and the peak so far. */
function memory() {
  const status = readFileSync("/proc/self/status", "utf8");
  const kb = (key) => Number(status.match(new RegExp(`^${key}:\\s+(\\d+) kB`, "m"))?.[1] ?? Number.NaN) / 1024;
  return {
    rssMb: Math.round(kb("VmRSS")),
    anonMb: Math.round(kb("RssAnon")),
    fileMb: Math.round(kb("RssFile")),
    peakMb: Math.round(kb("VmHWM")),
  };
}

async function child({ dataDir, name, dims, seed, count, warmup = 5, core: corePath }) {
  const phases = { start: memory() };
  const core = await import(corePath);
  // Hybrid asks questions of its own (the second half): asked after the same question in keyword
  // mode, its keyword leg would reuse what that find computed (a phrase's matches).
  const asked = queries(2 * (count + 5), { seed: seed + 1 });
  const texts = asked.slice(0, count + 5);
  const hybridTexts = asked.slice(count + 5);
  const vectors = clusteredVectors(asked.length, dims, { seed: seed + 2 });
  const model = new PrecomputedEmbeddings({ dims, count: 0, at: () => undefined }, new Map(asked.map((t, i) => [t, vectors.at(i)])));
  model.modelId = `clustered-${dims}`;
  const docdb = core.openDocDB({ dataDir, embedding: model, logger: core.silentLogger() });
  const db = await docdb.database(name);
  phases.opened = memory();
  const find = (t, exact = false) => db.findSimilar({ query: t, mode: "vector", top_k: 10, merge: false, ...(exact ? { exact } : {}) });
  let t0 = performance.now();
  await find(texts[0]);
  const firstMs = performance.now() - t0;
  phases.firstQuery = memory();
  const times = [];
  for (const t of texts.slice(1)) {
    t0 = performance.now();
    await find(t);
    times.push(performance.now() - t0);
  }
  phases.queries = memory();
  // Keyword and hybrid finds too, once the keyword index is loaded (all but its positions read into memory).
  const keywordIndex = (await keywordIndexReady(db, { query: texts[0] })).state ?? "none";
  // Five other questions first, untimed, as find.mjs warms up: the code paths are compiled before
  // the timed questions, each of which is then asked for the first time.
  for (const t of warmup > 0 ? queries(warmup, { seed: seed + 3 }) : []) {
    for (const mode of ["keyword", "hybrid"]) await db.findSimilar({ query: t, mode, top_k: 10 });
  }
  const keywordTimes = [];
  const hybridTimes = [];
  // CPU time of the process per find too (steadier than wall time on a loaded machine; it counts
  // V8's compiler and collector threads as well).
  const cpu = { keyword: [], hybrid: [] };
  for (let i = 1; i < texts.length; i++) {
    for (const [mode, into, t] of [
      ["keyword", keywordTimes, texts[i]],
      ["hybrid", hybridTimes, hybridTexts[i]],
    ]) {
      const c0 = process.cpuUsage();
      t0 = performance.now();
      await db.findSimilar({ query: t, mode, top_k: 10 });
      into.push(performance.now() - t0);
      const c = process.cpuUsage(c0);
      cpu[mode].push((c.user + c.system) / 1000);
    }
  }
  phases.keyword = memory();
  t0 = performance.now();
  await find(texts[0], true);
  const exactFirstMs = performance.now() - t0;
  phases.exact = memory();
  const exactTimes = [];
  for (const t of texts.slice(1, 11)) {
    t0 = performance.now();
    await find(t, true);
    exactTimes.push(performance.now() - t0);
  }
  await docdb.close();
  return {
    phases,
    keywordIndex,
    firstQueryMs: firstMs,
    vector: { p50: percentile(times, 50), p95: percentile(times, 95) },
    keyword: {
      p50: percentile(keywordTimes, 50),
      p95: percentile(keywordTimes, 95),
      cpuP50: percentile(cpu.keyword, 50),
      cpuP95: percentile(cpu.keyword, 95),
    },
    hybrid: {
      p50: percentile(hybridTimes, 50),
      p95: percentile(hybridTimes, 95),
      cpuP50: percentile(cpu.hybrid, 50),
      cpuP95: percentile(cpu.hybrid, 95),
    },
    exactFirstMs,
    exact: { p50: percentile(exactTimes, 50) },
  };
}

/** Runs the measurement in a fresh process; its report. */
export function serveMemory({ dataDir, name, dims, seed, count, core = DEFAULT_CORE }) {
  const args = [SELF, "--data-dir", dataDir, "--name", name, "--dims", String(dims), "--seed", String(seed)];
  const out = execFileSync(process.execPath, [...args, "--queries", String(count), "--core", core], {
    encoding: "utf8",
    maxBuffer: 1 << 20,
  });
  return JSON.parse(out);
}

if (process.argv[1] === SELF) {
  const { values } = parseArgs({
    options: {
      "data-dir": { type: "string" },
      name: { type: "string" },
      dims: { type: "string", default: "384" },
      seed: { type: "string" },
      queries: { type: "string", default: "100" },
      warmup: { type: "string", default: "5" },
      core: { type: "string", default: DEFAULT_CORE },
    },
  });
  const report = await child({
    dataDir: values["data-dir"],
    name: values.name,
    dims: Number(values.dims),
    seed: Number(values.seed ?? 0),
    count: Number(values.queries),
    warmup: Number(values.warmup),
    core: values.core,
  });
  process.stdout.write(`${JSON.stringify(report)}\n`);
}
