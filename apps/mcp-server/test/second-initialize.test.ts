import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type HttpServerProcess, startHttpServer, tempDataDir } from "./support/server-process.js";

describe("a second initialize in one HTTP session", () => {
  const data = tempDataDir();
  let server: HttpServerProcess;
  beforeAll(async () => {
    server = await startHttpServer(["--data-dir", data.dir]);
  });
  afterAll(async () => {
    await server?.stop();
    data.remove();
  });

  it("gets a clear JSON-RPC error, not a schema dump, and the session keeps working", async () => {
    const headers = { "content-type": "application/json", accept: "application/json, text/event-stream" };
    const params = { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "0" } };
    const first = await fetch(server.url, {
      method: "POST",
      headers,
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params }),
    });
    const session = first.headers.get("mcp-session-id") as string;
    expect(session).toBeTruthy();
    await first.text();
    const inSession = { ...headers, "mcp-session-id": session };

    for (const body of [
      { jsonrpc: "2.0", id: 2, method: "initialize", params },
      { jsonrpc: "2.0", id: 3, method: "initialize", params: {} },
    ]) {
      const again = await fetch(server.url, { method: "POST", headers: inSession, body: JSON.stringify(body) });
      expect(again.status).toBe(400);
      const answer = (await again.json()) as { error: { code: number; message: string; data: { code: string } } };
      expect(answer.error.code).toBe(-32600);
      expect(answer.error.data.code).toBe("INVALID_REQUEST");
      expect(answer.error.message).toBe(
        "this session is already initialized: send initialize without the mcp-session-id header to start a new session",
      );
    }

    const list = await fetch(server.url, {
      method: "POST",
      headers: inSession,
      body: JSON.stringify({ jsonrpc: "2.0", id: 4, method: "tools/list" }),
    });
    expect(list.status).toBe(200);
    expect(await list.text()).toContain("find_similar_documents");
  });
});
