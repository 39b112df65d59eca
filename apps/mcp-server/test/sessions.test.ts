// Sessions over HTTP (issue 23, item 4): one caller opening many sessions can never close another
// caller's live session; at the limit a new initialize waits (429 with Retry-After), and sessions
// unused for the idle time are closed and make room.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type HttpServerProcess, serverEnv, startHttpServer, tempDataDir } from "./support/server-process.js";

const TOKEN = "test-token-sessions-51c2";
const auth = { authorization: `Bearer ${TOKEN}` };

async function connect(url: string): Promise<Client> {
  const client = new Client({ name: "docdb-sessions-test", version: "0.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: auth } }));
  return client;
}

function initialize(url: string): Promise<Response> {
  return fetch(url, {
    method: "POST",
    headers: { ...auth, "content-type": "application/json", accept: "application/json, text/event-stream" },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "flood", version: "0" } },
    }),
  });
}

async function openSessions(base: string): Promise<number> {
  const health = (await (await fetch(new URL("/healthz", base), { headers: auth })).json()) as { sessions: number };
  return health.sessions;
}

describe("HTTP sessions: a limit that never evicts a live session", () => {
  let server: HttpServerProcess;
  const data = tempDataDir();

  beforeAll(async () => {
    server = await startHttpServer(["--data-dir", data.dir, "--token", TOKEN], {
      ...serverEnv(),
      DOCDB_HTTP_MAX_SESSIONS: "3",
      DOCDB_HTTP_SESSION_IDLE_SECONDS: "3600",
    });
  });
  afterAll(async () => {
    await server.stop();
    data.remove();
  });

  it("refuses the initialize past the limit with 429 and Retry-After, and the first agent keeps working", async () => {
    const agent = await connect(server.url);
    const flood: Response[] = [];
    for (let i = 0; i < 5; i++) flood.push(await initialize(server.url));
    expect(flood.map((r) => r.status)).toEqual([200, 200, 429, 429, 429]);
    const refused = flood[2] as Response;
    const retryAfter = Number(refused.headers.get("retry-after"));
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(3600);
    const body = (await refused.json()) as { error: { message: string; data: { code: string } } };
    expect(body.error.data.code).toBe("CONFLICT");
    expect(body.error.message).toMatch(/limit of 3 open MCP sessions/);
    // The agent that came first was not pushed out by the flood.
    const tools = await agent.listTools();
    expect(tools.tools.length).toBeGreaterThan(5);
    expect(await openSessions(server.base)).toBe(3);
    // Closing a session makes room for a new one.
    await agent.close();
    const sessionId = flood[0]?.headers.get("mcp-session-id") as string;
    const closed = await fetch(server.url, { method: "DELETE", headers: { ...auth, "mcp-session-id": sessionId } });
    expect(closed.status).toBe(200);
    expect((await initialize(server.url)).status).toBe(200);
  });

  it("DOCDB_HTTP_MAX_SESSIONS must be a whole number", async () => {
    await expect(
      startHttpServer(["--data-dir", data.dir, "--token", TOKEN], { ...serverEnv(), DOCDB_HTTP_MAX_SESSIONS: "lots" }),
    ).rejects.toThrow(/DOCDB_HTTP_MAX_SESSIONS must be a whole number of at least 1, got "lots"/);
  });
});

describe("HTTP sessions: idle ones expire and make room", () => {
  let server: HttpServerProcess;
  const data = tempDataDir();

  beforeAll(async () => {
    server = await startHttpServer(["--data-dir", data.dir, "--token", TOKEN], {
      ...serverEnv(),
      DOCDB_HTTP_MAX_SESSIONS: "1",
      DOCDB_HTTP_SESSION_IDLE_SECONDS: "1",
    });
  });
  afterAll(async () => {
    await server.stop();
    data.remove();
  });

  it("closes a session unused for the idle time; its id is then unknown and a new session fits", async () => {
    const first = await initialize(server.url);
    expect(first.status).toBe(200);
    const sessionId = first.headers.get("mcp-session-id") as string;
    // The server's own sweep closes it: wait for the health check to say so (no fixed sleep).
    const deadline = Date.now() + 10_000;
    while ((await openSessions(server.base)) > 0) {
      if (Date.now() > deadline) throw new Error("the idle session was never closed");
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const stale = await fetch(server.url, {
      method: "POST",
      headers: { ...auth, "content-type": "application/json", accept: "application/json, text/event-stream", "mcp-session-id": sessionId },
      body: JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/list" }),
    });
    expect(stale.status).toBe(404);
    expect((await initialize(server.url)).status).toBe(200);
  });
});
