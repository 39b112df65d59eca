import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DocDBError } from "@docdb/core";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { type FakeOpenAI, startFakeOpenAI } from "../../../test/support/fake-openai.js";
import { evaluateRetrieval } from "../src/index.js";

let dir: string;
let scratch: string;
let server: FakeOpenAI;

beforeAll(async () => {
  server = await startFakeOpenAI({ dimensions: 64 });
});
afterAll(async () => {
  await server.close();
});
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "docdb-evalset-"));
  scratch = mkdtempSync(join(tmpdir(), "docdb-evaltmp-"));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
  rmSync(scratch, { recursive: true, force: true });
});

const lines = (rows: unknown[]) => `${rows.map((r) => JSON.stringify(r)).join("\n")}\n`;

/** A small mixed corpus: each query has exactly one passage that shares its rare words. */
function writeDataset(options: { extraQrels?: string } = {}) {
  const corpus = [
    { id: "tokyo", title: "東京", text: "東京は日本の首都で、人口は約1400万人です。" },
    { id: "osaka", title: "大阪", text: "大阪はたこ焼きとお好み焼きで有名な商業都市です。" },
    { id: "kyoto", title: "京都", text: "京都には金閣寺や清水寺など多くの寺院があります。" },
    { id: "cells", title: "Stem cells", text: "Magnetic nanoparticles label stem cells for in vivo tracking." },
    { id: "code", title: "api.ts", text: "function getUserName(id) { return users[id].name; }" },
    { id: "empty", title: "", text: "" },
  ];
  for (let i = 0; i < 20; i++)
    corpus.push({ id: `filler-${i}`, title: `filler ${i}`, text: `unrelated filler passage number ${i} about weather` });
  const queries = [
    { id: "q1", text: "日本の首都の人口は?" },
    { id: "q2", text: "たこ焼きで有名な都市" },
    { id: "q3", text: "金閣寺はどこにありますか" },
    { id: "q4", text: "tracking stem cells with nanoparticles" },
    { id: "q5", text: "getUserName" },
    { id: "q6", text: "a query nobody judged" },
  ];
  const qrels = ["query_id\tdoc_id\tscore", "q1\ttokyo\t1", "q2\tosaka\t1", "q3\tkyoto\t1", "q4\tcells\t1", "q5\tcode\t1"];
  writeFileSync(join(dir, "corpus.jsonl"), lines(corpus));
  writeFileSync(join(dir, "queries.jsonl"), lines(queries));
  writeFileSync(join(dir, "qrels.tsv"), `${qrels.join("\n")}\n${options.extraQrels ?? ""}`);
}

describe("evaluateRetrieval", () => {
  it("loads the corpus through the insert path and finds every judged passage by keywords", async () => {
    writeDataset();
    const phases = new Set<string>();
    const [report] = await evaluateRetrieval({
      dataset: dir,
      modes: ["keyword"],
      embedding: null,
      tempDir: scratch,
      onProgress: (p) => phases.add(p.phase),
    });
    expect(report).toMatchObject({
      dataset: dir.split("/").pop(),
      mode: "keyword",
      available: true,
      embedding_model: null,
      corpus: { documents: 25, skipped: 1 },
      queries: 5,
      judgments_not_in_corpus: 0,
    });
    expect(report?.metrics).toEqual({ ndcg_at_10: 1, recall_at_10: 1, mrr_at_10: 1, recall_at_100: 1 });
    expect(report?.latency_ms?.p50).toBeGreaterThan(0);
    expect([...phases]).toEqual(["load", "search"]);
    // The temporary database is gone.
    expect(readdirSync(scratch)).toEqual([]);
  });

  it("counts relevant judgments for documents missing from the corpus as misses", async () => {
    writeDataset({ extraQrels: "q1\tnot-in-corpus\t1\n" });
    const [report] = await evaluateRetrieval({ dataset: dir, modes: ["keyword"], embedding: null, tempDir: scratch, limitQueries: 1 });
    expect(report?.queries).toBe(1);
    expect(report?.judgments_not_in_corpus).toBe(1);
    expect(report?.metrics?.recall_at_10).toBe(0.5);
    expect(report?.metrics?.mrr_at_10).toBe(1);
  });

  it("says why vector and hybrid cannot run when there is no embedding model", async () => {
    writeDataset();
    const reports = await evaluateRetrieval({ dataset: dir, modes: ["hybrid", "vector", "keyword"], embedding: null, tempDir: scratch });
    expect(reports.map((r) => [r.mode, r.available])).toEqual([
      ["hybrid", false],
      ["vector", false],
      ["keyword", true],
    ]);
    expect(reports[0]?.reason).toMatch(/embedding/);
    expect(reports[0]?.metrics).toBeUndefined();
  });

  it("embeds the corpus and evaluates vector search with a model served over HTTP", async () => {
    writeDataset();
    const reports = await evaluateRetrieval({
      dataset: dir,
      modes: ["vector", "hybrid"],
      embedding: { provider: "openai", apiKey: "sk-test", baseURL: server.url, dimensions: 64 },
      tempDir: scratch,
    });
    for (const r of reports) {
      expect(r.available).toBe(true);
      expect(r.embedding_model).toBe("openai/text-embedding-3-small");
      expect(r.embedding_dimensions).toBe(64);
      expect(r.metrics?.recall_at_100).toBe(1);
    }
    // Hashed-trigram vectors find the code and the English passage exactly.
    expect(reports[1]?.metrics?.ndcg_at_10).toBeGreaterThan(0.5);
  });

  it("rejects missing folders and malformed files with a clear code", async () => {
    await expect(evaluateRetrieval({ dataset: join(dir, "nope"), embedding: null })).rejects.toMatchObject({ code: "NOT_FOUND" });
    writeFileSync(join(dir, "corpus.jsonl"), "{}\n");
    await expect(evaluateRetrieval({ dataset: dir, embedding: null })).rejects.toThrow(/lacks queries.jsonl, qrels.tsv/);
    writeDataset();
    writeFileSync(join(dir, "corpus.jsonl"), '{"id": "a", "text": "ok"}\nnot json\n');
    const error = await evaluateRetrieval({ dataset: dir, modes: ["keyword"], embedding: null, tempDir: scratch }).catch((e) => e);
    expect(DocDBError.isInstance(error) && error.code).toBe("INVALID_REQUEST");
    expect(String(error.message)).toMatch(/corpus.jsonl line 2: not valid JSON/);
    expect(existsSync(scratch) && readdirSync(scratch)).toEqual([]);
    await expect(evaluateRetrieval({ dataset: dir, embedding: null, limitQueries: 0 })).rejects.toMatchObject({ code: "INVALID_REQUEST" });
  });
});
