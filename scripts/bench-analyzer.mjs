#!/usr/bin/env node
/**
 * Keyword analysis speed, two builds of @docdb/analyzer on the same text: every file under --dir
 * cut in 700-character pieces (about what a chunk is), analysed as the engines do when they index
 * (`analyzeForIndex`), twice each, the faster pass counted, CPU time of this process.
 *
 *   pnpm build && node scripts/bench-analyzer.mjs --before <main checkout>/packages/analyzer/dist/index.js [--dir <folder>]
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { extname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const args = process.argv.slice(2);
const arg = (name, fallback) => (args.includes(name) ? args[args.indexOf(name) + 1] : fallback);
const before = arg("--before");
if (!before) throw new Error("--before <path to another build's packages/analyzer/dist/index.js> is required");
const dir = resolve(arg("--dir", join(ROOT, "packages")));
const EXTENSIONS = new Set([".ts", ".tsx", ".js", ".mjs", ".py", ".go", ".rs", ".java", ".c", ".cc", ".cpp", ".h", ".md", ".txt"]);

const pieces = [];
(function walk(folder) {
  for (const entry of readdirSync(folder, { withFileTypes: true })) {
    const path = join(folder, entry.name);
    if (entry.isDirectory() && entry.name !== "node_modules" && entry.name !== "dist") walk(path);
    else if (entry.isFile() && EXTENSIONS.has(extname(entry.name)) && statSync(path).size < 1_000_000) {
      const text = readFileSync(path, "utf8");
      for (let i = 0; i < text.length; i += 700) pieces.push(text.slice(i, i + 700));
    }
  }
})(dir);

const cpu = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e6;
};

async function measure(path) {
  const { analyzeForIndex } = await import(resolve(path));
  let best = Number.POSITIVE_INFINITY;
  let terms = 0;
  for (let pass = 0; pass < 2; pass++) {
    const started = cpu();
    terms = 0;
    for (const piece of pieces) terms += analyzeForIndex(piece).split(" ").length;
    best = Math.min(best, cpu() - started);
  }
  return { seconds: best, terms };
}

const mb = pieces.reduce((n, p) => n + p.length, 0) / 1e6;
const old = await measure(before);
const current = await measure(join(ROOT, "packages/analyzer/dist/index.js"));
console.log(`${pieces.length} pieces of 700 characters (${mb.toFixed(1)} M characters) under ${dir}; node ${process.version}`);
console.log("| analyzer | CPU s | M characters/s | terms |");
console.log("|---|---:|---:|---:|");
console.log(`| before (${before}) | ${old.seconds.toFixed(2)} | ${(mb / old.seconds).toFixed(2)} | ${old.terms} |`);
console.log(`| after | ${current.seconds.toFixed(2)} | ${(mb / current.seconds).toFixed(2)} | ${current.terms} |`);
console.log(`after/before: ${(current.seconds / old.seconds).toFixed(2)}x`);
