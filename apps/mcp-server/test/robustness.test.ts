import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hostileMessages } from "./support/hostile.js";
import { type JsonRpcResponse, RawStdioServer } from "./support/raw-stdio.js";
import { type HttpServerProcess, startHttpServer, tempDataDir } from "./support/server-process.js";

describe("docdb-mcp survives hostile input on stdio", () => {
  const data = tempDataDir();
  let server: RawStdioServer;
  beforeAll(async () => {
    server = new RawStdioServer(data.dir);
    await server.initialize();
  });
  afterAll(async () => {
    await server.stop();
    data.remove();
  });

  it("answers every request, well-formed or not (JSON-RPC errors with id null when none can be read), and still works afterwards", async () => {
    const messages = hostileMessages();
    expect(messages.length).toBeGreaterThanOrEqual(300);
    for (const message of messages) server.write(message.line);
    // A line bigger than the server accepts (8 MiB) is dropped whole, without answer or damage.
    server.write(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: { pad: "p".repeat(9 * 1024 * 1024) } }));

    const expected = messages.filter((m) => m.id !== undefined && m.expect !== "ignored");
    // Every unreadable message, and the oversized line, is answered with id null.
    const rejected = messages.filter((m) => m.expect === "rejected").length + 1;
    const nullAnswers = () => server.responses.get(null as unknown as number) ?? [];
    const deadline = Date.now() + 40_000;
    while (Date.now() < deadline && (expected.some((m) => !server.responses.has(m.id as number)) || nullAnswers().length < rejected)) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(nullAnswers()).toHaveLength(rejected);
    for (const answer of nullAnswers()) {
      expect([-32700, -32600], JSON.stringify(answer)).toContain(answer.error?.code);
      expect(answer.error?.data?.code).toBe("INVALID_REQUEST");
    }
    const missing = expected.filter((m) => !server.responses.has(m.id as number)).map((m) => m.line.slice(0, 200));
    expect(missing, `unanswered; server alive: ${server.alive}; stderr tail:\n${server.stderr.slice(-3000)}`).toEqual([]);
    const settled = expected.map((m) => server.responses.get(m.id as number)?.[0] as JsonRpcResponse);
    const byId = new Map(settled.map((r) => [r.id, r]));
    for (const message of messages) {
      if (message.id === undefined) continue;
      if (message.expect === "ignored") {
        expect(server.responses.has(message.id), message.line).toBe(false);
        continue;
      }
      const response = byId.get(message.id) as JsonRpcResponse;
      const where = `${message.line.slice(0, 160)} → ${JSON.stringify(response).slice(0, 300)}`;
      expect(server.responses.get(message.id), where).toHaveLength(1);
      if (message.expect === "invalid") {
        expect(response.error?.data?.code, where).toBe("INVALID_REQUEST");
        expect(response.error?.message.length, where).toBeLessThan(2000);
      } else if (message.expect === "tool-error") {
        expect(response.result?.isError, where).toBe(true);
        expect(response.result?.structuredContent, where).toMatchObject({ error: { code: "INVALID_REQUEST" } });
      } else {
        expect(response.result ?? response.error, where).toBeDefined();
      }
    }

    await server.request("after-0", "tools/call", { name: "create_database", arguments: { db_name: "calm" } });
    const inserted = await server.request("after-1", "tools/call", {
      name: "insert_document",
      arguments: { text: "嵐のあとでも検索できる文書です。", db_name: "calm" },
    });
    const docId = (inserted.result?.structuredContent as { doc_id: string } | undefined)?.doc_id;
    expect(docId).toMatch(/^[0-9A-Z]{26}$/);
    const found = await server.request("after-2", "tools/call", {
      name: "find_similar_documents",
      arguments: { text: "検索できる文書", db_name: "calm", mode: "keyword" },
    });
    expect((found.result?.structuredContent as { results: { doc_id: string }[] } | undefined)?.results[0]?.doc_id).toBe(docId);
    expect(server.responses.has(1)).toBe(false); // the oversized line was answered with id null, as unreadable
    expect(server.stdoutGarbage).toEqual([]);
    expect(server.alive).toBe(true);
    expect(server.stderr).toMatch(/dropped a stdin message larger than the limit/);
  });
});

/** The JSON-RPC message in a Streamable HTTP answer (plain JSON or one SSE event). */
function rpcMessage(contentType: string | null, body: string): JsonRpcResponse | undefined {
  if (contentType?.includes("text/event-stream")) {
    const data = body.split("\n").find((line) => line.startsWith("data: ") && line.length > 6);
    return data ? (JSON.parse(data.slice(6)) as JsonRpcResponse) : undefined;
  }
  return body ? (JSON.parse(body) as JsonRpcResponse) : undefined;
}

describe("docdb-mcp survives hostile input over HTTP", () => {
  const data = tempDataDir();
  let server: HttpServerProcess;
  beforeAll(async () => {
    server = await startHttpServer(["--data-dir", data.dir]);
  });
  afterAll(async () => {
    await server.stop();
    data.remove();
  });

  it("answers each hostile POST with a 4xx or a JSON-RPC answer, never a 5xx, and still works afterwards", async () => {
    const headers = { "content-type": "application/json", accept: "application/json, text/event-stream" };
    const initialize = await fetch(server.url, {
      method: "POST",
      headers,
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 0,
        method: "initialize",
        params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "0" } },
      }),
    });
    const session = initialize.headers.get("mcp-session-id") as string;
    expect(session).toBeTruthy();
    await initialize.text();
    const post = (body: string) => fetch(server.url, { method: "POST", headers: { ...headers, "mcp-session-id": session }, body });
    await (await post(JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }))).text();

    for (const message of hostileMessages()) {
      const response = await post(message.line);
      const body = await response.text();
      const where = `${message.line.slice(0, 160)} → ${response.status} ${body.slice(0, 300)}`;
      if (message.expect === "ignored") {
        expect(response.status, where).toBeLessThan(500);
        continue;
      }
      if (message.expect === "rejected") {
        expect(response.status, where).toBe(400);
        expect(JSON.parse(body), where).toMatchObject({ jsonrpc: "2.0", id: null, error: { data: { code: "INVALID_REQUEST" } } });
        continue;
      }
      // Refused before the SDK (bad params or jsonrpc version): 400 with the request's id.
      expect([200, 400], where).toContain(response.status);
      const answer = rpcMessage(response.headers.get("content-type"), body);
      expect(answer?.id, where).toBe(message.id);
      if (message.expect === "invalid") expect(answer?.error?.data?.code, where).toBe("INVALID_REQUEST");
      if (message.expect === "tool-error") expect(answer?.result?.isError, where).toBe(true);
    }

    const client = new Client({ name: "after", version: "0" });
    await client.connect(new StreamableHTTPClientTransport(new URL(server.url)));
    const result = await client.callTool({ name: "insert_document", arguments: { text: "まだ動いています。" } });
    expect(result.isError ?? false).toBe(false);
    await client.close();
    expect(server.child.exitCode).toBeNull();
  });
});
