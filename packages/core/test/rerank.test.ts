import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { LocalReranker } from "@docdb/embed";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { type FakeCohere, overlapScore, startFakeCohere } from "../../../test/support/fake-cohere.js";
import { tinyRerankerDir } from "../../../test/support/tiny-model.js";
import { type DocDB, type OpenDocDBOptions, openDocDB, rerankerConfigFromEnv, silentLogger } from "../src/index.js";

const PASSAGES = [
  "Tokyo is the capital of Japan and its largest city.",
  "The population of Tokyo is about fourteen million people.",
  "Tokyo hosted the Olympic Games in 1964 and in 2021.",
  "Osaka and Tokyo are connected by the Shinkansen.",
  "Tokyo Tower is a communications tower in Minato.",
  "Many rivers flow through Tokyo, the Sumida among them.",
  "A note about Kyoto, not about the capital.",
];

let dir: string;
let tiny: string;
let docdb: DocDB | undefined;
beforeAll(() => {
  tiny = tinyRerankerDir();
});
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "docdb-rerank-core-"));
});
afterEach(async () => {
  await docdb?.close();
  docdb = undefined;
  rmSync(dir, { recursive: true, force: true });
});

async function seeded(reranker: OpenDocDBOptions["reranker"]) {
  docdb = openDocDB({ dataDir: dir, embedding: null, reranker, logger: silentLogger() });
  const db = await docdb.database("notes", { create: true });
  for (const text of PASSAGES) await db.insertDocument({ text });
  return db;
}

describe("find with rerank: true", () => {
  it("orders the candidates by the tiny cross-encoder's own scores, which become the result scores", async () => {
    const reranker = new LocalReranker({ modelDir: tiny, hubCacheDir: false, threads: 1 });
    const db = await seeded(reranker);
    const plain = await db.findSimilar({ query: "tokyo", mode: "keyword", top_k: 10 });
    expect(plain.results).toHaveLength(6);
    expect(plain.reranked_by).toBeUndefined();

    const reranked = await db.findSimilar({ query: "tokyo", mode: "keyword", top_k: 10, rerank: true });
    expect(reranked.reranked_by).toBe("local/tiny-bert-reranker");
    // The reranker's scores for the same candidates, asked directly (no title or heading here, so
    // the text the reranker sees is the chunk text).
    const direct = await reranker.rerank(
      "tokyo",
      plain.results.map((r) => r.text),
    );
    const expected = plain.results
      .map((r, i) => ({ chunk: r.chunk_id, score: direct[i] as number, retrieval: r.score }))
      .sort((a, b) => b.score - a.score);
    expect(reranked.results.map((r) => r.chunk_id)).toEqual(expected.map((e) => e.chunk));
    reranked.results.forEach((r, i) => {
      expect(r.score).toBeCloseTo(expected[i]?.score as number, 6);
      expect(r.retrieval_score).toBeCloseTo(expected[i]?.retrieval as number, 6);
    });
    // A crafted case where reranking changes the order: the tiny model's order is not BM25's.
    expect(reranked.results.map((r) => r.chunk_id)).not.toEqual(plain.results.map((r) => r.chunk_id));
    // Deterministic: the same search reranks the same way.
    const again = await db.findSimilar({ query: "tokyo", mode: "keyword", top_k: 10, rerank: true });
    expect(again.results.map((r) => r.chunk_id)).toEqual(reranked.results.map((r) => r.chunk_id));

    // top_k cuts after reranking; a threshold applies to the reranked scores.
    const top2 = await db.findSimilar({ query: "tokyo", mode: "keyword", top_k: 2, rerank: true });
    expect(top2.results.map((r) => r.chunk_id)).toEqual(expected.slice(0, 2).map((e) => e.chunk));
    const cut = (expected[2]?.score as number) - 1e-9;
    const above = await db.findSimilar({ query: "tokyo", mode: "keyword", top_k: 10, rerank: true, threshold: cut });
    expect(above.results.map((r) => r.chunk_id)).toEqual(expected.slice(0, 3).map((e) => e.chunk));
    await reranker.close();
  });

  it("is RERANKER_UNAVAILABLE, in the embedding model's style, when the model is absent or reranking is off", async () => {
    const missing = join(dir, "no-reranker-here");
    const db = await seeded(new LocalReranker({ modelDir: missing, hubCacheDir: false }));
    const error = await db.findSimilar({ query: "tokyo", mode: "keyword", rerank: true }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: "RERANKER_UNAVAILABLE" });
    expect((error as Error).message).toMatch(
      /^cannot rerank: local reranker model Xenova\/bge-reranker-base is not available: .*no-reranker-here.*Ways out/,
    );
    // Without rerank the same search works.
    expect((await db.findSimilar({ query: "tokyo", mode: "keyword" })).results.length).toBeGreaterThan(0);
    await expect(db.findSimilar({ query: "tokyo", rerank: "yes" as unknown as boolean })).rejects.toMatchObject({
      code: "INVALID_REQUEST",
    });
    await docdb?.close();

    const off = await seeded(null);
    await expect(off.findSimilar({ query: "tokyo", mode: "keyword", rerank: true })).rejects.toMatchObject({
      code: "RERANKER_UNAVAILABLE",
      message: expect.stringMatching(/reranking is turned off.*DOCDB_RERANKER=local/),
    });
  });

  describe("through a Cohere-style endpoint configured like the environment would", () => {
    let cohere: FakeCohere;
    beforeAll(async () => {
      cohere = await startFakeCohere();
    });
    afterAll(async () => {
      await cohere.close();
    });

    it("orders by the endpoint's relevance_score and sends the candidates' text", async () => {
      const config = rerankerConfigFromEnv({
        DOCDB_RERANKER_URL: cohere.url,
        DOCDB_RERANKER_API_KEY: "k",
        DOCDB_RERANKER_MODEL: "rerank-x",
      });
      expect(config).toEqual({ url: cohere.url, apiKey: "k", model: "rerank-x" });
      const db = await seeded(config);
      const query = "population of tokyo";
      const found = await db.findSimilar({ query, mode: "keyword", top_k: 3, rerank: true });
      expect(found.reranked_by).toBe("cohere/rerank-x");
      expect(found.results[0]?.text).toBe(PASSAGES[1]);
      expect(found.results[0]?.score).toBeCloseTo(overlapScore(query, PASSAGES[1] as string), 6);
      const request = cohere.requests.at(-1);
      expect(request).toMatchObject({ model: "rerank-x", query, authorization: "Bearer k" });
      expect(new Set(request?.documents)).toEqual(new Set(PASSAGES.filter((p) => /tokyo/i.test(p))));
      cohere.failures.push({ status: 400, body: { message: "bad request from the test" } });
      await expect(db.findSimilar({ query, mode: "keyword", rerank: true })).rejects.toMatchObject({
        code: "RERANKER_UNAVAILABLE",
        message: expect.stringMatching(/HTTP 400: bad request from the test/),
      });
    });
  });

  it("reads DOCDB_RERANKER and refuses an unknown one", () => {
    expect(rerankerConfigFromEnv({ DOCDB_RERANKER: "none" })).toEqual({ provider: "none" });
    expect(rerankerConfigFromEnv({ DOCDB_RERANKER: "local", DOCDB_RERANKER_MODEL_DIR: "/m", DOCDB_MODEL_DOWNLOAD: "0" })).toEqual({
      provider: "local",
      modelDir: "/m",
      allowDownload: false,
    });
    expect(() => rerankerConfigFromEnv({ DOCDB_RERANKER: "magic" })).toThrow(/local, cohere, none/);
  });
});
