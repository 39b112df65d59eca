#!/usr/bin/env node
/**
 * The first keyword find on a database without its keyword index file: the index is built from the
 * chunk text (analysis, then every row added, then compacted and saved) while FTS5 answers; timed
 * until the index is ready. This checkout and another built one, alternating, on copies of one
 * database file (e.g. the one `pnpm bench --keyword-compare --data-dir DIR` keeps in DIR/docdb/kw.db):
 *
 *   pnpm build && node scripts/bench-keyword-build.mjs --db DIR/docdb/kw.db --other ../prev [--repeat 2]
 *
 * CPU is the whole process's (main thread and the analysis workers); wall is until `index status`
 * says ready.
 */
import { copyFileSync, mkdtempSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { keywordIndexReady } from "./bench/keyword-ready.mjs";

const { values } = parseArgs({
  options: { db: { type: "string" }, other: { type: "string" }, repeat: { type: "string", default: "2" } },
});
if (!values.db) {
  process.stderr.write("usage: node scripts/bench-keyword-build.mjs --db FILE.db [--other CHECKOUT] [--repeat N]\n");
  process.exit(2);
}
const trees = [{ label: "this", root: fileURLToPath(new URL("..", import.meta.url)) }];
if (values.other) trees.push({ label: "other", root: resolve(values.other) });
const rows = [];
for (let round = 0; round < Number(values.repeat); round++) {
  for (const tree of round % 2 === 0 ? trees : [...trees].reverse()) {
    tree.core ??= await import(pathToFileURL(join(tree.root, "packages/core/dist/index.js")).href);
    const dataDir = mkdtempSync(join(tmpdir(), "docdb-kw-build-"));
    try {
      copyFileSync(resolve(values.db), join(dataDir, "kw.db"));
      const handle = tree.core.openDocDB({ dataDir, embedding: null, logger: tree.core.silentLogger() });
      const db = await handle.database("kw");
      const chunks = (await db.status()).chunks;
      const u0 = process.cpuUsage();
      const ready = await keywordIndexReady(db, { query: "index search" });
      const u = process.cpuUsage(u0);
      await handle.close();
      const cpu = (u.user + u.system) / 1e6;
      const row = {
        tree: tree.label,
        chunks,
        "build wall-s": ready.seconds.toFixed(1),
        "CPU-s": cpu.toFixed(1),
        "µs CPU / chunk": Math.round((cpu * 1e6) / chunks),
        load: loadavg()[0].toFixed(1),
      };
      rows.push(row);
      console.log(JSON.stringify(row));
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  }
}
console.table(rows);
