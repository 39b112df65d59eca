import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FakeCohere, startFakeCohere } from "../../../test/support/fake-cohere.js";
import { tinyRerankerDir } from "../../../test/support/tiny-model.js";
import { CLI, runCli } from "./run-cli.js";

interface Found {
  chunk_id: string;
  text: string;
  score: number;
  retrieval_score?: number;
}

let dataDir: string;
let datasetDir: string;
let tiny: string;
let cohere: FakeCohere;
/** No reranker settings from the developer's environment leak in. */
const clean = {
  DOCDB_RERANKER: undefined,
  DOCDB_RERANKER_MODEL: undefined,
  DOCDB_RERANKER_URL: undefined,
  DOCDB_RERANKER_MODEL_DIR: undefined,
};
const docdb = (args: string[], env: Record<string, string | undefined> = {}) =>
  runCli(["--data-dir", dataDir, ...args], { env: { ...clean, ...env } });

beforeAll(async () => {
  if (!existsSync(CLI)) throw new Error(`build the CLI first (pnpm build): ${CLI} is missing`);
  tiny = tinyRerankerDir();
  cohere = await startFakeCohere();
  dataDir = mkdtempSync(join(tmpdir(), "docdb-cli-rerank-"));
  for (const text of [
    "Tokyo is the capital of Japan.",
    "The population of Tokyo is about fourteen million.",
    "Tokyo Tower stands in Minato.",
    "Rivers of Tokyo: the Sumida and the Arakawa.",
  ]) {
    expect((await docdb(["insert", "--text", text])).code).toBe(0);
  }
  datasetDir = mkdtempSync(join(tmpdir(), "docdb-cli-rerank-eval-"));
  writeFileSync(
    join(datasetDir, "corpus.jsonl"),
    [
      { id: "d1", title: "Tokyo", text: "Tokyo is the capital of Japan." },
      { id: "d2", title: "Parser", text: "parseConfigFile reads the YAML configuration." },
    ]
      .map((c) => JSON.stringify(c))
      .join("\n"),
  );
  writeFileSync(join(datasetDir, "queries.jsonl"), '{"id":"q1","text":"capital of Japan"}\n');
  writeFileSync(join(datasetDir, "qrels.tsv"), "query_id\tdoc_id\tscore\nq1\td1\t1\n");
});
afterAll(async () => {
  await cohere?.close();
  rmSync(dataDir, { recursive: true, force: true });
  rmSync(datasetDir, { recursive: true, force: true });
});

describe("docdb find --rerank (built binary)", () => {
  it("reranks with the local cross-encoder from DOCDB_RERANKER_MODEL_DIR: scores are the reranker's, sorted", async () => {
    const plain = JSON.parse((await docdb(["find", "tokyo", "--mode", "keyword", "--json"])).stdout) as Found[];
    const result = await docdb(["find", "tokyo", "--mode", "keyword", "--rerank", "--json"], { DOCDB_RERANKER_MODEL_DIR: tiny });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toMatch(/reranked by local\/tiny-bert-reranker/);
    const reranked = JSON.parse(result.stdout) as Found[];
    expect(new Set(reranked.map((r) => r.chunk_id))).toEqual(new Set(plain.map((r) => r.chunk_id)));
    const scores = reranked.map((r) => r.score);
    expect([...scores].sort((a, b) => b - a)).toEqual(scores);
    for (const r of reranked) {
      expect(r.score > 0 && r.score < 1).toBe(true);
      expect(r.retrieval_score).toBe(plain.find((p) => p.chunk_id === r.chunk_id)?.score);
    }
    const human = await docdb(["find", "tokyo", "--mode", "keyword", "--rerank"], { DOCDB_RERANKER_MODEL_DIR: tiny });
    expect(human.stdout).toMatch(/^1\. score 0\.\d+ \(before rerank [\d.]+\)/);
  });

  it("without a reranker model: RERANKER_UNAVAILABLE with the ways out, exit 1, nothing on stdout", async () => {
    const result = await docdb(["find", "tokyo", "--rerank", "--mode", "keyword"], { DOCDB_RERANKER_MODEL_DIR: join(dataDir, "nothing") });
    expect(result.code).toBe(1);
    expect(result.stdout).toBe("");
    expect(result.stderr).toMatch(/^RERANKER_UNAVAILABLE: cannot rerank: local reranker model Xenova\/bge-reranker-base is not available/m);
    expect(result.stderr).toContain("DOCDB_RERANKER_MODEL_DIR");
    const off = await docdb(["find", "tokyo", "--rerank"], { DOCDB_RERANKER: "none" });
    expect(off.stderr).toMatch(/^RERANKER_UNAVAILABLE: cannot rerank: reranking is turned off/m);
  });

  it("reranks through a Cohere-style endpoint given by DOCDB_RERANKER_URL", async () => {
    const result = await docdb(["find", "population of tokyo", "--mode", "keyword", "--rerank", "--json"], {
      DOCDB_RERANKER_URL: cohere.url,
      DOCDB_RERANKER_API_KEY: "key-1",
    });
    expect(result.code, result.stderr).toBe(0);
    const found = JSON.parse(result.stdout) as Found[];
    expect(found[0]?.text).toBe("The population of Tokyo is about fourteen million.");
    expect(cohere.requests.at(-1)).toMatchObject({ model: "rerank-v3.5", query: "population of tokyo", authorization: "Bearer key-1" });
  });
});

describe("docdb eval --rerank (built binary)", () => {
  it("measures with the reranker when one is present, and says why not when none is", async () => {
    const measured = await docdb(["eval", datasetDir, "--mode", "keyword", "--rerank", "--json"], { DOCDB_RERANKER_MODEL_DIR: tiny });
    expect(measured.code, measured.stderr).toBe(0);
    expect(JSON.parse(measured.stdout)).toMatchObject({ mode: "keyword", available: true, reranker: "local/tiny-bert-reranker" });
    const missing = await docdb(["eval", datasetDir, "--mode", "keyword", "--rerank", "--json"], {
      DOCDB_RERANKER_MODEL_DIR: join(dataDir, "nothing"),
    });
    expect(missing.code).toBe(0);
    const report = JSON.parse(missing.stdout) as { available: boolean; reason: string };
    expect(report.available).toBe(false);
    expect(report.reason).toMatch(/local reranker model .* is not available/);
    const table = await docdb(["eval", datasetDir, "--mode", "keyword", "--rerank"], { DOCDB_RERANKER_MODEL_DIR: tiny });
    expect(table.stdout).toMatch(/reranker\s+local\/tiny-bert-reranker/);
  });
});
