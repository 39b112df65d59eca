#!/usr/bin/env node
/**
 * Code search eval (issue 16): imports this repository as a collection and asks the questions of
 * eval/code-questions.json in keyword mode, counting how many land in the top 3 — the expected
 * file, and the expected symbol (a result from that file whose lines include the line the symbol
 * is declared on, found in the file itself, or whose heading ends with the symbol's name, which
 * both the line-pattern and the tree-sitter chunker record for pieces of a long declaration).
 * Results are those of `docdb find` as it answers by default (ten passages, neighbouring chunks
 * merged); the top 3 are its first three. It also reports each one's rank there and the mean
 * reciprocal rank (MRR@10), a finer measure on so few questions, and whether the symbol's name
 * alone as the query (`find embedMany`) returns its definition first.
 *
 *   pnpm build && node scripts/eval-code.mjs [--cli apps/cli/dist/index.js] [--ref HEAD] [--top 3] [--json]
 *                                            [--questions eval/code-questions.json]
 *
 * --cli   the docdb program to evaluate (e.g. a build of main, to compare)
 * --ref   the commit whose files are imported (default HEAD), taken with `git archive`, without
 *         eval/ (the questions themselves would otherwise be the best match for every question)
 *         and BENCHMARKS.md with docs/benchmarks-history.md (where these results are written down)
 *
 * --prefix  words put before every question, e.g. "which function returns" (a check that code
 *           words in a question do not pull it towards code that merely uses them)
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
const DEPTH = 10;
const json = args.includes("--json");
const questionsFile = resolve(arg("--questions", join(ROOT, "eval/code-questions.json")));
const prefix = arg("--prefix", "");

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

/** Mean reciprocal rank (0 for a miss), to three decimals. */
function mrr(ranks) {
  return Math.round((1000 * ranks.reduce((sum, r) => sum + (r ? 1 / r : 0), 0)) / ranks.length) / 1000;
}

try {
  mkdirSync(source);
  execFileSync("sh", ["-c", `git -C "${ROOT}" archive "${ref}" | tar -x -C "${source}"`]);
  rmSync(join(source, "eval"), { recursive: true, force: true });
  rmSync(join(source, "BENCHMARKS.md"), { force: true });
  rmSync(join(source, "docs", "benchmarks-history.md"), { force: true });
  const { questions } = JSON.parse(readFileSync(questionsFile, "utf8"));
  const version = docdb("--version").trim();
  docdb("collection", "add", "-n", "self", "-s", source, "-d", "docdb's own source");
  const imported = JSON.parse(docdb("import", "-n", "self", "--json"));

  const rows = questions.map((q, i) => {
    const line = declarationLine(readFileSync(join(source, q.file), "utf8"), q.symbol);
    if (line === undefined) throw new Error(`question ${i + 1}: ${q.symbol} is not declared in ${q.file}`);
    const query = prefix ? `${prefix} ${q.query}` : q.query;
    // What `docdb find` answers by default (ten results, neighbouring chunks merged into passages).
    const deeper = JSON.parse(docdb("find", query, "--collection", "self", "--mode", "keyword", "-k", String(DEPTH), "--json"));
    const results = deeper.slice(0, top);
    const inFile = (r) => r.source === q.file;
    // On the symbol: the passage holds its declaration line, or is a piece of its declaration
    // (a long function cut into windows), as the heading both chunkers record names it.
    const name = q.symbol.split(".").pop();
    const names = (r) =>
      [r.heading?.split(" > ").pop(), r.symbol?.split(".").pop()].some((h) => h !== undefined && new RegExp(`\\b${name}$`).test(h));
    const onSymbol = (r) => inFile(r) && ((r.line_start <= line && line <= r.line_end) || names(r));
    const rankIn = (list, test) => list.findIndex(test) + 1 || null;
    // The symbol's name as the query: its definition should come first.
    const named = JSON.parse(docdb("find", q.symbol, "--collection", "self", "--mode", "keyword", "-k", "1", "--json"));
    return {
      n: i + 1,
      file: q.file,
      symbol: q.symbol,
      file_hit: rankIn(results, inFile) !== null,
      symbol_hit: rankIn(results, onSymbol) !== null,
      file_rank: rankIn(deeper, inFile),
      symbol_rank: rankIn(deeper, onSymbol),
      name_first: named[0] !== undefined && onSymbol(named[0]),
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
    file_hits: rows.filter((r) => r.file_hit).length,
    symbol_hits: rows.filter((r) => r.symbol_hit).length,
    file_mrr: mrr(rows.map((r) => r.file_rank)),
    symbol_mrr: mrr(rows.map((r) => r.symbol_rank)),
    name_first: rows.filter((r) => r.name_first).length,
  };
  if (json) {
    process.stdout.write(`${JSON.stringify({ ...summary, rows }, null, 2)}\n`);
  } else {
    const cell = (hit, rank) => `${hit ? "yes" : "no"} (${rank ?? "-"})`;
    process.stdout.write(
      `| # | expected symbol (file) | file in top ${top} (rank) | symbol in top ${top} (rank) | its name finds it first |\n|---:|---|---|---|---|\n`,
    );
    for (const r of rows) {
      process.stdout.write(
        `| ${r.n} | \`${r.symbol}\` (${r.file}) | ${cell(r.file_hit, r.file_rank)} | ${cell(r.symbol_hit, r.symbol_rank)} | ${r.name_first ? "yes" : "no"} |\n`,
      );
    }
    process.stdout.write(
      `\nin the top ${top}: ${summary.file_hits}/${summary.questions} files, ${summary.symbol_hits}/${summary.questions} symbols; ` +
        `MRR@${DEPTH}: files ${summary.file_mrr}, symbols ${summary.symbol_mrr}; ` +
        `the symbol's name as the query finds its definition first: ${summary.name_first}/${summary.questions} ` +
        `(docdb ${summary.cli} at ${cli}; files of ${summary.ref}: ${summary.files} files, ${summary.chunks} chunks; rank "-": not in the top ${DEPTH})\n`,
    );
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}
