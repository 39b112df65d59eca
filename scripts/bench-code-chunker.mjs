#!/usr/bin/env node
/**
 * Code chunker speed, old against new, on the same files in one run: the line-pattern chunker
 * of an earlier commit (taken with `git show`, transpiled into a temporary folder, used only
 * here) and the tree-sitter one of the built package (packages/chunker/dist).
 *
 *   pnpm build && node scripts/bench-code-chunker.mjs [--dir node_modules] [--files 3000] [--old-ref <git ref>] [--size 700] [--overlap 100]
 *
 * Files: .ts/.tsx/.mts/.cts/.js/.jsx/.mjs/.cjs under --dir (symbolic links not followed, .d.ts,
 * minified files and files over 512 KB left out), sorted by path, the first --files of them.
 * Each chunker runs over all of them twice; the faster pass counts (the first also warms the JIT
 * and, for tree-sitter, loads the grammars, whose time is reported on its own).
 */
import { execFileSync } from "node:child_process";
import { lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { extname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const args = process.argv.slice(2);
const arg = (name, fallback) => (args.includes(name) ? args[args.indexOf(name) + 1] : fallback);
const dir = resolve(ROOT, arg("--dir", "node_modules"));
const maxFiles = Number(arg("--files", "3000"));
const size = Number(arg("--size", "700"));
const overlap = Number(arg("--overlap", "100"));
const git = (...argv) => execFileSync("git", argv, { cwd: ROOT, encoding: "utf8" }).trim();
const oldRef = arg("--old-ref", undefined) ?? git("merge-base", "HEAD", "main");

const LANGUAGES = {
  ".ts": "typescript",
  ".tsx": "typescript",
  ".mts": "typescript",
  ".cts": "typescript",
  ".js": "javascript",
  ".jsx": "javascript",
  ".mjs": "javascript",
  ".cjs": "javascript",
};

function walk(folder, out) {
  let entries;
  try {
    entries = readdirSync(folder, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  } catch {
    return;
  }
  for (const entry of entries) {
    if (out.length >= maxFiles) return;
    const path = join(folder, entry.name);
    if (entry.isDirectory()) walk(path, out);
    else if (entry.isFile() && LANGUAGES[extname(entry.name)] && !/\.d\.[mc]?ts$|\.min\.js$/.test(entry.name)) {
      if (lstatSync(path).size <= 512 * 1024) out.push(path);
    }
  }
}

/** The old chunker's sources at `oldRef`, transpiled to plain ES modules in a temporary folder. */
async function loadOldChunker() {
  const tmp = mkdtempSync(join(tmpdir(), "docdb-old-chunker-"));
  const srcDir = "packages/chunker/src";
  const files = git("ls-tree", "--name-only", `${oldRef}:${srcDir}`)
    .split("\n")
    .filter((f) => f.endsWith(".ts") && !f.endsWith(".test.ts"));
  mkdirSync(tmp, { recursive: true });
  for (const file of files) {
    const source = git("show", `${oldRef}:${srcDir}/${file}`);
    const { outputText } = ts.transpileModule(source, {
      compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
    });
    writeFileSync(join(tmp, file.replace(/\.ts$/, ".js")), outputText);
  }
  const module = await import(join(tmp, "code.js"));
  return { chunkCode: module.chunkCode, cleanup: () => rmSync(tmp, { recursive: true, force: true }) };
}

async function pass(chunk, inputs) {
  const started = performance.now();
  let chunks = 0;
  const fallbacks = {};
  for (const { text, language } of inputs) {
    const result = await chunk(text, { language, size, overlap });
    chunks += result.length;
    const fallback = result[0]?.fallback;
    if (fallback) fallbacks[fallback] = (fallbacks[fallback] ?? 0) + 1;
  }
  return { ms: performance.now() - started, chunks, fallbacks };
}

const paths = [];
walk(dir, paths);
const inputs = paths.map((path) => ({ path, text: readFileSync(path, "utf8"), language: LANGUAGES[extname(path)] }));
const bytes = inputs.reduce((n, i) => n + Buffer.byteLength(i.text), 0);

const old = await loadOldChunker();
const { chunkCode: newChunkCode } = await import(join(ROOT, "packages/chunker/dist/index.js"));

const loadStarted = performance.now();
await newChunkCode("const a = 1;\n", { language: "typescript" });
await newChunkCode("const a = 1;\n", { language: "tsx" });
await newChunkCode("const a = 1;\n", { language: "javascript" });
const grammarMs = performance.now() - loadStarted;

const results = {};
for (const [name, chunk] of [
  ["old (line patterns)", old.chunkCode],
  ["new (tree-sitter)", newChunkCode],
]) {
  const first = await pass(chunk, inputs);
  const second = await pass(chunk, inputs);
  results[name] = first.ms < second.ms ? first : second;
}
old.cleanup();

const head = git("rev-parse", "--short", "HEAD");
console.log(
  `${inputs.length} files (${(bytes / 1e6).toFixed(1)} MB) under ${relative(ROOT, dir) || "."}, size ${size}, overlap ${overlap}; old = ${oldRef.slice(0, 7)}, new = ${head}; node ${process.version}`,
);
console.log(`grammar load (typescript, tsx, javascript, first call): ${grammarMs.toFixed(0)} ms`);
console.log("| chunker | time (s) | files/s | MB/s | chunks | fallbacks |");
console.log("|---|---:|---:|---:|---:|---|");
for (const [name, r] of Object.entries(results)) {
  const seconds = r.ms / 1000;
  const fallbacks = Object.entries(r.fallbacks)
    .map(([k, v]) => `${k}: ${v}`)
    .join(", ");
  console.log(
    `| ${name} | ${seconds.toFixed(2)} | ${(inputs.length / seconds).toFixed(0)} | ${(bytes / 1e6 / seconds).toFixed(2)} | ${r.chunks} | ${fallbacks || "-"} |`,
  );
}
const [a, b] = Object.values(results);
console.log(`new/old time: ${(b.ms / a.ms).toFixed(2)}x`);
