#!/usr/bin/env node
/**
 * Import throughput of the built CLI on a generated folder, embedding excluded
 * (DOCDB_EMBEDDING=none: walking, reading, hashing, chunking, keyword indexing and SQLite
 * writes only). Runs a full import, a no-change update and an update after editing 5% of files.
 * With --mixed: a folder of documents instead (PDF, DOCX, PPTX, XLSX, HTML, CSV, Markdown; see
 * scripts/bench/mixed-documents.mjs), reported in files/s and pages/s as well.
 *
 *   pnpm build && pnpm bench:import [-- --files 2000 --keep]
 *   pnpm build && pnpm bench:import -- --mixed [--files 200]
 */
import { spawnSync } from "node:child_process";
import { appendFileSync, existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { generateMixedDocuments } from "./bench/mixed-documents.mjs";
import { generateCorpus } from "./generate-corpus.mjs";

const CLI = fileURLToPath(new URL("../apps/cli/dist/index.js", import.meta.url));
const args = process.argv.slice(2);
const mixed = args.includes("--mixed");
const defaultFiles = mixed ? 200 : 2000;
const files = (args.includes("--files") && Number(args[args.indexOf("--files") + 1])) || defaultFiles;
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
  if (mixed) await mixedRun();
  else await codeRun();
} finally {
  if (keep) process.stderr.write(`kept ${root}\n`);
  else rmSync(root, { recursive: true, force: true });
}

/** The mixed-format folder: one full import (extraction included), then a no-change update. */
async function mixedRun() {
  const made = await generateMixedDocuments(folder, { files, seed: 1 });
  process.stderr.write(
    `generated ${made.files} documents, ${made.pages} pages, ${(made.bytes / 1024 / 1024).toFixed(1)} MB in ${folder}\n`,
  );
  docdb("collection", "add", "-n", "bench", "-d", "mixed documents", "-s", folder);
  const rows = [];
  for (const [label, mode] of [
    ["full import", "new"],
    ["update, nothing changed", "update"],
  ]) {
    const { stdout, wall } = docdb("import", "-n", "bench", "--mode", mode, "--json");
    const s = JSON.parse(stdout);
    const failed = s.failed?.length ?? 0;
    if (failed > 0) process.stderr.write(`${failed} file(s) failed: ${JSON.stringify(s.failed.slice(0, 3))}\n`);
    rows.push({
      run: label,
      files: s.files,
      added: s.added,
      unchanged: s.unchanged,
      failed,
      chunks: s.chunks,
      seconds: s.seconds,
      wall_seconds: Number(wall.toFixed(2)),
      files_per_s: Number((s.files / s.seconds).toFixed(1)),
      pages_per_s: mode === "new" ? Number((made.pages / s.seconds).toFixed(1)) : null,
      mb_per_s: mode === "new" ? Number((made.bytes / 1024 / 1024 / s.seconds).toFixed(2)) : null,
    });
  }
  console.table(rows);
  const { cpus, loadavg } = await import("node:os");
  process.stdout.write(
    `${JSON.stringify({ node: process.version, cpus: cpus().length, load_average: loadavg().map((l) => Number(l.toFixed(1))), generated: made, results: rows }, null, 2)}\n`,
  );
}

/** The generated code-and-notes project: full import, updates, replace. */
async function codeRun() {
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
}
