import { getEventListeners } from "node:events";
import { type AddressInfo, createServer as createNetServer, type Socket } from "node:net";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type FakeOpenAI, startFakeOpenAI } from "../../../test/support/fake-openai.js";
import { EmbeddingError, type EmbeddingModel, embedMany, OpenAIEmbeddingModel } from "../src/index.js";

let server: FakeOpenAI;
beforeEach(async () => {
  server = await startFakeOpenAI();
});
afterEach(async () => {
  await server.close();
});

const fast = { initialDelayMs: 5, maxDelayMs: 50 };

describe("OpenAI provider against a local /v1/embeddings server", () => {
  it("embeds with text-embedding-3-small, 1536 dims, in input order, sending the key", async () => {
    const model = new OpenAIEmbeddingModel({ apiKey: "sk-test", baseURL: server.url });
    expect(model).toMatchObject({ provider: "openai", modelId: "text-embedding-3-small", dimensions: 1536, maxBatchSize: 100 });
    const vectors = await embedMany(model, ["東京", "大阪", "東京"], { kind: "document" });
    expect(vectors).toHaveLength(3);
    expect(vectors[0]).toBeInstanceOf(Float32Array);
    expect(vectors[0]?.length).toBe(1536);
    expect(Array.from(vectors[0]!)).toEqual(Array.from(vectors[2]!));
    expect(Array.from(vectors[0]!)).not.toEqual(Array.from(vectors[1]!));
    expect(server.requests[0]).toMatchObject({ model: "text-embedding-3-small", authorization: "Bearer sk-test" });
  });

  it("splits 250 texts into batches of at most 100", async () => {
    const model = new OpenAIEmbeddingModel({ apiKey: "k", baseURL: server.url });
    const texts = Array.from({ length: 250 }, (_, i) => `text ${i}`);
    const vectors = await embedMany(model, texts, { kind: "document", concurrency: 2 });
    expect(vectors).toHaveLength(250);
    expect(server.requests.map((r) => r.input.length).sort((a, b) => a - b)).toEqual([50, 100, 100]);
    const single = await embedMany(model, ["text 137"], { kind: "document" });
    expect(Array.from(vectors[137]!)).toEqual(Array.from(single[0]!));
  });

  it("retries a 429 after its Retry-After and then succeeds", async () => {
    server.failures.push({ status: 429, retryAfter: "0.2" });
    const model = new OpenAIEmbeddingModel({ apiKey: "k", baseURL: server.url });
    const retries: number[] = [];
    const started = Date.now();
    const vectors = await embedMany(model, ["a"], { kind: "query", ...fast, maxDelayMs: 5000, onRetry: (r) => retries.push(r.delayMs) });
    expect(vectors).toHaveLength(1);
    expect(server.requests).toHaveLength(2);
    expect(retries).toHaveLength(1);
    expect(retries[0]).toBeGreaterThanOrEqual(200);
    expect(Date.now() - started).toBeGreaterThanOrEqual(190);
  });

  it("retries 500s and gives up with a retryable error after maxRetries", async () => {
    server.failures.push({ status: 500 }, { status: 503 });
    const model = new OpenAIEmbeddingModel({ apiKey: "k", baseURL: server.url });
    await expect(embedMany(model, ["a"], { kind: "document", ...fast })).resolves.toHaveLength(1);
    expect(server.requests).toHaveLength(3);

    server.failures.push({ status: 500 }, { status: 500 }, { status: 500 });
    const error = await embedMany(model, ["b"], { kind: "document", ...fast, maxRetries: 2 }).catch((e: unknown) => e);
    expect(EmbeddingError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ status: 500, retryable: true, provider: "openai" });
  });

  it("does not retry a 400 or a 401, and says what to check", async () => {
    server.failures.push({ status: 401, body: { error: { message: "Incorrect API key", type: "invalid_request_error" } } });
    const model = new OpenAIEmbeddingModel({ apiKey: "bad", baseURL: server.url });
    const error = (await embedMany(model, ["a"], { kind: "document", ...fast }).catch((e: unknown) => e)) as EmbeddingError;
    expect(error.retryable).toBe(false);
    expect(error.message).toMatch(/401.*OPENAI_API_KEY/);
    expect(server.requests).toHaveLength(1);
  });

  it("reports an unreachable server as retryable connection failure", async () => {
    const model = new OpenAIEmbeddingModel({ apiKey: "k", baseURL: "http://127.0.0.1:9/v1", timeoutMs: 2000 });
    const error = (await embedMany(model, ["a"], { kind: "document", ...fast, maxRetries: 1 }).catch((e: unknown) => e)) as EmbeddingError;
    expect(EmbeddingError.isInstance(error)).toBe(true);
    expect(error.retryable).toBe(true);
    expect(error.message).toMatch(/cannot reach/);
  });

  it("asks for reduced dimensions when configured and rejects a wrong-sized answer", async () => {
    const model = new OpenAIEmbeddingModel({ apiKey: "k", baseURL: server.url, dimensions: 256 });
    const [vector] = await model.embed(["x"], { kind: "document" });
    expect(vector?.length).toBe(256);
    expect(server.requests[0]?.dimensions).toBe(256);

    const other = await startFakeOpenAI({ dimensions: 8 });
    try {
      const liar = new OpenAIEmbeddingModel({ apiKey: "k", baseURL: other.url, model: "text-embedding-ada-002" });
      await expect(liar.embed(["x"], { kind: "document" })).rejects.toThrow(/8 dimensions, expected 1536/);
    } finally {
      await other.close();
    }
  });
});

