#!/usr/bin/env node
/**
 * This checkout beside another one (e.g. the previous commit), in one process and one run:
 * ingest through `insertDocument` with precomputed vectors, then keyword searches, alternating
 * between the two builds in rounds so both meet the same machine state. CPU time (user +
 * system) is reported beside wall time, because other jobs on a shared machine distort wall time.
 *
 *   git worktree add /tmp/prev HEAD~1 && (cd /tmp/prev && pnpm install && pnpm build)
 *   pnpm build && node scripts/bench-compare.mjs --other /tmp/prev [--documents 1200] [--queries 300]
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { clusteredVectors, documents, queries } from "./bench/data.mjs";
import { PrecomputedEmbeddings } from "./bench/model.mjs";

const { values } = parseArgs({
  options: { other: { type: "string" }, documents: { type: "string", default: "1200" }, queries: { type: "string", default: "300" } },
});
if (!values.other) {
  process.stderr.write("usage: node scripts/bench-compare.mjs --other <checkout of another commit, built>\n");
  process.exit(2);
}
const trees = { other: resolve(values.other), this: fileURLToPath(new URL("..", import.meta.url)) };
const ROUNDS = 4;
const docs = [];
for (const d of documents({ seed: 5 })) {
  if (docs.length >= Number(values.documents)) break;
  docs.push(d);
}
const texts = queries(Number(values.queries), { seed: 9 });

const state = {};
for (const [name, dir] of Object.entries(trees)) {
  const core = await import(pathToFileURL(join(dir, "packages/core/dist/index.js")).href);
  const dataDir = mkdtempSync(join(tmpdir(), `docdb-compare-${name}-`));
  const docdb = core.openDocDB({
    dataDir,
    embedding: new PrecomputedEmbeddings(clusteredVectors(docs.length * 8, 384, { seed: 3 })),
    logger: core.silentLogger(),
  });
  // `await` also accepts the synchronous API of commits before the storage contract.
  state[name] = {
    dataDir,
    docdb,
    db: await docdb.database("compare", { create: true }),
    ingest: { cpu: 0, wall: 0, chunks: 0 },
    keyword: { cpu: 0, wall: 0 },
  };
}

async function measure(target, work) {
  const cpu0 = process.cpuUsage();
  const wall0 = performance.now();
  await work();
  const cpu = process.cpuUsage(cpu0);
  target.cpu += (cpu.user + cpu.system) / 1e6;
  target.wall += (performance.now() - wall0) / 1000;
}

const order = (round) => (round % 2 === 0 ? ["other", "this"] : ["this", "other"]);
const perRound = Math.ceil(docs.length / ROUNDS);
for (let round = 0; round < ROUNDS; round++) {
  for (const name of order(round)) {
    const s = state[name];
    await measure(s.ingest, async () => {
      for (const doc of docs.slice(round * perRound, (round + 1) * perRound))
        s.ingest.chunks += (await s.db.insertDocument(doc)).chunk_count;
    });
  }
}
const perQueryRound = Math.ceil(texts.length / ROUNDS);
for (let round = 0; round < ROUNDS; round++) {
  for (const name of order(round)) {
    const s = state[name];
    await measure(s.keyword, async () => {
      // Both spellings of top k: the contract's snake_case and the camelCase of older commits.
      for (const query of texts.slice(round * perQueryRound, (round + 1) * perQueryRound))
        await s.db.findSimilar({ query, mode: "keyword", top_k: 10, topK: 10 });
    });
  }
}
for (const s of Object.values(state)) {
  await s.docdb.close();
  rmSync(s.dataDir, { recursive: true, force: true });
}
const rows = Object.entries(state).map(([name, s]) => ({
  build: `${name} (${trees[name]})`,
  chunks: s.ingest.chunks,
  "ingest chunks/cpu-s": Math.round(s.ingest.chunks / s.ingest.cpu),
  "ingest chunks/s": Math.round(s.ingest.chunks / s.ingest.wall),
  "keyword cpu ms/query": +((s.keyword.cpu * 1000) / texts.length).toFixed(2),
  "keyword ms/query": +((s.keyword.wall * 1000) / texts.length).toFixed(2),
}));
console.table(rows);
const ratio = (key) => (rows[1][key] / rows[0][key]).toFixed(3);
console.log(`this / other: ingest per cpu-second ${ratio("ingest chunks/cpu-s")}, keyword cpu per query ${ratio("keyword cpu ms/query")}`);
