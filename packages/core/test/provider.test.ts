import { mkdirSync, mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { LocalEmbeddingModel, OllamaEmbeddingModel, OpenAIEmbeddingModel } from "@docdb/embed";
import { afterAll, describe, expect, it } from "vitest";
import { tinyModelDir } from "../../../test/support/tiny-model.js";
import { createEmbeddingModel, DocDBError, embeddingConfigFromEnv, openDocDB, resolveEmbeddingConfig, silentLogger } from "../src/index.js";

const scratch = mkdtempSync(join(tmpdir(), "docdb-provider-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** A clean environment: only what a test names, and never the user's caches. */
function env(vars: Record<string, string> = {}): NodeJS.ProcessEnv {
  return { DOCDB_MODEL_CACHE: join(scratch, "cache"), HF_HUB_CACHE: join(scratch, "hub"), ...vars };
}

const modelFor = (vars: Record<string, string>, explicit = {}) => createEmbeddingModel(resolveEmbeddingConfig(explicit, env(vars)));

function codeOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (error) {
    return DocDBError.isInstance(error) ? error.code : "not a DocDBError";
  }
  return undefined;
}

describe("choosing the embedding provider", () => {
  it("defaults to the local multilingual-e5-small without a key, and to OpenAI with one", () => {
    const local = modelFor({});
    expect(local).toBeInstanceOf(LocalEmbeddingModel);
    expect(local).toMatchObject({ provider: "local", modelId: "Xenova/multilingual-e5-small", dimensions: 384 });
    const openai = modelFor({ OPENAI_API_KEY: "sk-test" });
    expect(openai).toBeInstanceOf(OpenAIEmbeddingModel);
    expect(openai).toMatchObject({ modelId: "text-embedding-3-small", dimensions: 1536 });
  });

  it("follows DOCDB_EMBEDDING and DOCDB_EMBEDDING_MODEL over the default", () => {
    expect(modelFor({ OPENAI_API_KEY: "sk-test", DOCDB_EMBEDDING: "local" })).toBeInstanceOf(LocalEmbeddingModel);
    expect(modelFor({ DOCDB_EMBEDDING: "None" })).toBe(null);
    expect(modelFor({ DOCDB_EMBEDDING: "local", DOCDB_EMBEDDING_MODEL: "multilingual-e5-base" })).toMatchObject({
      modelId: "Xenova/multilingual-e5-base",
      dimensions: 768,
    });
    const ollama = modelFor({ DOCDB_EMBEDDING: "ollama", OLLAMA_HOST: "10.0.0.5:11434", DOCDB_EMBEDDING_MODEL: "nomic-embed-text" });
    expect(ollama).toBeInstanceOf(OllamaEmbeddingModel);
    expect(ollama).toMatchObject({ modelId: "nomic-embed-text", dimensions: 768, baseURL: "http://10.0.0.5:11434" });
    expect(modelFor({ DOCDB_EMBEDDING: "ollama", OLLAMA_HOST: "x:1", DOCDB_OLLAMA_URL: "http://y:2" })).toMatchObject({
      baseURL: "http://y:2",
    });
  });

  it("lets explicit settings win key by key, dropping an env model meant for another provider", () => {
    const vars = { DOCDB_EMBEDDING: "local", DOCDB_EMBEDDING_MODEL: "multilingual-e5-base", DOCDB_MODEL_DIR: "/models" };
    expect(resolveEmbeddingConfig({ provider: "none" }, env(vars)).provider).toBe("none");
    expect(resolveEmbeddingConfig({ model: "multilingual-e5-large" }, env(vars))).toMatchObject({
      provider: "local",
      model: "multilingual-e5-large",
      modelDir: "/models",
    });
    const switched = resolveEmbeddingConfig({ provider: "ollama" }, env(vars));
    expect(switched.model).toBeUndefined();
    expect(createEmbeddingModel(switched)).toMatchObject({ provider: "ollama", modelId: "bge-m3" });
  });

  it("reads the local model settings from the environment", () => {
    expect(embeddingConfigFromEnv(env({ DOCDB_MODEL_DOWNLOAD: "0" })).allowDownload).toBe(false);
    expect(embeddingConfigFromEnv(env({ HF_HUB_OFFLINE: "1" })).allowDownload).toBe(false);
    expect(embeddingConfigFromEnv(env({ HF_HUB_OFFLINE: "1", DOCDB_MODEL_DOWNLOAD: "yes" })).allowDownload).toBe(true);
    expect(
      embeddingConfigFromEnv(env({ DOCDB_MODEL_IDLE_SECONDS: "90", DOCDB_EMBED_THREADS: "2", HF_ENDPOINT: "https://hf-mirror.example" })),
    ).toMatchObject({
      idleUnloadMs: 90_000,
      threads: 2,
      modelHost: "https://hf-mirror.example",
    });
  });

  it("rejects settings that make no sense with INVALID_REQUEST", () => {
    expect(codeOf(() => embeddingConfigFromEnv(env({ DOCDB_EMBEDDING: "bogus" })))).toBe("INVALID_REQUEST");
    expect(codeOf(() => embeddingConfigFromEnv(env({ DOCDB_EMBEDDING_DIMENSIONS: "1.5" })))).toBe("INVALID_REQUEST");
    expect(codeOf(() => embeddingConfigFromEnv(env({ DOCDB_MODEL_IDLE_SECONDS: "-1" })))).toBe("INVALID_REQUEST");
  });

  it("reports a provider it cannot set up as EMBEDDING_UNAVAILABLE", () => {
    expect(codeOf(() => modelFor({ DOCDB_EMBEDDING: "openai" }))).toBe("EMBEDDING_UNAVAILABLE");
    expect(codeOf(() => modelFor({ DOCDB_EMBEDDING: "local", DOCDB_EMBEDDING_MODEL: "someone/unknown" }))).toBe("EMBEDDING_UNAVAILABLE");
    expect(codeOf(() => modelFor({ DOCDB_EMBEDDING: "ollama", DOCDB_EMBEDDING_MODEL: "custom" }))).toBe("EMBEDDING_UNAVAILABLE");
    expect(modelFor({ DOCDB_EMBEDDING: "ollama", DOCDB_EMBEDDING_MODEL: "custom", DOCDB_EMBEDDING_DIMENSIONS: "256" })).toMatchObject({
      dimensions: 256,
    });
  });
});

describe("core with the local provider", () => {
  it("stores a document pending when the provider cannot be set up, and says why", async () => {
    const docdb = openDocDB({
      dataDir: join(scratch, "unknown"),
      embedding: { provider: "local", model: "someone/unknown" },
      logger: silentLogger(),
    });
    try {
      expect(docdb.embedding).toBe(null);
      const result = await (await docdb.database("vectors", { create: true })).insertDocument({ text: "東京" });
      expect(result.embedded).toBe(false);
      expect(result.warnings[0]).toMatch(/unknown local model "someone\/unknown"/);
    } finally {
      await docdb.close();
    }
  });

  it("embeds on insert with the tiny model and finds by vector", async () => {
    const docdb = openDocDB({
      dataDir: join(scratch, "tiny"),
      embedding: { provider: "local", modelDir: tinyModelDir() },
      logger: silentLogger(),
    });
    try {
      const db = await docdb.database("vectors", { create: true });
      const a = await db.insertDocument({ text: "東京は日本の首都です。" });
      await db.insertDocument({ text: "Ollama runs models locally." });
      expect(a.embedded).toBe(true);
      const found = await db.findSimilar({ query: "東京は日本の首都です。", mode: "vector", top_k: 2 });
      expect(found.results[0]?.doc_id).toBe(a.doc_id);
      expect(found.results[0]?.distance).toBeLessThan(1e-4);
      expect(await db.status()).toMatchObject({ pending: 0, model: { provider: "local", model: "tiny-bert", dimensions: 32 } });
    } finally {
      await docdb.close();
    }
  });

  it("embeds queries as queries and documents as passages (e5 prefixes, through the known-model table)", async () => {
    // A models root where the e5 id holds the tiny files: the table's prefixes then apply.
    const root = join(scratch, "root");
    mkdirSync(join(root, "Xenova"), { recursive: true });
    symlinkSync(tinyModelDir(), join(root, "Xenova", "multilingual-e5-small"));
    const docdb = openDocDB({ dataDir: join(scratch, "e5"), embedding: { provider: "local", modelDir: root }, logger: silentLogger() });
    try {
      const db = await docdb.database("vectors", { create: true });
      const text = "東京は日本の首都です。";
      await db.insertDocument({ text });
      const found = await db.findSimilar({ query: text, mode: "vector" });
      expect((await db.status()).model).toMatchObject({ model: "Xenova/multilingual-e5-small" });
      // The same words as "query: …" and as "passage: …" are different inputs, so not distance 0.
      expect(found.results[0]?.distance).toBeGreaterThan(1e-3);
    } finally {
      await docdb.close();
    }
  });
});
