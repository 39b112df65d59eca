// `pnpm bench --keyword-compare` at toy size on a made-up eval set: hit@10 counts what each engine
// finds, and the run reports every engine (timings belong to BENCHMARKS.md, not to assertions).
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { fts5Match, hitAt10 } from "../scripts/bench/keyword-compare.mjs";
import { runNode } from "./support/node-process.js";

const BENCH = fileURLToPath(new URL("../scripts/bench.mjs", import.meta.url));
// SQLite files only: a DOCDB_STORE_URL in the developer's environment is left out.
const { DOCDB_STORE_URL: _ignored, ...env } = process.env;
const dir = mkdtempSync(join(tmpdir(), "docdb-kwcmp-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function evalSet(name: string, docs: [string, string][], queries: [string, string][]) {
  mkdirSync(join(dir, "eval", name), { recursive: true });
  const jsonl = (rows: object[]) => rows.map((r) => JSON.stringify(r)).join("\n");
  writeFileSync(join(dir, "eval", name, "corpus.jsonl"), jsonl(docs.map(([id, text]) => ({ id, title: "", text }))));
  writeFileSync(join(dir, "eval", name, "queries.jsonl"), jsonl(queries.map(([id, text]) => ({ id, text }))));
  writeFileSync(
    join(dir, "eval", name, "qrels.tsv"),
    `query_id\tdoc_id\tscore\n${queries.map(([id], i) => `${id}\t${docs[i][0]}\t1`).join("\n")}`,
  );
}

describe("keyword comparison", () => {
  it("counts a hit when a relevant document is in the first ten, and ORs the quoted words for FTS5", () => {
    const relevant = new Set(["b"]);
    expect(hitAt10(["a", "b"], relevant)).toBe(1);
    expect(hitAt10([...Array(10).fill("a"), "b"], relevant)).toBe(0);
    expect(hitAt10([], relevant)).toBe(0);
    expect(fts5Match('Does "vitamin D" help?')).toBe('"Does" OR "vitamin" OR "D" OR "help"');
    expect(fts5Match("奈良の大仏")).toBe('"奈良の大仏"');
    expect(fts5Match("?!")).toBe("");
  });

  it("measures docdb, LanceDB and FTS5 on the same documents and questions", async () => {
    evalSet(
      "scifact",
      [
        ["s1", "Vitamin D deficiency raises the risk of bone fractures in older adults."],
        ["s2", "Aspirin lowers the risk of heart attacks."],
        ["s3", "Sleep loss impairs memory consolidation."],
      ],
      [
        ["q1", "vitamin D fractures"],
        ["q2", "aspirin heart"],
      ],
    );
    evalSet(
      "jaquad",
      [
        ["j1", "奈良の大仏は東大寺にある盧舎那仏像である。"],
        ["j2", "富士山は日本で最も高い山である。"],
      ],
      [
        ["k1", "東大寺の大仏"],
        ["k2", "日本で最も高い山"],
      ],
    );
    const data = join(dir, "data");
    const args = [
      "--keyword-compare",
      "--documents",
      "10",
      "--queries",
      "2",
      "--eval-dir",
      join(dir, "eval"),
      "--data-dir",
      data,
      "--json",
    ];
    const result = await runNode(BENCH, args, { env });
    expect(result.stderr).not.toMatch(/Error/);
    expect(result.code).toBe(0);
    const report = JSON.parse(result.stdout);
    expect(report.engines.map((e: { name: string }) => e.name)).toEqual([
      "docdb keyword",
      "docdb hybrid",
      "LanceDB full-text",
      "SQLite FTS5 unicode61, raw",
    ]);
    expect(report.questions).toEqual({ en: 2, ja: 2 });
    // Every engine finds the English answers; raw unicode61 cannot split Japanese into words.
    for (const e of report.engines) expect(e.hitAt10.en).toBe(1);
    expect(report.engines[0].hitAt10.ja).toBe(1);
    expect(report.engines[3].hitAt10.ja).toBe(0);
    expect(report.engines[0].ingest.documentsPerSecond).toBeGreaterThan(0);
    // A second run reuses the kept databases instead of ingesting again; --other adds a second
    // docdb build (here the same checkout) to the same interleaved run.
    const root = fileURLToPath(new URL("..", import.meta.url));
    const again = JSON.parse((await runNode(BENCH, [...args, "--other", root], { env })).stdout);
    expect(again.reused).toEqual(["docdb", "lance", "fts5"]);
    expect(again.engines.map((e: { name: string }) => e.name).slice(0, 4)).toEqual([
      "docdb keyword (this build)",
      "docdb hybrid (this build)",
      "docdb keyword (other build)",
      "docdb hybrid (other build)",
    ]);
    expect(again.engines[2].hitAt10).toEqual(again.engines[0].hitAt10);
  }, 120_000);
});
