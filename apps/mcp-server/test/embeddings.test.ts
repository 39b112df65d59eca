import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FakeOpenAI, startFakeOpenAI } from "../../../test/support/fake-openai.js";
import { ok, TOKYO } from "./support/agent-flow.js";
import { assertBuilt, BIN, serverEnv, tempDataDir } from "./support/server-process.js";

// The other suites run without a model; this one gives the server an embedding provider (a
// local fake of OpenAI's HTTP API) so vector and hybrid search run through MCP for real.
describe("docdb-mcp with an embedding model", () => {
  const data = tempDataDir();
  let openai: FakeOpenAI;
  let client: Client;

  beforeAll(async () => {
    openai = await startFakeOpenAI({ dimensions: 64 });
    client = new Client({ name: "docdb-test", version: "0" });
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [assertBuilt(BIN), "--data-dir", data.dir],
        env: serverEnv({
          DOCDB_EMBEDDING: "openai",
          OPENAI_API_KEY: "sk-test",
          OPENAI_BASE_URL: openai.url,
          DOCDB_EMBEDDING_DIMENSIONS: "64",
        }),
        stderr: "pipe",
      }),
    );
  });
  afterAll(async () => {
    await client?.close();
    await openai?.close();
    data.remove();
  });

  it("embeds on insert and finds by vector and hybrid search", async () => {
    const tokyo = await ok<{ doc_id: string; embedded: boolean }>(client, "insert_document", { text: TOKYO });
    expect(tokyo.embedded).toBe(true);
    await ok(client, "insert_document", { text: "The Rhine flows from the Swiss Alps into the North Sea." });
    expect(openai.requests.length).toBeGreaterThanOrEqual(2);

    const vector = await ok<{ results: { doc_id: string; distance?: number }[]; warnings: string[] }>(client, "find_similar_documents", {
      text: "東京は日本の首都で、人口は約1400万人",
      mode: "vector",
      top_k: 2,
    });
    expect(vector.results[0]?.doc_id).toBe(tokyo.doc_id);
    expect(vector.results[0]?.distance).toBeTypeOf("number");
    expect(vector.warnings).toEqual([]);

    // `exact` forces the exact scan; on a small database both paths give the same answer.
    const exact = await ok<{ results: { doc_id: string; distance?: number }[] }>(client, "find_similar_documents", {
      text: "東京は日本の首都で、人口は約1400万人",
      mode: "vector",
      top_k: 2,
      exact: true,
    });
    expect(exact.results.map((r) => [r.doc_id, r.distance])).toEqual(vector.results.map((r) => [r.doc_id, r.distance]));
    await expect(client.callTool({ name: "find_similar_documents", arguments: { text: "x", exact: "yes" } })).rejects.toThrow(
      /exact: .*expected boolean/,
    );

    const hybrid = await ok<{ results: { doc_id: string }[]; mode: string }>(client, "find_similar_documents", { text: "隅田川と浅草" });
    expect(hybrid.mode).toBe("hybrid");
    expect(hybrid.results[0]?.doc_id).toBe(tokyo.doc_id);

    const status = await ok<{ pending: number; model: { dimensions: number }; server_model: { provider: string } }>(client, "status");
    expect(status).toMatchObject({ pending: 0, model: { dimensions: 64 }, server_model: { provider: "openai" } });
  });
});
