import { spawn } from "node:child_process";
import { request as httpRequest } from "node:http";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { agentFlowSuite, TOOL_NAMES } from "./support/agent-flow.js";
import { assertBuilt, BIN, type HttpServerProcess, serverEnv, startHttpServer, tempDataDir } from "./support/server-process.js";

const TOKEN = "test-token-3f9c1e7a";
const auth = { authorization: `Bearer ${TOKEN}` };

async function connectHttp(url: string, headers: Record<string, string>): Promise<Client> {
  const client = new Client({ name: "docdb-test", version: "0.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }));
  return client;
}

/** A raw request with any Host header (fetch will not let us set one). */
function rawGet(base: string, path: string, headers: Record<string, string>): Promise<{ status: number; body: string }> {
  const url = new URL(path, base);
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: url.hostname, port: url.port, path: url.pathname, headers }, (res) => {
      let body = "";
      res.on("data", (chunk: Buffer) => {
        body += chunk.toString();
      });
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on("error", reject);
    req.end();
  });
}

describe("docdb-mcp over Streamable HTTP", () => {
  let server: HttpServerProcess;
  const data = tempDataDir();

  agentFlowSuite(async () => {
    server = await startHttpServer(["--data-dir", data.dir, "--token", TOKEN]);
    const client = await connectHttp(server.url, auth);
    return {
      client,
      dataDir: data.dir,
      async close() {
        await client.close();
        await server.stop();
        data.remove();
      },
    };
  });

  it("answers 401 on every path without the right bearer token", async () => {
    for (const path of ["/mcp", "/tools", "/healthz", "/nowhere"]) {
      const none = await fetch(new URL(path, server.base));
      expect(none.status, path).toBe(401);
      expect(none.headers.get("www-authenticate")).toMatch(/^Bearer/);
      expect(await none.json()).toMatchObject({ error: { data: { code: "UNAUTHORIZED" } } });
      const wrong = await fetch(new URL(path, server.base), { headers: { authorization: "Bearer not-the-token" } });
      expect(wrong.status, path).toBe(401);
    }
    const initialize = await fetch(server.url, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: {} }),
    });
    expect(initialize.status).toBe(401);
    // The SDK client without the token fails to connect rather than getting in.
    await expect(connectHttp(server.url, {})).rejects.toThrow(/401|Unauthorized/i);
  });

  it("GET /tools lists every tool with its schemas; GET /healthz says ok", async () => {
    const response = await fetch(new URL("/tools", server.base), { headers: auth });
    expect(response.status).toBe(200);
    const { tools } = (await response.json()) as {
      tools: { name: string; description: string; inputSchema: { type: string }; outputSchema: { type: string } }[];
    };
    expect(tools.map((t) => t.name).sort()).toEqual([...TOOL_NAMES].sort());
    for (const tool of tools) {
      expect(tool.description.length).toBeGreaterThan(20);
      expect(tool.inputSchema.type).toBe("object");
      expect(tool.outputSchema.type).toBe("object");
    }
    const health = await fetch(new URL("/healthz", server.base), { headers: auth });
    expect(await health.json()).toMatchObject({ status: "ok", name: "docdb", tools: TOOL_NAMES.length });
  });

  it("refuses foreign browser origins and foreign Host headers (DNS rebinding)", async () => {
    const evil = await fetch(new URL("/tools", server.base), { headers: { ...auth, origin: "http://evil.example" } });
    expect(evil.status).toBe(403);
    expect(await evil.json()).toMatchObject({ error: { data: { code: "FORBIDDEN" } } });
    const own = await fetch(new URL("/tools", server.base), { headers: { ...auth, origin: new URL(server.base).origin } });
    expect(own.status).toBe(200);
    const port = new URL(server.base).port;
    expect((await rawGet(server.base, "/healthz", { ...auth, host: `evil.example:${port}` })).status).toBe(403);
    expect((await rawGet(server.base, "/healthz", { ...auth, host: `localhost:${port}` })).status).toBe(200);
  });

  it("rejects oversized bodies, invalid JSON and calls without a session, then still serves", async () => {
    const post = (body: string, headers: Record<string, string> = {}) =>
      fetch(server.url, {
        method: "POST",
        headers: { ...auth, "content-type": "application/json", accept: "application/json, text/event-stream", ...headers },
        body,
      });
    const huge = await post(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: { pad: "x".repeat(5 * 1024 * 1024) } }));
    expect(huge.status).toBe(413);
    expect(await huge.json()).toMatchObject({ error: { data: { code: "INVALID_REQUEST" } } });
    const garbage = await post("{not json");
    expect(garbage.status).toBe(400);
    expect(await garbage.json()).toMatchObject({ error: { code: -32700, data: { code: "INVALID_REQUEST" } } });
    const sessionless = await post(JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/list" }));
    expect(sessionless.status).toBe(400);
    const unknownSession = await post(JSON.stringify({ jsonrpc: "2.0", id: 3, method: "tools/list" }), {
      "mcp-session-id": "no-such-session",
    });
    expect(unknownSession.status).toBe(404);
    expect(await unknownSession.json()).toMatchObject({ error: { data: { code: "NOT_FOUND" } } });

    const client = await connectHttp(server.url, auth);
    expect((await client.listTools()).tools).toHaveLength(TOOL_NAMES.length);
    await client.close();
  });
});

describe("docdb-mcp HTTP binding rules", () => {
  it("refuses to listen on a non-loopback host without a token", async () => {
    const child = spawn(process.execPath, [assertBuilt(BIN), "--http", "--host", "0.0.0.0", "--port", "0"], {
      env: serverEnv(),
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const code = await new Promise<number | null>((resolve) => child.once("exit", resolve));
    expect(code).toBe(2);
    expect(stderr).toMatch(/^INVALID_REQUEST: refusing to listen on 0\.0\.0\.0 without a token/m);
  });

  describe("without a token on loopback", () => {
    let server: HttpServerProcess;
    const data = tempDataDir();
    beforeAll(async () => {
      server = await startHttpServer(["--data-dir", data.dir, "--allow-origin", "http://app.example"]);
    });
    afterAll(async () => {
      await server.stop();
      data.remove();
    });

    it("serves without Authorization", async () => {
      const client = await connectHttp(server.url, {});
      expect((await client.listTools()).tools).toHaveLength(TOOL_NAMES.length);
      await client.close();
    });

    it("accepts an origin added with --allow-origin and still refuses others", async () => {
      const healthz = new URL("/healthz", server.base);
      expect((await fetch(healthz, { headers: { origin: "http://app.example" } })).status).toBe(200);
      expect((await fetch(healthz, { headers: { origin: "http://app.example.evil" } })).status).toBe(403);
    });
  });
});
