// Issue 23: the hostile inputs of the probe, each answered within 2 s with bounded memory, on
// stdio and over HTTP: malformed JSON-RPC (a batch, string params, an object id), filters far
// past their limits, a 5 MB filter key and a SQL result of gigabytes.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CAN_MEASURE_RSS, watchPeakRss } from "../../../test/support/peak-rss.js";
import { type JsonRpcResponse, RawStdioServer } from "./support/raw-stdio.js";
import { type HttpServerProcess, startHttpServer, tempDataDir } from "./support/server-process.js";

const MALFORMED: { name: string; line: string; id: number | null; code: number }[] = [
  { name: "a batch", line: JSON.stringify([{ jsonrpc: "2.0", id: 7, method: "tools/list" }]), id: null, code: -32600 },
  { name: 'params "x"', line: JSON.stringify({ jsonrpc: "2.0", id: 8, method: "tools/list", params: "x" }), id: 8, code: -32602 },
  { name: "an object id", line: JSON.stringify({ jsonrpc: "2.0", id: { a: 1 }, method: "tools/list" }), id: null, code: -32600 },
  { name: "not JSON", line: '{"jsonrpc": "2.0", "id": 9, ', id: null, code: -32700 },
];

const many = (n: number, make: (i: number) => unknown) => Array.from({ length: n }, (_, i) => make(i));

/** Tool calls that must each be refused as INVALID_REQUEST naming the limit. */
function hostileCalls(keyBytes: number): { name: string; args: Record<string, unknown>; tool: string; message: RegExp }[] {
  const find = "find_similar_documents";
  return [
    {
      name: "100,000 $or branches",
      tool: find,
      args: { text: "a", mode: "keyword", filter: { $or: many(100_000, (i) => ({ n: i })) } },
      message: /\$or lists 100000 items; the limit is 500/,
    },
    {
      name: "a 200,000-value $in",
      tool: find,
      args: { text: "a", mode: "keyword", filter: { n: { $in: many(200_000, (i) => i) } } },
      message: /\$in lists 200000 items; the limit is 500/,
    },
    {
      name: "a huge filter key",
      tool: find,
      args: { text: "a", mode: "keyword", filter: { ["k".repeat(keyBytes)]: 1 } },
      message: /a field name is \d+ characters long; the limit is 200/,
    },
    {
      name: "a SQL first row over the byte cap",
      tool: "query_sql",
      args: { sql: "SELECT printf('%.*c', 20000000, 'x') AS x" },
      message: /over the 8388608-byte result cap \(max_bytes\)/,
    },
  ];
}

function expectRefused(answer: JsonRpcResponse | undefined, message: RegExp, where: string): void {
  const result = answer?.result as { isError?: boolean; structuredContent?: { error?: { code?: string; message?: string } } } | undefined;
  expect(result?.isError, where).toBe(true);
  expect(result?.structuredContent?.error?.code, where).toBe("INVALID_REQUEST");
  expect(result?.structuredContent?.error?.message, where).toMatch(message);
  expect(JSON.stringify(answer).length, `${where}: the answer is short`).toBeLessThan(4000);
}

