import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FakeCohere, overlapScore, startFakeCohere } from "../../../test/support/fake-cohere.js";
import { closedPort, startFakeHub } from "../../../test/support/fake-hf-hub.js";
import { tinyRerankerDir } from "../../../test/support/tiny-model.js";
import { DEFAULT_LOCAL_RERANKER, EmbeddingError, HttpReranker, LocalEmbeddingModel, LocalReranker, sigmoid } from "../src/index.js";

let tiny: string;
let scratch: string;
const rerankers: LocalReranker[] = [];

function local(options: ConstructorParameters<typeof LocalReranker>[0] = {}): LocalReranker {
  const reranker = new LocalReranker({ modelDir: tiny, cacheDir: join(scratch, "cache"), hubCacheDir: false, threads: 1, ...options });
  rerankers.push(reranker);
  return reranker;
}

const QUERY = "東京の人口は?";
const PASSAGES = [
  "東京は日本の首都で、人口は約1400万人です。",
  "The Rhine flows into the North Sea.",
  "大阪は関西の商業の中心地です。",
  "a",
  "search engines rank documents by meaning and by keywords, and docdb does both in one sqlite file",
  "京都には古い寺がたくさんあります。",
];

beforeAll(() => {
  tiny = tinyRerankerDir();
  scratch = mkdtempSync(join(tmpdir(), "docdb-rerank-"));
});
afterAll(async () => {
  await Promise.all(rerankers.map((r) => r.close()));
  rmSync(scratch, { recursive: true, force: true });
});

describe("local reranker on the generated tiny cross-encoder", () => {
  it("loads from a folder (named after it) and scores every passage 0-1, deterministically", async () => {
    const reranker = local();
    expect(reranker).toMatchObject({ provider: "local", modelId: "tiny-bert-reranker" });
    expect(reranker.locate()).toMatchObject({ source: "model-dir", dtype: "fp32" });
    const scores = await reranker.rerank(QUERY, PASSAGES);
    expect(scores).toHaveLength(PASSAGES.length);
    for (const s of scores) expect(s > 0 && s < 1).toBe(true);
    // Distinct passages, distinct scores: the order they imply is a real order.
    expect(new Set(scores.map((s) => s.toFixed(6))).size).toBe(PASSAGES.length);
    // Deterministic: another instance (another load) gives the same scores.
    const again = await local().rerank(QUERY, PASSAGES);
    again.forEach((s, i) => {
      expect(s).toBeCloseTo(scores[i] as number, 6);
    });
  });

  it("scores a pair the same alone, in another batch, and in another order (padding does not leak)", async () => {
    const reranker = local({ passSize: 4 });
    const all = await reranker.rerank(QUERY, PASSAGES);
    const reversed = await reranker.rerank(QUERY, [...PASSAGES].reverse());
    reversed.reverse().forEach((s, i) => {
      expect(s).toBeCloseTo(all[i] as number, 5);
    });
    for (const [i, passage] of PASSAGES.entries()) {
      const [alone] = await reranker.rerank(QUERY, [passage]);
      expect(alone).toBeCloseTo(all[i] as number, 5);
    }
    // The query matters: another query scores the same passages differently.
    const other = await reranker.rerank("river", PASSAGES);
    expect(other.some((s, i) => Math.abs(s - (all[i] as number)) > 1e-4)).toBe(true);
    expect(await reranker.rerank(QUERY, [])).toEqual([]);
  });
});

