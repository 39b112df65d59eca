#!/usr/bin/env node
/**
 * Code search eval (issue 16): imports this repository as a collection and asks the questions of
 * eval/code-questions.json in keyword mode, counting how many land in the top 3 — the expected
 * file, and the expected symbol (a result from that file whose lines include the line the symbol
 * is declared on, found in the file itself, so chunkers that record no symbols are judged alike).
 *
 *   pnpm build && node scripts/eval-code.mjs [--cli apps/cli/dist/index.js] [--ref HEAD] [--top 3] [--json]
 *                                            [--questions eval/code-questions.json]
 *
 * --cli   the docdb program to evaluate (e.g. a build of main, to compare)
 * --ref   the commit whose files are imported (default HEAD), taken with `git archive`, without
 *         eval/ (the questions themselves would otherwise be the best match for every question)
 *
 * Each run uses a fresh data folder and no embedding model.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const args = process.argv.slice(2);
const arg = (name, fallback) => (args.includes(name) ? args[args.indexOf(name) + 1] : fallback);
const cli = resolve(arg("--cli", join(ROOT, "apps/cli/dist/index.js")));
const ref = arg("--ref", "HEAD");
const top = Number(arg("--top", "3"));
const json = args.includes("--json");
const questionsFile = resolve(arg("--questions", join(ROOT, "eval/code-questions.json")));

const work = mkdtempSync(join(tmpdir(), "docdb-eval-code-"));
const source = join(work, "src");
const env = { ...process.env, DOCDB_DATA_DIR: join(work, "data"), DOCDB_EMBEDDING: "none", DOCDB_MODEL_DOWNLOAD: "0" };
const docdb = (...argv) => execFileSync(process.execPath, [cli, ...argv], { env, encoding: "utf8", maxBuffer: 64 * 1024 * 1024 });

/** 1-based line declaring `symbol` in `text` (a top-level declaration first, then a member). */
function declarationLine(text, symbol) {
  const name = symbol.split(".").pop().replace(/[$]/g, "\\$");
  const patterns = [
    new RegExp(
      `^\\s*(export\\s+)?(default\\s+)?(declare\\s+)?(abstract\\s+)?(async\\s+)?(function\\*?|class|interface|type|enum|const|let|var|namespace)\\s+${name}\\b`,
    ),
    new RegExp(`^\\s*((public|private|protected|static|readonly|async|get|set)\\s+)*${name}\\s*[(<=:]`),
  ];
  const lines = text.split("\n");
  for (const pattern of patterns) {
    const index = lines.findIndex((l) => pattern.test(l));
    if (index !== -1) return index + 1;
  }
  return undefined;
}

try {
  mkdirSync(source);
  execFileSync("sh", ["-c", `git -C "${ROOT}" archive "${ref}" | tar -x -C "${source}"`]);
  rmSync(join(source, "eval"), { recursive: true, force: true });
  const { questions } = JSON.parse(readFileSync(questionsFile, "utf8"));
  const version = docdb("--version").trim();
  docdb("collection", "add", "-n", "self", "-s", source, "-d", "docdb's own source");
  const imported = JSON.parse(docdb("import", "-n", "self", "--json"));

  const rows = questions.map((q, i) => {
    const results = JSON.parse(docdb("find", q.query, "--collection", "self", "--mode", "keyword", "-k", String(top), "--json"));
    const line = declarationLine(readFileSync(join(source, q.file), "utf8"), q.symbol);
    if (line === undefined) throw new Error(`question ${i + 1}: ${q.symbol} is not declared in ${q.file}`);
    const fileRank = results.findIndex((r) => r.source === q.file) + 1;
    const symbolRank = results.findIndex((r) => r.source === q.file && r.line_start <= line && line <= r.line_end) + 1;
    return {
      n: i + 1,
      file: q.file,
      symbol: q.symbol,
      file_rank: fileRank || null,
      symbol_rank: symbolRank || null,
      top: results.map((r) => `${r.source}:${r.line_start}-${r.line_end}${r.symbol ? ` ${r.symbol}` : ""}`),
    };
  });
  const summary = {
    cli: version,
    ref: execFileSync("git", ["-C", ROOT, "rev-parse", "--short", ref], { encoding: "utf8" }).trim(),
    files: imported.files,
    chunks: imported.chunks,
    questions: rows.length,
    top,
    file_hits: rows.filter((r) => r.file_rank).length,
    symbol_hits: rows.filter((r) => r.symbol_rank).length,
  };
  if (json) {
    process.stdout.write(`${JSON.stringify({ ...summary, rows }, null, 2)}\n`);
  } else {
    process.stdout.write(`| # | expected symbol | file in top ${top} (rank) | symbol in top ${top} (rank) |\n|---:|---|---|---|\n`);
    for (const r of rows) {
      process.stdout.write(
        `| ${r.n} | \`${r.symbol}\` (${r.file}) | ${r.file_rank ? `yes (${r.file_rank})` : "no"} | ${r.symbol_rank ? `yes (${r.symbol_rank})` : "no"} |\n`,
      );
    }
    process.stdout.write(
      `\n${summary.file_hits}/${summary.questions} files and ${summary.symbol_hits}/${summary.questions} symbols in the top ${top} ` +
        `(docdb ${summary.cli} at ${cli}; files of ${summary.ref}: ${summary.files} files, ${summary.chunks} chunks)\n`,
    );
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}
