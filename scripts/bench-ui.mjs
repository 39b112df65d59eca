#!/usr/bin/env node
// The page's search speed as a person sees it: on a database of --chunks chunks (built once
// through docdb's bulk insert, synthetic Japanese/English/code text), the time from submitting a
// keyword query in the page to the results painted, measured inside Chromium, for --queries
// queries after a warm-up. Needs `pnpm build` and a system Chromium (DOCDB_CHROMIUM or PATH).
//
//   node scripts/bench-ui.mjs [--chunks 10000] [--queries 30] [--data-dir DIR] [--json]
//
// --data-dir keeps the database, and a later run with the same folder reuses it (100k chunks
// take minutes to build on 2 shared cores).
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { loadavg, tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { queries } from "./bench/data.mjs";
import { ingest } from "./bench/ingest.mjs";

const CORE = new URL("../packages/core/dist/index.js", import.meta.url);
const CLI = fileURLToPath(new URL("../apps/cli/dist/index.js", import.meta.url));
const requireCli = createRequire(new URL("../apps/cli/package.json", import.meta.url));

/** The machine's load, printed with the figures: these machines are shared. */
const load = () => loadavg()[0].toFixed(1);
const { values } = parseArgs({
  options: {
    chunks: { type: "string", default: "10000" },
    queries: { type: "string", default: "30" },
    "data-dir": { type: "string" },
    json: { type: "boolean", default: false },
  },
});
const chunks = Number(values.chunks);
const count = Number(values.queries);
const log = (line) => process.stderr.write(`${line}\n`);

function chromium() {
  if (process.env.DOCDB_CHROMIUM) return process.env.DOCDB_CHROMIUM;
  for (const dir of (process.env.PATH ?? "").split(delimiter)) {
    for (const name of ["chromium", "chromium-browser", "google-chrome"]) if (existsSync(join(dir, name))) return join(dir, name);
  }
  throw new Error("no Chromium found: apt-get install chromium, or set DOCDB_CHROMIUM");
}

function startUi(dataDir) {
  const child = spawn(process.execPath, [CLI, "--data-dir", dataDir, "ui", "--port", "0"], {
    env: { ...process.env, DOCDB_EMBEDDING: "none", DOCDB_LOG_LEVEL: "warn" },
    stdio: ["ignore", "ignore", "pipe"],
  });
  const lines = [];
  return new Promise((resolve, reject) => {
    child.once("exit", (code) => reject(new Error(`docdb ui exited with ${code}:\n${lines.join("\n")}`)));
    createInterface({ input: child.stderr }).on("line", (line) => {
      lines.push(line);
      const match = /docdb page at (\S+)/.exec(line);
      if (match) resolve({ url: match[1], child });
    });
  });
}

function stats(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
  return { median: at(0.5), p95: at(0.95), max: sorted.at(-1), mean: values.reduce((a, b) => a + b, 0) / values.length };
}

const temporary = values["data-dir"] === undefined;
const dataDir = values["data-dir"] ?? mkdtempSync(join(tmpdir(), "docdb-bench-ui-"));
const name = "vectors";
const core = await import(CORE);
let built = null;
if (!existsSync(join(dataDir, `${name}.db`))) {
  log(`building ${chunks} chunks in ${dataDir} …`);
  built = await ingest(core, { dataDir, name, chunks, dims: 64, seed: 7 });
  log(`built ${built.chunks} chunks (${built.documents} documents) in ${built.seconds.toFixed(1)} s`);
}
const ui = await startUi(dataDir);
const puppeteer = (await import(requireCli.resolve("puppeteer-core"))).default;
const browser = await puppeteer.launch({
  executablePath: chromium(),
  headless: true,
  args: ["--no-sandbox", "--disable-dev-shm-usage", "--lang=en-US"],
  defaultViewport: { width: 1280, height: 900 },
});
try {
  const page = await browser.newPage();
  await page.goto(ui.url);
  await page.waitForSelector("#query");
  await page.select("#mode", "keyword");
  const status = await page.evaluate(async () => (await (await fetch("/ui/api/databases/vectors")).json()).chunks);
  const run = async (query) => {
    await page.$eval("#query", (el) => {
      el.value = "";
    });
    await page.type("#query", query);
    const before = await page.$eval("#search", (el) => Number(el.getAttribute("data-answered")));
    await page.click("#run-search");
    await page.waitForFunction((n) => Number(document.querySelector("#search")?.getAttribute("data-answered")) > n, {}, before);
    return page.$eval("#search-took", (el) => ({
      renderMs: Number(el.getAttribute("data-render-ms")),
      serverMs: Number(el.getAttribute("data-took-ms")),
      results: document.querySelectorAll(".result").length,
    }));
  };
  const list = queries(count + 3, { seed: 21 }).map((q) => q.replace(/ q\d+$/, ""));
  for (const q of list.slice(0, 3)) await run(q);
  const measured = [];
  for (const q of list.slice(3)) measured.push(await run(q));
  const render = stats(measured.map((m) => m.renderMs));
  const server = stats(measured.map((m) => m.serverMs));
  const round = (o) => Object.fromEntries(Object.entries(o).map(([k, v]) => [k, Math.round(v * 10) / 10]));
  const result = {
    chunks: status,
    queries: measured.length,
    mean_results: measured.reduce((a, m) => a + m.results, 0) / measured.length,
    submit_to_painted_ms: round(render),
    server_search_ms: round(server),
    built,
  };
  if (values.json) console.log(JSON.stringify(result, null, 2));
  else {
    console.log(`load average ${load()}`);
    console.log(`page keyword search on ${status} chunks, ${measured.length} queries (mean ${result.mean_results.toFixed(1)} results):`);
    console.log(
      `  submit → results painted: median ${result.submit_to_painted_ms.median} ms, p95 ${result.submit_to_painted_ms.p95} ms, max ${result.submit_to_painted_ms.max} ms`,
    );
    console.log(`  of which the search on the server: median ${result.server_search_ms.median} ms, p95 ${result.server_search_ms.p95} ms`);
  }
} finally {
  await browser.close();
  ui.child.removeAllListeners("exit");
  ui.child.kill("SIGTERM");
  if (temporary) rmSync(dataDir, { recursive: true, force: true });
}
