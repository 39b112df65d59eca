#!/usr/bin/env node
/**
 * Import speed of a large code folder, two builds of docdb against each other, measured in CPU
 * time (user + system of the `docdb import` process, from GNU time), because the machine may be
 * shared: runs alternate between the two builds, each into a fresh data folder, no embedding model.
 *
 *   pnpm build && node scripts/bench-import-code.mjs --before <docdb index.js of main> [--after apps/cli/dist/index.js]
 *                                                    [--dir <folder>] [--runs 5]
 *
 * --dir   the folder to import; by default a copy of the `src` folders of the packages installed
 *         in this repository's node_modules (node_modules/.pnpm/…/node_modules/<pkg>/src, each
 *         package once), made in a temporary folder: import never enters a folder named node_modules.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdtempSync, readdirSync, realpathSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const args = process.argv.slice(2);
const arg = (name, fallback) => (args.includes(name) ? args[args.indexOf(name) + 1] : fallback);
const before = arg("--before");
const after = resolve(arg("--after", join(ROOT, "apps/cli/dist/index.js")));
const runs = Number(arg("--runs", "5"));
if (!before) throw new Error("--before <path to the docdb index.js to compare with> is required");
if (!existsSync("/usr/bin/time")) throw new Error("needs GNU time at /usr/bin/time (apt-get install time)");

/** One copy of every installed package's src folder. */
function nodeModulesCorpus() {
  const target = mkdtempSync(join(tmpdir(), "docdb-code-corpus-"));
  const store = join(ROOT, "node_modules/.pnpm");
  const seen = new Set();
  for (const entry of readdirSync(store)) {
    const modules = join(store, entry, "node_modules");
    if (!existsSync(modules)) continue;
    for (const name of readdirSync(modules)) {
      const packages = name.startsWith("@") ? readdirSync(join(modules, name)).map((n) => join(name, n)) : [name];
      for (const pkg of packages) {
        const src = join(modules, pkg, "src");
        if (!existsSync(src) || !statSync(src).isDirectory()) continue;
        const real = realpathSync(src);
        if (seen.has(real)) continue;
        seen.add(real);
        cpSync(real, join(target, pkg.replaceAll("/", "__"), "src"), { recursive: true, dereference: true });
      }
    }
  }
  return target;
}

const made = arg("--dir") === undefined;
const dir = made ? nodeModulesCorpus() : resolve(arg("--dir"));

function importOnce(cli) {
  const data = mkdtempSync(join(tmpdir(), "docdb-bench-import-"));
  const env = { ...process.env, DOCDB_DATA_DIR: data, DOCDB_EMBEDDING: "none", DOCDB_MODEL_DOWNLOAD: "0", DOCDB_LOG_LEVEL: "warn" };
  try {
    execFileSync(process.execPath, [cli, "collection", "add", "-n", "code", "-s", dir, "-d", "code"], { env, stdio: "ignore" });
    const run = spawnSync("/usr/bin/time", ["-f", "TIME %U %S %e", process.execPath, cli, "import", "-n", "code", "--json"], {
      env,
      encoding: "utf8",
      maxBuffer: 256 * 1024 * 1024,
    });
    if (run.status !== 0) throw new Error(`import failed: ${run.stderr}`);
    const [user, system, wall] = (run.stderr.match(/TIME (\S+) (\S+) (\S+)/) ?? []).slice(1).map(Number);
    const summary = JSON.parse(run.stdout);
    return { cpu: user + system, wall, files: summary.files, chunks: summary.chunks };
  } finally {
    rmSync(data, { recursive: true, force: true });
  }
}

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};

const results = { before: [], after: [] };
try {
  for (let i = 0; i < runs; i++) {
    // Alternate which build goes first, so load changes on the machine fall on both alike.
    const order = i % 2 === 0 ? ["before", "after"] : ["after", "before"];
    for (const which of order) {
      const r = importOnce(which === "before" ? resolve(before) : after);
      results[which].push(r);
      process.stderr.write(`run ${i + 1} ${which}: ${r.cpu.toFixed(2)} s CPU, ${r.wall.toFixed(2)} s wall, ${r.chunks} chunks\n`);
    }
  }
} finally {
  if (made) rmSync(dir, { recursive: true, force: true });
}

const row = (name, list) =>
  `| ${name} | ${median(list.map((r) => r.cpu)).toFixed(2)} | ${list.map((r) => r.cpu.toFixed(2)).join(", ")} | ${median(list.map((r) => r.wall)).toFixed(2)} | ${list[0].files} | ${list[0].chunks} |`;
console.log(
  `${runs} interleaved runs each; folder: ${made ? "copy of node_modules/.pnpm/*/node_modules/*/src" : dir}; node ${process.version}`,
);
console.log("| build | CPU s (median) | CPU s (runs) | wall s (median) | files | chunks |");
console.log("|---|---:|---|---:|---:|---:|");
console.log(row(`before (${before})`, results.before));
console.log(row(`after (${after})`, results.after));
const ratio = median(results.after.map((r) => r.cpu)) / median(results.before.map((r) => r.cpu));
console.log(`after/before CPU: ${ratio.toFixed(2)}x (${ratio >= 1 ? "+" : ""}${((ratio - 1) * 100).toFixed(0)}%)`);
