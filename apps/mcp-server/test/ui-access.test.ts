// The page's API enforces each endpoint's declared access and the caller's databases in its one
// handler: a read-only caller can look but not change, a writer cannot add folders, and neither
// sees another database. Real DocDB, real HTTP server; the callers stand in for scoped tokens.
import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type DocDB, openDocDB, silentLogger } from "@docdb/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Caller } from "../src/auth/caller.js";
import { RateLimiter } from "../src/auth/limits.js";
import { createUiHandler } from "../src/ui/handler.js";

const CALLERS: Record<string, Caller> = {
  reader: { name: "reader", via: "scoped-token", access: "read", databases: ["vectors"] },
  writer: { name: "writer", via: "scoped-token", access: "write", databases: ["vectors"] },
  limited: { name: "limited", via: "scoped-token", access: "read", databases: ["vectors"], limits: { requestsPerMinute: 2 } },
};

describe("the page's API and a caller's access", () => {
  let dir: string;
  let docdb: DocDB;
  let server: Server;
  let base: string;

  async function call(token: string, method: string, path: string, body?: unknown): Promise<number> {
    const headers: Record<string, string> = { authorization: `Bearer ${token}` };
    if (body !== undefined) headers["content-type"] = "application/json";
    const response = await fetch(`${base}/ui/api${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    await response.text();
    return response.status;
  }

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "docdb-ui-access-"));
    const limiter = new RateLimiter();
    docdb = openDocDB({ dataDir: dir, embedding: null, logger: silentLogger() });
    await (await docdb.database("vectors", { create: true })).insertDocument({ text: "Tokyo is the capital of Japan." });
    await (await docdb.database("other", { create: true })).insertDocument({ text: "A secret of another team." });
    const handler = createUiHandler({
      docdb,
      logger: silentLogger(),
      authenticate: (request) => CALLERS[(request.headers.authorization ?? "").replace(/^Bearer /, "")],
      guard: () => undefined,
      throttle: (caller) => limiter.take(caller),
    });
    server = createServer((request, response) => void handler(request, response));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await docdb.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("lets a read-only caller look, and refuses every write with 403", async () => {
    expect(await call("reader", "GET", "/databases/vectors/documents")).toBe(200);
    expect(await call("reader", "POST", "/databases/vectors/search", { query: "Tokyo" })).toBe(200);
    expect(await call("reader", "POST", "/databases/vectors/documents", { text: "new" })).toBe(403);
    expect(await call("reader", "POST", "/databases/vectors/embed", {})).toBe(403);
    expect(await call("reader", "POST", "/databases/vectors/rebuild-index", {})).toBe(403);
    const listed = await (await docdb.database("vectors")).listDocuments();
    expect(await call("reader", "DELETE", `/databases/vectors/documents/${listed[0]?.doc_id}`)).toBe(403);
    expect((await (await docdb.database("vectors")).status()).documents).toBe(1);
  });

  it("lets a writer insert but not add a folder, which needs admin", async () => {
    expect(await call("writer", "POST", "/databases/vectors/documents", { text: "Kyoto was the capital before Tokyo." })).toBe(201);
    expect(await call("writer", "POST", "/databases/vectors/collections", { name: "etc", source: "/etc", description: "x" })).toBe(403);
    expect(await (await docdb.database("vectors")).collections.list()).toEqual([]);
  });

  it("records the page's writes in the audit trail under the caller's name, and not its reads or refusals", async () => {
    const before = Math.max(0, ...(await docdb.access().audit()).map((e) => e.id));
    expect(await call("writer", "POST", "/databases/vectors/documents", { text: "Osaka is known for its food." })).toBe(201);
    expect(await call("reader", "POST", "/databases/vectors/documents", { text: "refused" })).toBe(403);
    expect(await call("reader", "POST", "/databases/vectors/search", { query: "Osaka" })).toBe(200);
    const listed = await (await docdb.database("vectors")).listDocuments();
    const osaka = listed[0];
    expect(await call("writer", "DELETE", `/databases/vectors/documents/${osaka?.doc_id}`)).toBe(200);
    const entries = (await docdb.access().audit()).filter((e) => e.id > before).sort((a, b) => a.id - b.id);
    expect(entries.map((e) => [e.actor, e.action, e.database])).toEqual([
      ["writer", "insert", "vectors"],
      ["writer", "delete", "vectors"],
    ]);
    expect(entries[1]?.detail).toContain(String(osaka?.doc_id));
  });

  it("answers 429 with Retry-After once a caller is over its request rate", async () => {
    expect(await call("limited", "GET", "/me")).toBe(200);
    expect(await call("limited", "GET", "/me")).toBe(200);
    const over = await fetch(`${base}/ui/api/me`, { headers: { authorization: "Bearer limited" } });
    expect(over.status).toBe(429);
    expect(Number(over.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    expect(((await over.json()) as { error: { message: string } }).error.message).toContain("limited");
  });

  it("shows a caller only its databases", async () => {
    const response = await fetch(`${base}/ui/api/databases`, { headers: { authorization: "Bearer reader" } });
    const body = (await response.json()) as { databases: { name: string }[] };
    expect(body.databases.map((d) => d.name)).toEqual(["vectors"]);
    expect(await call("reader", "GET", "/databases/other/documents")).toBe(403);
    expect(await call("nobody", "GET", "/me")).toBe(401);
  });
});
