#!/usr/bin/env node
/**
 * The CPU time of the first keyword find after an ingest into a database above the keyword index's
 * threshold (the find catches the index up from keyword_log), and of the ingest itself, for this
 * checkout and another built one, interleaved, in one process each round:
 *
 *   pnpm build && node scripts/bench-keyword-catchup.mjs --other /work/base5 [--base 6500] [--more 2400] [--repeat 3] [--dir DIR]
 *
 * Each tree gets a base database once (`--base` documents of bench/data.mjs, seed 5, with its index
 * built and saved); each round copies it, loads the index with a find, ingests `--more` documents
 * (seed 9, keyword-only, analysis workers as by default), then times the first find until the index
 * answers again (polling its status). CPU is the whole process's (main thread and workers).
 */
import { cpSync, existsSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath, pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { documents } from "./bench/data.mjs";

const { values } = parseArgs({
  options: {
    other: { type: "string" },
    base: { type: "string", default: "6500" },
    more: { type: "string", default: "2400" },
    repeat: { type: "string", default: "3" },
    dir: { type: "string" },
  },
});
const THIS = fileURLToPath(new URL("..", import.meta.url));
const trees = [{ label: "this", root: THIS }];
if (values.other) trees.push({ label: "other", root: resolve(values.other) });
const work = values.dir ? resolve(values.dir) : join(tmpdir(), "docdb-kw-catchup");
mkdirSync(work, { recursive: true });

function take(seed, count, prefix) {
  const out = [];
  for (const d of documents({ seed })) {
    if (out.length >= count) break;
    out.push({ ...d, key: `${prefix}${out.length}` });
  }
  return out;
}
const baseDocs = take(5, Number(values.base), "b");
const moreDocs = take(9, Number(values.more), "m");
const cpu = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e6;
};
const load = () => loadavg()[0].toFixed(1);

/** Finds until the keyword index answers (state ready); the CPU and wall seconds it took. */
async function firstFind(db) {
  const c0 = cpu();
  const t0 = performance.now();
  for (;;) {
    await db.findSimilar({ query: "index search", mode: "keyword", top_k: 10 });
    const state = (await db.indexStatus())?.keyword?.state;
    if (state === "ready") break;
    if (state === "none") throw new Error("the database is below the keyword index threshold: raise --base");
    await sleep(10);
  }
  return { cpu: cpu() - c0, wall: (performance.now() - t0) / 1000 };
}

async function open(tree, dataDir) {
  tree.core ??= await import(pathToFileURL(join(tree.root, "packages/core/dist/index.js")).href);
  const handle = tree.core.openDocDB({ dataDir, embedding: null, logger: tree.core.silentLogger() });
  return { handle, db: await handle.database("kw", { create: true }) };
}

for (const tree of trees) {
  tree.base = join(work, `${tree.label}-base-${values.base}`);
  if (existsSync(join(tree.base, "done"))) continue;
  rmSync(tree.base, { recursive: true, force: true });
  const { handle, db } = await open(tree, tree.base);
  const result = await db.insertDocuments(baseDocs);
  await firstFind(db);
  await handle.close();
  writeFileSync(join(tree.base, "done"), `${result.chunks}\n`);
  console.log(`${tree.label}: base database of ${result.chunks} chunks`);
}

const rows = [];
for (let round = 0; round < Number(values.repeat); round++) {
  for (const tree of trees) {
    const dataDir = join(work, `${tree.label}-run`);
    rmSync(dataDir, { recursive: true, force: true });
    cpSync(tree.base, dataDir, { recursive: true });
    const { handle, db } = await open(tree, dataDir);
    await firstFind(db); // loads the saved index
    const c0 = cpu();
    const t0 = performance.now();
    const result = await db.insertDocuments(moreDocs);
    const ingest = { cpu: cpu() - c0, wall: (performance.now() - t0) / 1000 };
    const find = await firstFind(db);
    await handle.close();
    rmSync(dataDir, { recursive: true, force: true });
    const row = {
      tree: tree.label,
      chunks: result.chunks,
      "ingest cpu-s": ingest.cpu.toFixed(2),
      "first find cpu-s": find.cpu.toFixed(2),
      "first find wall-s": find.wall.toFixed(2),
      "find µs/chunk": Math.round((find.cpu * 1e6) / result.chunks),
      "ingest+find cpu-s": (ingest.cpu + find.cpu).toFixed(2),
      load: load(),
    };
    rows.push(row);
    console.log(JSON.stringify(row));
  }
}
console.table(rows);