describe("docdb-mcp on stdio: hostile inputs answered within 2 s, memory bounded", () => {
  const data = tempDataDir();
  let server: RawStdioServer;
  beforeAll(async () => {
    server = new RawStdioServer(data.dir);
    await server.initialize();
    await server.request("seed", "tools/call", { name: "insert_document", arguments: { text: "Kyoto was the capital." } });
  });
  afterAll(async () => {
    await server.stop();
    data.remove();
  });

  it("answers a batch, string params, an object id and broken JSON per JSON-RPC 2.0", async () => {
    for (const message of MALFORMED) {
      const before = server.responses.get(message.id as number)?.length ?? 0;
      const started = Date.now();
      server.write(message.line);
      while ((server.responses.get(message.id as number)?.length ?? 0) === before && Date.now() - started < 2000) {
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      const answer = server.responses.get(message.id as number)?.[before];
      expect(answer, `${message.name}: no answer within 2 s`).toBeDefined();
      expect(answer?.error?.code, message.name).toBe(message.code);
      expect(answer?.error?.data?.code, message.name).toBe("INVALID_REQUEST");
    }
    expect(server.alive).toBe(true);
  });

  it("refuses filters past their limits, a 5 MB key and an oversized SQL row, each in 2 s, RSS growth < 200 MB", async () => {
    const watch = watchPeakRss(server.child.pid as number);
    const baseline = watch.peakMb();
    let id = 100;
    for (const call of hostileCalls(5 * 1024 * 1024)) {
      const started = Date.now();
      const answer = await server.request(++id, "tools/call", { name: call.tool, arguments: call.args });
      expect(Date.now() - started, call.name).toBeLessThan(2000);
      expectRefused(answer, call.message, call.name);
    }
    // A 3 GB result is cut at the byte cap: the rows that fit.
    const started = Date.now();
    const huge = await server.request(++id, "tools/call", {
      name: "query_sql",
      arguments: {
        sql: "WITH RECURSIVE g(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM g WHERE i < 3000) SELECT i, printf('%.*c', 1000000, 'x') AS x FROM g",
        max_rows: 1000,
      },
    });
    expect(Date.now() - started).toBeLessThan(2000);
    expect((huge.result as { structuredContent?: unknown }).structuredContent).toMatchObject({
      row_count: 8,
      truncated: true,
      truncated_by: "bytes",
    });
    const peak = watch.stop();
    if (CAN_MEASURE_RSS) expect(peak - baseline, `peak ${peak} MB, at start ${baseline} MB`).toBeLessThan(200);
  });
});

describe("docdb-mcp over HTTP: the same inputs answered within 2 s", () => {
  const data = tempDataDir();
  let server: HttpServerProcess;
  const headers = { "content-type": "application/json", accept: "application/json, text/event-stream" };
  let session = "";
  beforeAll(async () => {
    server = await startHttpServer(["--data-dir", data.dir]);
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
    session = initialize.headers.get("mcp-session-id") as string;
    await initialize.text();
    await (await post(JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }))).text();
    const seed = { name: "insert_document", arguments: { text: "Kyoto was the capital." } };
    await (await post(JSON.stringify({ jsonrpc: "2.0", id: "seed", method: "tools/call", params: seed }))).text();
  });
  afterAll(async () => {
    await server.stop();
    data.remove();
  });
  const post = (body: string) =>
    fetch(server.url, { method: "POST", headers: { ...headers, "mcp-session-id": session }, body, signal: AbortSignal.timeout(2000) });

  it("answers a batch, string params, an object id and broken JSON with a JSON-RPC error (400)", async () => {
    for (const message of MALFORMED) {
      const response = await post(message.line);
      expect(response.status, message.name).toBe(400);
      expect(await response.json(), message.name).toMatchObject({
        jsonrpc: "2.0",
        id: message.id,
        error: { code: message.code, data: { code: "INVALID_REQUEST" } },
      });
    }
  });

  it("refuses filters past their limits, a 3 MB key and an oversized SQL row, each in 2 s, RSS growth < 200 MB", async () => {
    const watch = watchPeakRss(server.child.pid as number);
    const baseline = watch.peakMb();
    let id = 100;
    for (const call of hostileCalls(3 * 1024 * 1024)) {
      const response = await post(
        JSON.stringify({ jsonrpc: "2.0", id: ++id, method: "tools/call", params: { name: call.tool, arguments: call.args } }),
      );
      const text = await response.text();
      const data = text.split("\n").find((line) => line.startsWith("data: ") && line.length > 6);
      const answer = JSON.parse(data ? data.slice(6) : text) as JsonRpcResponse;
      expectRefused(answer, call.message, call.name);
    }
    const peak = watch.stop();
    if (CAN_MEASURE_RSS) expect(peak - baseline, `peak ${peak} MB, at start ${baseline} MB`).toBeLessThan(200);
  });
});
