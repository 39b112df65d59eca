// Times the HNSW graph's build alone on an existing bench database: `rebuildIndex`'s progress events
// (read, build, save) with wall and CPU seconds and the load average; exits before the keyword index's rebuild.
//
//   node scripts/bench-hnsw-build.mjs --data-dir DIR --name c1000000d384 [--dims 384]
import { loadavg } from "node:os";
import { parseArgs } from "node:util";
import { PrecomputedEmbeddings } from "./bench/model.mjs";

const { values } = parseArgs({
  options: { "data-dir": { type: "string" }, name: { type: "string" }, dims: { type: "string", default: "384" } },
});
if (!values["data-dir"] || !values.name) {
  process.stderr.write("usage: node scripts/bench-hnsw-build.mjs --data-dir DIR --name NAME [--dims 384]\n");
  process.exit(2);
}
const dims = Number(values.dims);
const core = await import(new URL("../packages/core/dist/index.js", import.meta.url).href);
// The bench's model name: the database's vectors were stored under it (no query is embedded here).
const model = new PrecomputedEmbeddings({ dims, count: 0, at: () => undefined }, new Map());
model.modelId = `clustered-${dims}`;
const docdb = core.openDocDB({ dataDir: values["data-dir"], embedding: model, logger: core.silentLogger() });
const db = await docdb.database(values.name);
const started = performance.now();
const cpu = process.cpuUsage();
const mark = (what) => {
  const used = process.cpuUsage(cpu);
  const line = {
    what,
    at: new Date().toISOString(),
    seconds: Number(((performance.now() - started) / 1000).toFixed(1)),
    cpuSeconds: Number(((used.user + used.system) / 1e6).toFixed(1)),
    load: loadavg().map((l) => Number(l.toFixed(2))),
  };
  console.log(JSON.stringify(line));
};
const ticks = setInterval(() => mark("running"), 60_000);
let phase = "";
await db.rebuildIndex({
  onProgress: (p) => {
    if (p.phase !== phase) mark(`${p.phase} starts`);
    phase = p.phase;
    if (p.phase === "save" && p.done === 1) {
      mark("graph written (the keyword index's rebuild, which follows, is not timed)");
      clearInterval(ticks);
      process.exit(0);
    }
  },
});
