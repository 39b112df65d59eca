import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { closedPort } from "../../../test/support/fake-hf-hub.js";
import { type FakeOllama, startFakeOllama } from "../../../test/support/fake-ollama.js";
import { fakeVector } from "../../../test/support/fake-openai.js";
import { EmbeddingError, embedMany, OllamaEmbeddingModel } from "../src/index.js";

let server: FakeOllama;
beforeEach(async () => {
  server = await startFakeOllama({ "bge-m3": 1024, "nomic-embed-text": 768, "my-embedder": 64 });
});
afterEach(async () => {
  await server.close();
});

const fast = { initialDelayMs: 5, maxDelayMs: 50 };

describe("Ollama provider against a local /api/embed server", () => {
  it("embeds with bge-m3 (1024 dims) by default, in input order, truncating long inputs", async () => {
    const model = new OllamaEmbeddingModel({ baseURL: server.url });
    expect(model).toMatchObject({ provider: "ollama", modelId: "bge-m3", dimensions: 1024, supportsParallelCalls: false });
    const vectors = await model.embed(["東京", "大阪", "東京"], { kind: "document" });
    expect(vectors.map((v) => v.length)).toEqual([1024, 1024, 1024]);
    expect(Array.from(vectors[0]!)).toEqual(Array.from(vectors[2]!));
    expect(Array.from(vectors[1]!)).toEqual(Array.from(Float32Array.from(fakeVector("大阪", 1024))));
    expect(server.requests[0]).toEqual({ model: "bge-m3", input: ["東京", "大阪", "東京"], truncate: true });
  });

  it("adds nomic-embed-text's search prefixes by kind, whatever the tag", async () => {
    const model = new OllamaEmbeddingModel({ baseURL: `${server.url}/`, model: "nomic-embed-text:latest" });
    expect(model.dimensions).toBe(768);
    await model.embed(["rotate tokens"], { kind: "query" });
    await model.embed(["how to rotate tokens"], { kind: "document" });
    expect(server.requests.map((r) => r.input[0])).toEqual(["search_query: rotate tokens", "search_document: how to rotate tokens"]);
  });

  it("accepts host:port like OLLAMA_HOST and an explicit size for a model it does not know", async () => {
    const model = new OllamaEmbeddingModel({ baseURL: server.url.replace("http://", ""), model: "my-embedder", dimensions: 64 });
    const [vector] = await model.embed(["x"], { kind: "document" });
    expect(vector?.length).toBe(64);
  });

  it("asks for the dimensions of a model it does not know", () => {
    expect(() => new OllamaEmbeddingModel({ baseURL: server.url, model: "my-embedder" })).toThrow(
      /DOCDB_EMBEDDING_DIMENSIONS.*ollama show my-embedder/,
    );
  });

  it("splits large inputs into batches of maxBatchSize through embedMany", async () => {
    const model = new OllamaEmbeddingModel({ baseURL: server.url, maxBatchSize: 10 });
    const texts = Array.from({ length: 25 }, (_, i) => `text ${i}`);
    const vectors = await embedMany(model, texts, { kind: "document" });
    expect(server.requests.map((r) => r.input.length)).toEqual([10, 10, 5]);
    expect(Array.from(vectors[17]!)).toEqual(Array.from(Float32Array.from(fakeVector("text 17", 1024))));
  });

  it("tells to pull a model Ollama does not have", async () => {
    const model = new OllamaEmbeddingModel({ baseURL: server.url, model: "mxbai-embed-large" });
    const error = await model.embed(["x"], { kind: "document" }).catch((e: unknown) => e);
    expect(EmbeddingError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ status: 404, retryable: false });
    expect((error as Error).message).toContain("ollama pull mxbai-embed-large");
  });

  it("retries a 500 and then succeeds", async () => {
    server.failures.push({ status: 500, error: "llama runner process has terminated" });
    const model = new OllamaEmbeddingModel({ baseURL: server.url });
    const vectors = await embedMany(model, ["x"], { kind: "document", ...fast });
    expect(vectors).toHaveLength(1);
    expect(server.requests).toHaveLength(2);
  });

  it("rejects an answer of the wrong size with the setting to fix", async () => {
    const model = new OllamaEmbeddingModel({ baseURL: server.url, model: "my-embedder", dimensions: 128 });
    await expect(model.embed(["x"], { kind: "document" })).rejects.toThrow(/returned 64 dimensions.*expected 128/);
  });

  it("fails at once with a clear error when nothing listens at the URL", async () => {
    const url = `http://127.0.0.1:${await closedPort()}`;
    const model = new OllamaEmbeddingModel({ baseURL: url });
    const error = await embedMany(model, ["x"], { kind: "document", ...fast }).catch((e: unknown) => e);
    expect(EmbeddingError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ provider: "ollama", retryable: false });
    expect((error as Error).message).toContain(`cannot reach Ollama at ${url} (ECONNREFUSED)`);
    expect((error as Error).message).toContain("ollama serve");
  });

  it("gives up on a server that does not answer in time", async () => {
    server.onRequest = () => new Promise((resolve) => setTimeout(resolve, 2000));
    const model = new OllamaEmbeddingModel({ baseURL: server.url, timeoutMs: 100 });
    await expect(model.embed(["x"], { kind: "document" })).rejects.toMatchObject({
      retryable: true,
      message: expect.stringContaining("did not answer"),
    });
  });
});
