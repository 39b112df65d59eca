import { existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { closedPort, startFakeHub } from "../../../test/support/fake-hf-hub.js";
import { tinyModelDir } from "../../../test/support/tiny-model.js";
import { type DownloadProgress, EmbeddingError, embedMany, LocalEmbeddingModel } from "../src/index.js";

let tiny: string;
let scratch: string;
const models: LocalEmbeddingModel[] = [];

/** A provider on the tiny model that never looks at the user's real caches. */
function local(options: ConstructorParameters<typeof LocalEmbeddingModel>[0] = {}): LocalEmbeddingModel {
  const model = new LocalEmbeddingModel({ modelDir: tiny, cacheDir: join(scratch, "cache"), hubCacheDir: false, threads: 1, ...options });
  models.push(model);
  return model;
}

function norm(v: Float32Array): number {
  return Math.sqrt(v.reduce((sum, x) => sum + x * x, 0));
}

function maxDifference(a: Float32Array, b: Float32Array): number {
  expect(a.length).toBe(b.length);
  return a.reduce((max, x, i) => Math.max(max, Math.abs(x - (b[i] as number))), 0);
}

const TEXTS = [
  "東京は日本の首都で、人口は約1400万人です。",
  "The quick brown fox jumps over the lazy dog.",
  "function add(a, b) { return a + b; }",
  "a",
  "大阪",
  "search engines rank documents by meaning and by keywords, and docdb does both in one sqlite file",
  "## Heading\n\n- item one\n- item two",
];

beforeAll(() => {
  tiny = tinyModelDir();
  scratch = mkdtempSync(join(tmpdir(), "docdb-local-"));
});
afterAll(async () => {
  await Promise.all(models.map((m) => m.close()));
  rmSync(scratch, { recursive: true, force: true });
});

describe("local provider on the generated tiny model", () => {
  it("takes its id and dimensions from the folder and loads nothing until the first embed", async () => {
    const model = local();
    expect(model).toMatchObject({ provider: "local", modelId: "tiny-bert", dimensions: 32, supportsParallelCalls: false });
    expect(model.loaded).toBe(false);
    const [vector] = await model.embed(["hello"], { kind: "document" });
    expect(model.loaded).toBe(true);
    expect(vector).toBeInstanceOf(Float32Array);
    expect(vector?.length).toBe(32);
  });

  it("returns unit-length vectors, one per text, distinct for distinct texts", async () => {
    const vectors = await local().embed(TEXTS, { kind: "document" });
    expect(vectors).toHaveLength(TEXTS.length);
    for (const v of vectors) expect(norm(v)).toBeCloseTo(1, 5);
    const keys = new Set(vectors.map((v) => Array.from(v.slice(0, 4), (x) => x.toFixed(5)).join()));
    expect(keys.size).toBe(TEXTS.length);
  });

  it("is deterministic across calls and across instances", async () => {
    const a = local();
    const first = await a.embed(TEXTS, { kind: "document" });
    const again = await a.embed(TEXTS, { kind: "document" });
    const other = await local().embed(TEXTS, { kind: "document" });
    first.forEach((v, i) => {
      expect(Array.from(v)).toEqual(Array.from(again[i] as Float32Array));
      expect(maxDifference(v, other[i] as Float32Array)).toBeLessThan(1e-6);
    });
  });

  it("gives each text the same vector in a padded, length-sorted batch as alone", async () => {
    // Small passes so the texts are regrouped by length across several forward passes.
    const model = local({ passSize: 3 });
    const batch = await model.embed(TEXTS, { kind: "document" });
    for (const [i, text] of TEXTS.entries()) {
      const [alone] = await model.embed([text], { kind: "document" });
      expect(maxDifference(batch[i] as Float32Array, alone as Float32Array)).toBeLessThan(1e-5);
    }
  });

  it("runs long texts in smaller passes than short ones, with the same vectors", async () => {
    // 60 characters per pass: the longest texts go alone, the short ones together.
    const capped = local({ passChars: 60 });
    const uncapped = local({ passSize: 64 });
    const a = await capped.embed(TEXTS, { kind: "document" });
    const b = await uncapped.embed(TEXTS, { kind: "document" });
    a.forEach((v, i) => {
      expect(maxDifference(v, b[i] as Float32Array)).toBeLessThan(1e-5);
    });
  });

  it("works through embedMany with more texts than one call takes", async () => {
    const model = local({ maxBatchSize: 4 });
    const texts = Array.from({ length: 10 }, (_, i) => `note number ${i} about 東京`);
    const vectors = await embedMany(model, texts, { kind: "document" });
    expect(vectors).toHaveLength(10);
    const [seventh] = await model.embed([texts[7] as string], { kind: "document" });
    expect(maxDifference(vectors[7] as Float32Array, seventh as Float32Array)).toBeLessThan(1e-5);
  });

  it("applies the e5 prefixes of a known model by kind: query: for queries, passage: for documents", async () => {
    // A models root laid out <org>/<name>, where the known e5 id points at the tiny files.
    const root = join(scratch, "models-root");
    mkdirSync(join(root, "Xenova"), { recursive: true });
    symlinkSync(tiny, join(root, "Xenova", "multilingual-e5-small"));
    const e5 = local({ modelDir: root });
    expect(e5.modelId).toBe("Xenova/multilingual-e5-small");
    expect(e5.dimensions).toBe(32); // the folder's config.json wins over the table's 384
    expect(e5.prefixes).toEqual({ query: "query: ", document: "passage: " });
    const plain = local();
    expect(plain.prefixes).toEqual({ query: "", document: "" });

    const text = "東京の人口";
    const [query] = await e5.embed([text], { kind: "query" });
    const [passage] = await e5.embed([text], { kind: "document" });
    const [prefixedByHand] = await plain.embed([`query: ${text}`, `passage: ${text}`], { kind: "document" });
    const [, passageByHand] = await plain.embed([`query: ${text}`, `passage: ${text}`], { kind: "document" });
    expect(maxDifference(query as Float32Array, prefixedByHand as Float32Array)).toBeLessThan(1e-6);
    expect(maxDifference(passage as Float32Array, passageByHand as Float32Array)).toBeLessThan(1e-6);
    expect(maxDifference(query as Float32Array, passage as Float32Array)).toBeGreaterThan(1e-3);
  });

  it("uses explicit prefixes and CLS pooling when asked", async () => {
    const custom = local({ prefixes: { query: "search: ", document: "" }, pooling: "cls" });
    const mean = local();
    const [cls] = await custom.embed(["hello world"], { kind: "document" });
    const [meanVector] = await mean.embed(["hello world"], { kind: "document" });
    expect(norm(cls as Float32Array)).toBeCloseTo(1, 5);
    expect(maxDifference(cls as Float32Array, meanVector as Float32Array)).toBeGreaterThan(1e-3);
  });

  it("frees the model after the idle time and loads it again when needed", async () => {
    const model = local({ idleUnloadMs: 30 });
    const [before] = await model.embed(["idle"], { kind: "document" });
    expect(model.loaded).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(model.loaded).toBe(false);
    const [after] = await model.embed(["idle"], { kind: "document" });
    expect(Array.from(after as Float32Array)).toEqual(Array.from(before as Float32Array));
  });

  it("stops between passes when the signal aborts", async () => {
    const controller = new AbortController();
    controller.abort(new Error("stop"));
    await expect(local().embed(TEXTS, { kind: "document", signal: controller.signal })).rejects.toThrow("stop");
  });
});

describe("local provider without a model", () => {
  it("fails with the three ways out when the model folder does not hold a model", async () => {
    const missing = join(scratch, "no-such-folder");
    const model = local({ modelDir: missing });
    expect(model.modelId).toBe("Xenova/multilingual-e5-small");
    expect(model.dimensions).toBe(384);
    const error = await model.embed(["東京"], { kind: "document" }).catch((e: unknown) => e);
    expect(EmbeddingError.isInstance(error)).toBe(true);
    const message = (error as Error).message;
    expect(message).toContain(missing);
    expect(message).toContain("DOCDB_MODEL_DIR");
    expect(message).toContain("internet");
    expect(message).toContain("OPENAI_API_KEY");
    expect((error as EmbeddingError).retryable).toBe(false);
    // The failure is remembered: the next call gets the same error without trying again.
    const again = await model.embed(["大阪"], { kind: "document" }).catch((e: unknown) => e);
    expect(again).toBe(error);
  });

  it("fails with the three ways out when the hub cannot be reached (offline)", async () => {
    const port = await closedPort();
    const model = local({ modelDir: undefined, remoteHost: `http://127.0.0.1:${port}` });
    const error = await model.embed(["東京"], { kind: "query" }).catch((e: unknown) => e);
    expect(EmbeddingError.isInstance(error)).toBe(true);
    expect((error as Error).message).toMatch(/cannot be reached.*ECONNREFUSED/);
    expect((error as Error).message).toContain("OPENAI_API_KEY");
  });

  it("says so when downloads are off and the cache is empty", async () => {
    const model = local({ modelDir: undefined, allowDownload: false });
    await expect(model.embed(["x"], { kind: "document" })).rejects.toThrow(/downloads are turned off.*DOCDB_MODEL_DIR/);
  });

  it("refuses a model it cannot size before it is on disk", () => {
    expect(() => local({ modelDir: undefined, model: "someone/unknown-model" })).toThrow(/DOCDB_EMBEDDING_DIMENSIONS/);
  });
});

describe("local provider download on first use", () => {
  it("downloads from the hub into the cache with progress, then loads from the cache without the network", async () => {
    // The tiny model has one ONNX file; the hub serves it under the quantized name that is downloaded by default.
    const hub = await startFakeHub("docdb-test/tiny-bert", tiny, { "onnx/model_quantized.onnx": "onnx/model.onnx" });
    const cacheDir = join(scratch, "download-cache");
    try {
      const progress: DownloadProgress[] = [];
      const model = local({
        modelDir: undefined,
        model: "docdb-test/tiny-bert",
        dimensions: 32,
        cacheDir,
        remoteHost: hub.url,
        onDownloadProgress: (p) => progress.push(p),
      });
      const [downloaded] = await model.embed(["東京"], { kind: "document" });
      expect(downloaded?.length).toBe(32);
      expect(existsSync(join(cacheDir, "docdb-test", "tiny-bert", "onnx", "model_quantized.onnx"))).toBe(true);
      expect(progress.some((p) => p.file === "onnx/model_quantized.onnx" && p.done && p.loaded > 100_000)).toBe(true);
      const served = hub.requests.length;

      const offline = local({ modelDir: undefined, model: "docdb-test/tiny-bert", cacheDir, allowDownload: false });
      expect(offline.dimensions).toBe(32);
      expect(offline.locate()).toMatchObject({ source: "cache", dtype: "q8" });
      const [cached] = await offline.embed(["東京"], { kind: "document" });
      expect(maxDifference(cached as Float32Array, downloaded as Float32Array)).toBeLessThan(1e-6);
      expect(hub.requests.length).toBe(served);
    } finally {
      await hub.close();
    }
  });

  it("names the model when the hub does not have it", async () => {
    const hub = await startFakeHub("docdb-test/tiny-bert", tiny);
    try {
      const model = local({ modelDir: undefined, model: "docdb-test/other", dimensions: 32, remoteHost: hub.url });
      await expect(model.embed(["x"], { kind: "document" })).rejects.toThrow(/has no model "docdb-test\/other" \(HTTP 404\)/);
    } finally {
      await hub.close();
    }
  });
});
