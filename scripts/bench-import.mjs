#!/usr/bin/env node
/**
 * Import throughput of the built CLI on a generated folder, embedding excluded
 * (DOCDB_EMBEDDING=none: walking, reading, hashing, chunking, keyword indexing and SQLite
 * writes only). Runs a full import, a no-change update and an update after editing 5% of files.
 *
 *   pnpm build && pnpm bench:import [-- --files 2000 --keep]
 */
import { spawnSync } from "node:child_process";
import { appendFileSync, existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { generateCorpus } from "./generate-corpus.mjs";

const CLI = fileURLToPath(new URL("../apps/cli/dist/index.js", import.meta.url));
const args = process.argv.slice(2);
const files = Number(args[args.indexOf("--files") + 1] || 2000) || 2000;
const keep = args.includes("--keep");

if (!existsSync(CLI)) {
  process.stderr.write(`build first (pnpm build): ${CLI} is missing\n`);
  process.exit(1);
}

const root = mkdtempSync(join(tmpdir(), "docdb-bench-"));
const folder = join(root, "corpus");
const dataDir = join(root, "data");
const env = { ...process.env, DOCDB_EMBEDDING: "none", DOCDB_LOG_LEVEL: "warn" };

function docdb(...argv) {
  const started = performance.now();
  const run = spawnSync(process.execPath, [CLI, "--data-dir", dataDir, ...argv], { env, encoding: "utf8" });
  const wall = (performance.now() - started) / 1000;
  if (run.status !== 0) throw new Error(`docdb ${argv.join(" ")} failed (${run.status}):\n${run.stderr}`);
  return { stdout: run.stdout, wall };
}

function importRun(label, mode) {
  const { stdout, wall } = docdb("import", "-n", "bench", "--mode", mode, "--json");
  const s = JSON.parse(stdout);
  return {
    run: label,
    files: s.files,
    added: s.added,
    updated: s.updated,
    unchanged: s.unchanged,
    chunks: s.chunks,
    seconds: s.seconds,
    wall_seconds: Number(wall.toFixed(2)),
    files_per_s: Math.round(s.files / s.seconds),
    chunks_per_s: s.chunks > 0 ? Math.round(s.chunks / s.seconds) : 0,
  };
}

try {
  const generated = generateCorpus(folder, { files, seed: 1 });
  process.stderr.write(`generated ${generated.files} files, ${(generated.bytes / 1024 / 1024).toFixed(1)} MB in ${folder}\n`);
  docdb("collection", "add", "-n", "bench", "-d", "generated benchmark corpus", "-s", folder);

  const results = [importRun("full import", "new"), importRun("update, nothing changed", "update")];
  for (let i = 0; i < files; i += 20) {
    const ext = ["md", "ts", "py", "txt", "go", "rs", "java"];
    for (const e of ext) {
      const path = join(folder, `area${i % 8}`, `part${Math.floor(i / 8) % 16}`, `file${i}.${e}`);
      if (existsSync(path)) appendFileSync(path, "\n// edited for the benchmark\n");
    }
  }
  results.push(importRun("update, 5% edited", "update"));
  results.push(importRun("replace", "replace"));

  console.table(results);
  process.stdout.write(
    `${JSON.stringify({ node: process.version, cpus: (await import("node:os")).cpus().length, files, results }, null, 2)}\n`,
  );
} finally {
  if (keep) process.stderr.write(`kept ${root}\n`);
  else rmSync(root, { recursive: true, force: true });
}
