// Each provider's own request timeout covers the answer's body: a server that sends 200 and the
// start of a body, then stalls, fails the call as a retryable timeout (no overall deadline given).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type StallingServer, startStallingServer } from "../../../test/support/stalling-server.js";
import { EmbeddingError, HttpReranker, OllamaEmbeddingModel, OpenAIEmbeddingModel } from "../src/index.js";

let server: StallingServer;
beforeAll(async () => {
  server = await startStallingServer("after-headers");
});
afterAll(() => server.close());

async function failure(work: Promise<unknown>): Promise<EmbeddingError> {
  const error = await work.then(
    () => new Error("answered"),
    (e: unknown) => e,
  );
  expect(EmbeddingError.isInstance(error), String(error)).toBe(true);
  return error as EmbeddingError;
}

describe("a body that stalls after the headers", () => {
  it("OpenAI: the request timeout ends it", async () => {
    const model = new OpenAIEmbeddingModel({ apiKey: "k", baseURL: `${server.url}/v1`, dimensions: 8, model: "m", timeoutMs: 300 });
    const error = await failure(model.embed(["a"], { kind: "document" }));
    expect(error).toMatchObject({ retryable: true, message: "the OpenAI request got no complete answer within 300 ms" });
  });

  it("Ollama: the request timeout ends it, and says the answer stopped", async () => {
    const model = new OllamaEmbeddingModel({ baseURL: server.url, model: "all-minilm", timeoutMs: 300 });
    const error = await failure(model.embed(["a"], { kind: "document" }));
    expect(error).toMatchObject({ retryable: true });
    expect(error.message).toBe(`Ollama at ${server.url} stopped sending its answer: no complete answer within 300 ms`);
  });

  it("a rerank endpoint: each attempt's timeout ends it", async () => {
    const reranker = new HttpReranker({ url: server.url, timeoutMs: 300, maxAttempts: 1 });
    const error = await failure(reranker.rerank("q", ["a", "b"]));
    expect(error).toMatchObject({ retryable: true });
    expect(error.message).toMatch(/^rerank endpoint .*\/rerank stopped sending its answer/);
  });
});