describe("embedMany", () => {
  it("stops waiting when aborted", async () => {
    server.failures.push({ status: 429, retryAfter: "30" });
    const model = new OpenAIEmbeddingModel({ apiKey: "k", baseURL: server.url });
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error("stop")), 100);
    await expect(embedMany(model, ["a"], { kind: "document", signal: controller.signal })).rejects.toThrow("stop");
  });
});

describe("embedMany robustness", () => {
  it("retries a malformed 200 answer like a 5xx", async () => {
    server.failures.push({ status: 200, body: { object: "list" } }, { status: 200, body: "not an embedding list" });
    const model = new OpenAIEmbeddingModel({ apiKey: "k", baseURL: server.url });
    await expect(embedMany(model, ["a"], { kind: "document", ...fast })).resolves.toHaveLength(1);
    expect(server.requests).toHaveLength(3);
  });

  it("names the status once in an API error", async () => {
    server.failures.push({ status: 429, body: { error: { message: "Rate limit reached for requests", type: "requests" } } });
    const model = new OpenAIEmbeddingModel({ apiKey: "k", baseURL: server.url });
    const error = (await embedMany(model, ["a"], { kind: "document", ...fast, maxRetries: 0 }).catch((e: unknown) => e)) as Error;
    expect(error.message).toMatch(/^OpenAI API error 429: Rate limit reached/);
    expect(error.message).not.toMatch(/429: 429/);
  });

  it("gives up at the overall deadline on a provider that accepts and never answers", async () => {
    const sockets: Socket[] = [];
    const silent = createNetServer((socket) => sockets.push(socket));
    await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
    try {
      const { port } = silent.address() as AddressInfo;
      const model = new OpenAIEmbeddingModel({ apiKey: "k", baseURL: `http://127.0.0.1:${port}/v1` });
      const started = Date.now();
      const error = (await embedMany(model, ["a"], { kind: "document", deadlineMs: 400 }).catch((e: unknown) => e)) as EmbeddingError;
      expect(Date.now() - started).toBeLessThan(5000);
      expect(EmbeddingError.isInstance(error)).toBe(true);
      expect(error).toMatchObject({ retryable: true, message: expect.stringContaining("did not answer within 0.4 s") });
    } finally {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => silent.close(() => resolve()));
    }
  });

  it("leaves no abort listeners on the caller's signal, however many batches (no MaxListenersExceededWarning)", async () => {
    const controller = new AbortController();
    let most = 0;
    // Like the openai SDK: a listener on the given signal per call, never removed.
    const leaky: EmbeddingModel = {
      provider: "leaky",
      modelId: "leaky",
      dimensions: 2,
      maxBatchSize: 1,
      supportsParallelCalls: true,
      async embed(texts, options) {
        options.signal?.addEventListener("abort", () => undefined);
        most = Math.max(most, getEventListeners(controller.signal, "abort").length);
        await new Promise((resolve) => setImmediate(resolve));
        return texts.map(() => new Float32Array([1, 0]));
      },
    };
    const warnings: Error[] = [];
    const onWarning = (warning: Error) => warnings.push(warning);
    process.on("warning", onWarning);
    try {
      await expect(
        embedMany(
          leaky,
          Array.from({ length: 40 }, (_, i) => `t${i}`),
          { kind: "document", signal: controller.signal },
        ),
      ).resolves.toHaveLength(40);
    } finally {
      process.off("warning", onWarning);
    }
    expect(most).toBeLessThanOrEqual(1);
    expect(getEventListeners(controller.signal, "abort")).toHaveLength(0);
    expect(warnings.filter((w) => w.name === "MaxListenersExceededWarning")).toEqual([]);
  });
});
