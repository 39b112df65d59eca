// Deadlines that hold over MCP: insert_document and store_qa against a provider that never
// answers or stalls after its headers, rerank against such an endpoint, and a client that never
// answers merge_knowledge's sampling request. Each call ends with its deadline's answer.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { CreateMessageRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { afterEach, describe, expect, it } from "vitest";
import { type Stall, startStallingServer } from "../../../test/support/stalling-server.js";
import { call, expectToolError, ok } from "./support/agent-flow.js";
import { assertBuilt, BIN, serverEnv, tempDataDir } from "./support/server-process.js";

/** Each request must be answered well before this (the deadlines are 300 ms). */
const GIVE_UP_MS = 30_000;

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function connect(env: Record<string, string>, options: { sampling?: boolean } = {}): Promise<Client> {
  const data = tempDataDir();
  cleanups.push(() => data.remove());
  const client = new Client({ name: "docdb-deadlines", version: "0" }, options.sampling ? { capabilities: { sampling: {} } } : {});
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [assertBuilt(BIN), "--data-dir", data.dir],
      env: serverEnv({ DOCDB_EMBED_DEADLINE_MS: "300", ...env }),
      stderr: "pipe",
    }),
  );
  cleanups.push(() => client.close());
  return client;
}

/** A tool call that must be answered within GIVE_UP_MS (the SDK's own timeout is a minute). */
function within<T>(work: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${GIVE_UP_MS} ms`)), GIVE_UP_MS);
  });
  return Promise.race([work, late]).finally(() => clearTimeout(timer));
}

describe.each<Stall>(["silent", "after-headers"])("an OpenAI provider that is %s", (stall) => {
  it("insert_document and store_qa answer within the deadline, stored pending, and say so", async () => {
    const provider = await startStallingServer(stall);
    cleanups.push(() => provider.close());
    const client = await connect({
      DOCDB_EMBEDDING: "openai",
      OPENAI_API_KEY: "sk-test",
      OPENAI_BASE_URL: `${provider.url}/v1`,
      DOCDB_EMBEDDING_DIMENSIONS: "32",
    });

    const inserted = await within(
      ok<{ embedded: boolean; warnings: string[]; doc_id: string }>(client, "insert_document", {
        text: "Tide tables for the northern harbour.",
        key: "tides",
      }),
    );
    expect(inserted.embedded).toBe(false);
    expect(inserted.warnings.join(" ")).toMatch(/did not answer within 0\.3 s/);

    // store_qa creates the topic and stores the question, under one deadline (counted in
    // packages/core/test/deadlines.test.ts, where no background embedder asks the provider too).
    const qa = await within(
      ok<{ embedded: boolean; warnings: string[]; qa_id: string }>(client, "store_qa", {
        question: "Who keeps the tide tables?",
        answer: "The harbour master.",
        topic: "Harbour",
      }),
    );
    expect(qa.embedded).toBe(false);
    expect(qa.warnings.join(" ")).toMatch(/did not answer within 0\.3 s/);

    // Nothing lost: both are found by keywords.
    const found = await ok<{ results: { doc_id: string }[] }>(client, "find_similar_documents", { text: "tide tables", mode: "keyword" });
    expect(found.results.map((r) => r.doc_id)).toContain(inserted.doc_id);
    const answered = await ok<{ results: { id: string }[] }>(client, "query_qa", { question: "tide tables" });
    expect(answered.results.map((r) => r.id)).toContain(qa.qa_id);
  });

  it("a rerank endpoint that stalls the same way: find with rerank fails within the deadline as RERANKER_UNAVAILABLE", async () => {
    const reranker = await startStallingServer(stall);
    cleanups.push(() => reranker.close());
    const client = await connect({ DOCDB_RERANKER_URL: reranker.url, DOCDB_RERANK_DEADLINE_MS: "300" });
    await ok(client, "insert_document", { text: "The harbour master keeps the tide tables." });
    const message = await within(
      expectToolError(client, "find_similar_documents", { text: "tide tables", mode: "keyword", rerank: true }, "RERANKER_UNAVAILABLE"),
    );
    expect(message).toMatch(/cohere did not answer within 0\.3 s \(DOCDB_RERANK_DEADLINE_MS\)/);
    expect(reranker.received).toBeGreaterThan(0);
  });
});

describe("a client that never answers a sampling request", () => {
  it("merge_knowledge fails after DOCDB_SAMPLING_TIMEOUT_MS with SAMPLING_UNAVAILABLE, listing the groups", async () => {
    const client = await connect({ DOCDB_SAMPLING_TIMEOUT_MS: "300" }, { sampling: true });
    let asked = 0;
    client.setRequestHandler(CreateMessageRequestSchema, () => {
      asked++;
      return new Promise(() => undefined);
    });
    const one = await ok<{ qa_id: string }>(client, "store_qa", {
      question: "How do I roll back a failed deploy?",
      answer: "deploy rollback --to previous",
      topic: "Deploy",
    });
    const two = await ok<{ qa_id: string }>(client, "store_qa", {
      question: "How can I roll back a deploy that failed?",
      answer: "deploy rollback",
      topic: "Deploy",
    });
    const result = await within(call(client, "merge_knowledge", {}));
    expect(result.isError).toBe(true);
    const error = (result.structuredContent as { error: { code: string; message: string } }).error;
    expect(error.code).toBe("SAMPLING_UNAVAILABLE");
    expect(error.message).toMatch(/no answer within 0\.3 s; DOCDB_SAMPLING_TIMEOUT_MS/);
    expect(error.message).toContain(one.qa_id);
    expect(error.message).toContain(two.qa_id);
    expect(asked).toBe(1);
    // Nothing was merged: both QAs are still answers.
    const qas = await ok<{ results: { id: string }[] }>(client, "query_qa", { question: "roll back a failed deploy" });
    expect(qas.results.map((r) => r.id).sort()).toEqual([one.qa_id, two.qa_id].sort());
  });
});