describe("local reranker without a model: the same style of error as the embedding model's", () => {
  it("names the folder and the three ways out, and remembers the failure", async () => {
    const missing = join(scratch, "no-such-folder");
    const reranker = local({ modelDir: missing });
    expect(reranker.modelId).toBe(DEFAULT_LOCAL_RERANKER);
    const error = await reranker.rerank("東京", ["x"]).catch((e: unknown) => e);
    expect(EmbeddingError.isInstance(error)).toBe(true);
    const message = (error as Error).message;
    expect(message).toMatch(/^local reranker model Xenova\/bge-reranker-base is not available: /);
    expect(message).toContain(missing);
    expect(message).toContain("DOCDB_RERANKER_MODEL_DIR");
    expect(message).toContain("internet");
    expect(message).toContain("DOCDB_RERANKER=cohere");
    expect((error as EmbeddingError).retryable).toBe(false);
    expect(await reranker.rerank("大阪", ["y"]).catch((e: unknown) => e)).toBe(error);

    // The embedding model's error for the same situation, for comparison: same shape.
    const embedding = new LocalEmbeddingModel({ modelDir: missing, cacheDir: join(scratch, "cache"), hubCacheDir: false });
    const embeddingError = (await embedding.embed(["x"], { kind: "document" }).catch((e: unknown) => e)) as Error;
    const shape = (m: string) =>
      m.replace(/^local (embedding|reranker) model \S+ is not available: .*?\. Ways out: \(1\).*\(2\).*\(3\).*$/s, "SHAPE");
    expect(shape(message)).toBe("SHAPE");
    expect(shape(embeddingError.message)).toBe("SHAPE");
  });

  it("fails fast offline and when downloads are off", async () => {
    const port = await closedPort();
    const offline = local({ modelDir: undefined, remoteHost: `http://127.0.0.1:${port}` });
    await expect(offline.rerank("q", ["d"])).rejects.toThrow(/cannot be reached.*ECONNREFUSED.*DOCDB_RERANKER_MODEL_DIR/);
    const off = local({ modelDir: undefined, allowDownload: false });
    await expect(off.rerank("q", ["d"])).rejects.toThrow(/downloads are turned off.*DOCDB_RERANKER_MODEL_DIR/);
  });

  it("downloads from the hub into the cache on first use, then loads from the cache offline", async () => {
    const hub = await startFakeHub("docdb-test/tiny-reranker", tiny, { "onnx/model_quantized.onnx": "onnx/model.onnx" });
    const cacheDir = join(scratch, "download-cache");
    try {
      const downloaded = local({
        modelDir: undefined,
        model: "docdb-test/tiny-reranker",
        cacheDir,
        remoteHost: hub.url,
        onDownloadProgress: () => {},
      });
      const scores = await downloaded.rerank(QUERY, PASSAGES);
      expect(existsSync(join(cacheDir, "docdb-test", "tiny-reranker", "onnx", "model_quantized.onnx"))).toBe(true);
      const served = hub.requests.length;
      const cached = local({ modelDir: undefined, model: "docdb-test/tiny-reranker", cacheDir, allowDownload: false });
      expect(cached.locate()).toMatchObject({ source: "cache", dtype: "q8" });
      (await cached.rerank(QUERY, PASSAGES)).forEach((s, i) => {
        expect(s).toBeCloseTo(scores[i] as number, 6);
      });
      expect(hub.requests.length).toBe(served);
    } finally {
      await hub.close();
    }
  });
});

describe("Cohere-style rerank endpoint", () => {
  let cohere: FakeCohere;
  beforeAll(async () => {
    cohere = await startFakeCohere();
  });
  afterAll(async () => {
    await cohere.close();
  });

  it("posts {model, query, documents, top_n} with the key and maps scores back to input order", async () => {
    const reranker = new HttpReranker({ url: cohere.url, apiKey: "secret", model: "rerank-test" });
    expect(reranker).toMatchObject({ provider: "cohere", modelId: "rerank-test" });
    const documents = ["the river flows", "tokyo population is large", "population of tokyo"];
    const scores = await reranker.rerank("tokyo population", documents);
    expect(scores).toEqual(documents.map((d) => overlapScore("tokyo population", d)));
    expect(cohere.requests.at(-1)).toEqual({
      model: "rerank-test",
      query: "tokyo population",
      documents,
      top_n: 3,
      authorization: "Bearer secret",
    });
    // A full …/rerank URL works as well; the default model is Cohere's multilingual one.
    const full = new HttpReranker({ url: `${cohere.url}/rerank/` });
    expect(full.modelId).toBe("rerank-v3.5");
    expect(await full.rerank("a", ["a", "b"])).toEqual([1, 0]);
    expect(cohere.requests.at(-1)?.authorization).toBeUndefined();
  });

  it("puts scores outside 0-1 (logits) through a sigmoid", async () => {
    cohere.scale = 10;
    try {
      const scores = await new HttpReranker({ url: cohere.url }).rerank("tokyo population", ["tokyo population", "nothing", "tokyo"]);
      expect(scores).toEqual([sigmoid(10), sigmoid(0), sigmoid(5)]);
    } finally {
      cohere.scale = 1;
    }
  });

  it("retries 429/5xx, and reports a 4xx with the server's message", async () => {
    cohere.failures.push({ status: 503 }, { status: 429 });
    const before = cohere.requests.length;
    expect(await new HttpReranker({ url: cohere.url }).rerank("x", ["x"])).toEqual([1]);
    expect(cohere.requests.length - before).toBe(3);
    cohere.failures.push({ status: 401, body: { message: "invalid api token" } });
    const error = await new HttpReranker({ url: cohere.url }).rerank("x", ["x"]).catch((e: unknown) => e);
    expect(EmbeddingError.isInstance(error)).toBe(true);
    expect((error as Error).message).toMatch(/answered HTTP 401: invalid api token/);
    const port = await closedPort();
    await expect(new HttpReranker({ url: `http://127.0.0.1:${port}`, maxAttempts: 1 }).rerank("x", ["x"])).rejects.toThrow(
      /cannot be reached \(ECONNREFUSED\)/,
    );
    expect(() => new HttpReranker({ url: " " })).toThrow(/DOCDB_RERANKER_URL/);
  });
});
