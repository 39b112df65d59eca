import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { tinyRerankerDir } from "../../../test/support/tiny-model.js";
import { call, expectToolError, ok } from "./support/agent-flow.js";
import { assertBuilt, BIN, serverEnv, tempDataDir } from "./support/server-process.js";

async function connect(dataDir: string, env: Record<string, string>): Promise<Client> {
  const client = new Client({ name: "docdb-test", version: "0" });
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [assertBuilt(BIN), "--data-dir", dataDir],
      env: serverEnv(env),
      stderr: "pipe",
    }),
  );
  return client;
}

describe("find_similar_documents with rerank", () => {
  const data = tempDataDir();
  let client: Client;
  let without: Client;

  beforeAll(async () => {
    client = await connect(data.dir, { DOCDB_RERANKER: "local", DOCDB_RERANKER_MODEL_DIR: tinyRerankerDir() });
    without = await connect(data.dir, { DOCDB_RERANKER: "none" });
  });
  afterAll(async () => {
    await client?.close();
    await without?.close();
    data.remove();
  });

  it("reorders by the local cross-encoder and says so; without a reranker it is a RERANKER_UNAVAILABLE tool error", async () => {
    for (const text of ["Tokyo is the capital of Japan.", "The population of Tokyo is large.", "Tokyo Tower is red and white."]) {
      await ok(client, "insert_document", { text });
    }
    const plain = await ok<{ results: { chunk_id: string; score: number }[] }>(client, "find_similar_documents", {
      text: "tokyo",
      mode: "keyword",
    });
    const reranked = await call(client, "find_similar_documents", { text: "tokyo", mode: "keyword", rerank: true });
    expect(reranked.isError ?? false).toBe(false);
    const structured = reranked.structuredContent as {
      results: { chunk_id: string; score: number; retrieval_score: number }[];
      reranked_by: string;
    };
    expect(structured.reranked_by).toBe("local/tiny-bert-reranker");
    expect(new Set(structured.results.map((r) => r.chunk_id))).toEqual(new Set(plain.results.map((r) => r.chunk_id)));
    const scores = structured.results.map((r) => r.score);
    expect([...scores].sort((a, b) => b - a)).toEqual(scores);
    const text = reranked.content.map((part) => (part.type === "text" ? part.text : "")).join("");
    expect(text).toMatch(/reranked by local\/tiny-bert-reranker/);

    const message = await expectToolError(without, "find_similar_documents", { text: "tokyo", rerank: true }, "RERANKER_UNAVAILABLE");
    expect(message).toMatch(/reranking is turned off/);
  });
});
