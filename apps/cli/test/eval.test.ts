import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { makeDocx } from "../../../packages/extract/test/fixtures/office.js";
import { makePdf } from "../../../packages/extract/test/fixtures/pdf.js";
import { CLI, runCli } from "./run-cli.js";

let dir: string;
beforeAll(() => {
  if (!existsSync(CLI)) throw new Error(`build the CLI first (pnpm build): ${CLI} is missing`);
});
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "docdb-cli-eval-"));
  const corpus = [
    { id: "d1", title: "東京", text: "東京は日本の首都です。" },
    { id: "d2", title: "Parser", text: "parseConfigFile reads the YAML configuration." },
    { id: "d3", title: "天気", text: "明日の天気は晴れです。" },
  ];
  writeFileSync(join(dir, "corpus.jsonl"), corpus.map((c) => JSON.stringify(c)).join("\n"));
  writeFileSync(join(dir, "queries.jsonl"), '{"id":"q1","text":"日本の首都は?"}\n{"id":"q2","text":"parse config file"}\n');
  writeFileSync(join(dir, "qrels.tsv"), "query_id\tdoc_id\tscore\nq1\td1\t1\nq2\td2\t1\n");
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe("docdb eval (built binary)", () => {
  it("prints one JSON object for a mode, with progress on stderr only", async () => {
    const result = await runCli(["eval", dir, "--mode", "keyword", "--json"]);
    expect(result.code).toBe(0);
    const report = JSON.parse(result.stdout) as Record<string, unknown>;
    expect(report).toMatchObject({ mode: "keyword", available: true, queries: 2, corpus: { documents: 3, chunks: 3 } });
    expect(report.metrics).toEqual({ ndcg_at_10: 1, recall_at_10: 1, mrr_at_10: 1, recall_at_100: 1 });
    expect(result.stderr).toMatch(/loading corpus/);
  });

  it("with --mode all prints an array and says vector and hybrid need a model", async () => {
    const result = await runCli(["eval", dir, "--json"]);
    expect(result.code).toBe(0);
    const reports = JSON.parse(result.stdout) as { mode: string; available: boolean; reason?: string }[];
    expect(reports.map((r) => [r.mode, r.available])).toEqual([
      ["hybrid", false],
      ["vector", false],
      ["keyword", true],
    ]);
    expect(reports[1]?.reason).toMatch(/embedding/);
    const table = await runCli(["eval", dir]);
    expect(table.stdout).toMatch(/keyword\s+1\.0000\s+1\.0000/);
    expect(table.stdout).toMatch(/vector\s+not measured: .*embedding/);
  });

  it("fails with a code and nothing on stdout for a bad mode or folder", async () => {
    const badMode = await runCli(["eval", dir, "--mode", "fuzzy"]);
    expect(badMode.code).toBe(2);
    expect(badMode.stdout).toBe("");
    expect(badMode.stderr).toMatch(/^INVALID_REQUEST: --mode must be one of/m);
    const missing = await runCli(["eval", join(dir, "absent")]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/^NOT_FOUND: no dataset folder/m);
  });

  it("with --documents loads a folder of files named by corpus id, extracted, and names each file it could not read", async () => {
    // The corpus.jsonl entries share no words with the queries: only the files can answer them.
    writeFileSync(
      join(dir, "corpus.jsonl"),
      ["d1", "d2", "d3"].map((id) => JSON.stringify({ id, title: "", text: `placeholder ${id}` })).join("\n"),
    );
    const docs = join(dir, "files");
    mkdirSync(docs);
    writeFileSync(join(docs, "d1.pdf"), makePdf({ title: "東京", pages: [{ lines: ["東京は日本の首都です。"] }] }));
    writeFileSync(
      join(docs, "d2.docx"),
      makeDocx({ title: "Parser", sections: [{ heading: "Parser", paragraphs: ["parseConfigFile reads the YAML configuration."] }] }),
    );
    writeFileSync(join(docs, "d3.pdf"), "%PDF-1.4 not really");
    const result = await runCli(["eval", dir, "--mode", "keyword", "--documents", docs, "--json"]);
    expect(result.code).toBe(0);
    const report = JSON.parse(result.stdout) as Record<string, unknown>;
    expect(report).toMatchObject({ documents: docs, corpus: { documents: 2, skipped: 1 } });
    expect(report.metrics).toEqual({ ndcg_at_10: 1, recall_at_10: 1, mrr_at_10: 1, recall_at_100: 1 });
    expect(result.stderr).toMatch(/^d3\.pdf: /m);
  });
});
