import { existsSync, readdirSync } from "node:fs";
import { dirname, join } from "node:path";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, expect, it } from "vitest";

export interface Connected {
  client: Client;
  dataDir: string;
  close(): Promise<void>;
}

export const TOOL_NAMES = [
  "create_database",
  "list_databases",
  "insert_document",
  "insert_file",
  "insert_url",
  "find_similar_documents",
  "get_document",
  "delete_document",
  "status",
  "query_sql",
  "store_qa",
  "query_qa",
  "merge_knowledge",
  "store_knowledge",
  "list_topics",
];

export const TOKYO =
  "東京は日本の首都で、人口は約1400万人です。江戸時代には江戸と呼ばれ、1868年に東京と改められました。" +
  "隅田川が流れ、浅草や上野には古い町並みが残っています。";
const OSAKA = "大阪は関西の商業の中心地で、たこ焼きやお好み焼きなどの食文化で知られています。";
const RHINE = "The Rhine flows from the Swiss Alps through Germany and the Netherlands into the North Sea.";

export async function call(client: Client, name: string, args: Record<string, unknown> = {}): Promise<CallToolResult> {
  return (await client.callTool({ name, arguments: args })) as CallToolResult;
}

/** A successful call's structured content (fails the test, with the server's message, otherwise). */
export async function ok<T = Record<string, unknown>>(client: Client, name: string, args: Record<string, unknown> = {}): Promise<T> {
  const result = await call(client, name, args);
  const text = result.content.map((c) => (c.type === "text" ? c.text : "")).join("\n");
  expect(result.isError ?? false, text).toBe(false);
  expect(text.length).toBeGreaterThan(0);
  return result.structuredContent as T;
}

export async function expectToolError(client: Client, name: string, args: Record<string, unknown>, code: string): Promise<string> {
  const result = await call(client, name, args);
  expect(result.isError).toBe(true);
  const error = (result.structuredContent as { error: { code: string; message: string } }).error;
  expect(error.code).toBe(code);
  expect(error.message.length).toBeGreaterThan(10);
  const text = result.content.map((c) => (c.type === "text" ? c.text : "")).join("");
  expect(text).toBe(`${code}: ${error.message}`);
  return error.message;
}

export async function expectRpcError(client: Client, name: string, args: unknown, messagePart: RegExp): Promise<void> {
  const attempt = client.callTool({ name, arguments: args as Record<string, unknown> });
  await expect(attempt).rejects.toMatchObject({ code: -32602, data: { code: "INVALID_REQUEST" } });
  await attempt.catch((error: Error) => expect(error.message).toMatch(messagePart));
}

/** The agent's whole journey, run against each transport (a contract suite, not per-transport copies). */
export function agentFlowSuite(connect: () => Promise<Connected>): void {
  let c: Connected;
  beforeAll(async () => {
    c = await connect();
  });
  afterAll(async () => {
    await c?.close();
  });

  it("lists the tools (documents, SQL and memory) with input and output schemas and honest annotations", async () => {
    const { tools } = await c.client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual([...TOOL_NAMES].sort());
    for (const tool of tools) {
      expect(tool.description?.length, tool.name).toBeGreaterThan(20);
      expect(tool.inputSchema.type).toBe("object");
      expect(tool.outputSchema?.type, tool.name).toBe("object");
      // Only insert_url reaches outside docdb (it fetches web pages, when the server allows it).
      expect(tool.annotations?.openWorldHint, tool.name).toBe(tool.name === "insert_url");
    }
    const byName = new Map(tools.map((t) => [t.name, t]));
    for (const name of ["list_databases", "find_similar_documents", "get_document", "status", "query_sql", "query_qa", "list_topics"]) {
      expect(byName.get(name)?.annotations?.readOnlyHint, name).toBe(true);
    }
    for (const name of [
      "create_database",
      "insert_document",
      "insert_file",
      "insert_url",
      "delete_document",
      "store_qa",
      "merge_knowledge",
      "store_knowledge",
    ]) {
      expect(byName.get(name)?.annotations?.readOnlyHint, name).toBe(false);
    }
    expect(byName.get("delete_document")?.annotations?.destructiveHint).toBe(true);
    expect(byName.get("insert_document")?.annotations?.destructiveHint).toBe(false);
    expect(byName.get("insert_document")?.inputSchema.required).toEqual(["text"]);
  });

  it("create → insert (Japanese) → find → get → delete → find (gone)", async () => {
    const { client } = c;
    const created = await ok<{ success: boolean; location: string; created: boolean }>(client, "create_database", { db_name: "notes" });
    expect(created).toMatchObject({ success: true, created: true });
    expect(created.location).toBe(join(c.dataDir, "notes.db"));
    expect(existsSync(created.location)).toBe(true);
    // An existing name is success, not an error.
    expect(await ok(client, "create_database", { db_name: "notes" })).toMatchObject({ success: true, created: false });

    const inserted = await ok<{ doc_id: string; chunk_count: number; embedded: boolean; warnings: string[] }>(client, "insert_document", {
      db_name: "notes",
      text: TOKYO,
      title: "東京",
      metadata: { lang: "ja", topic: "city" },
    });
    expect(inserted.chunk_count).toBeGreaterThanOrEqual(1);
    expect(inserted.embedded).toBe(false); // no embedding model in these tests
    expect(inserted.warnings.join(" ")).toMatch(/keyword search/);
    await ok(client, "insert_document", { db_name: "notes", text: OSAKA, metadata: { lang: "ja" } });
    await ok(client, "insert_document", { db_name: "notes", text: RHINE, metadata: { lang: "en" } });

    const keyword = await ok<{ results: { doc_id: string; text: string; start: number; end: number; metadata: object }[] }>(
      client,
      "find_similar_documents",
      { db_name: "notes", text: "東京の人口", mode: "keyword" },
    );
    expect(keyword.results[0]?.doc_id).toBe(inserted.doc_id);
    expect(keyword.results[0]?.metadata).toEqual({ lang: "ja", topic: "city" });
    expect(TOKYO.slice(keyword.results[0]?.start, keyword.results[0]?.end)).toBe(keyword.results[0]?.text);
    expect(keyword.results.some((r) => r.text.includes("Rhine"))).toBe(false);

    // Default mode is hybrid; without a model it says so and still finds by keywords.
    const hybrid = await ok<{ results: { doc_id: string }[]; mode: string; warnings: string[] }>(client, "find_similar_documents", {
      db_name: "notes",
      text: "隅田川",
      top_k: 5,
      filter: { lang: "ja" },
    });
    expect(hybrid.mode).toBe("hybrid");
    expect(hybrid.results.map((r) => r.doc_id)).toEqual([inserted.doc_id]);
    expect(hybrid.warnings.join(" ")).toMatch(/keyword results only/);

    const doc = await ok<{ doc_id: string; text: string; title: string; metadata: object; chunks: { start: number; end: number }[] }>(
      client,
      "get_document",
      { db_name: "notes", doc_id: inserted.doc_id },
    );
    expect(doc).toMatchObject({ doc_id: inserted.doc_id, text: TOKYO, title: "東京", metadata: { lang: "ja", topic: "city" } });
    expect(doc.chunks).toHaveLength(inserted.chunk_count);
    expect(doc.chunks[0]?.start).toBe(0);
    expect(doc.chunks.at(-1)?.end).toBe(TOKYO.length);

    const listed = await ok<{ databases: { name: string; documents: number }[] }>(client, "list_databases");
    expect(listed.databases).toContainEqual(expect.objectContaining({ name: "notes", documents: 3 }));
    const status = await ok<{ documents: number; pending: number; server_model: unknown }>(client, "status", { db_name: "notes" });
    expect(status).toMatchObject({ documents: 3, server_model: null });
    expect(status.pending).toBeGreaterThanOrEqual(3);

    const deleted = await ok<{ deleted_chunks: number }>(client, "delete_document", { db_name: "notes", doc_id: inserted.doc_id });
    expect(deleted.deleted_chunks).toBe(inserted.chunk_count);

    const after = await ok<{ results: { doc_id: string }[] }>(client, "find_similar_documents", {
      db_name: "notes",
      text: "東京の人口",
      mode: "keyword",
    });
    expect(after.results.map((r) => r.doc_id)).not.toContain(inserted.doc_id);
    await expectToolError(client, "get_document", { db_name: "notes", doc_id: inserted.doc_id }, "NOT_FOUND");
    await expectToolError(client, "delete_document", { db_name: "notes", doc_id: inserted.doc_id }, "NOT_FOUND");
  });

  it("query_sql answers counts, newest documents and metadata breakdowns, states its caps, and refuses writes", async () => {
    const { client } = c;
    await ok(client, "create_database", { db_name: "sqltest" });
    for (const [text, lang] of [
      ["最初の文書です。", "ja"],
      ["The second document.", "en"],
      ["Das dritte Dokument.", "de"],
      ["もう一つの日本語の文書。", "ja"],
    ] as const) {
      await ok(client, "insert_document", { db_name: "sqltest", text, metadata: { lang } });
    }
    const byLang = await ok<{ columns: string[]; rows: unknown[][]; truncated: boolean; limits: { max_rows: number; timeout_ms: number } }>(
      client,
      "query_sql",
      {
        db_name: "sqltest",
        sql: "SELECT json_extract(metadata, '$.lang') AS lang, count(*) AS n FROM documents_v GROUP BY lang ORDER BY n DESC, lang",
      },
    );
    expect(byLang.columns).toEqual(["lang", "n"]);
    expect(byLang.rows).toEqual([
      ["ja", 2],
      ["de", 1],
      ["en", 1],
    ]);
    expect(byLang.truncated).toBe(false);
    expect(byLang.limits).toEqual({ max_rows: 100, timeout_ms: 5000, max_bytes: 8388608 });
    const newest = await call(client, "query_sql", {
      db_name: "sqltest",
      sql: "SELECT id, length FROM documents_v ORDER BY created_at DESC, id DESC",
      max_rows: 2,
    });
    const structured = newest.structuredContent as { rows: unknown[][]; truncated: boolean; row_count: number };
    expect(structured).toMatchObject({ row_count: 2, truncated: true });
    expect(structured.rows[0]?.[1]).toBe("もう一つの日本語の文書。".length);
    const text = newest.content.map((part) => (part.type === "text" ? part.text : "")).join("");
    expect(text).toMatch(/cut at the 2-row cap/);
    for (const sql of ["DELETE FROM documents", "DROP VIEW documents_v", "ATTACH ':memory:' AS m", "PRAGMA writable_schema = ON"]) {
      await expectToolError(client, "query_sql", { db_name: "sqltest", sql }, "INVALID_REQUEST");
    }
    expect(
      (await ok<{ rows: unknown[][] }>(client, "query_sql", { db_name: "sqltest", sql: "SELECT count(*) FROM documents_v" })).rows,
    ).toEqual([[4]]);
  });

  it("uses the default database when db_name is left out", async () => {
    const { doc_id } = await ok<{ doc_id: string }>(c.client, "insert_document", { text: "既定のデータベースに入る文書です。" });
    expect(existsSync(join(c.dataDir, "vectors.db"))).toBe(true);
    expect(await ok(c.client, "get_document", { doc_id })).toMatchObject({ doc_id });
  });

  it("an unknown doc_id or database is a NOT_FOUND tool error the agent can read", async () => {
    await ok(c.client, "create_database", { db_name: "lookup" });
    const message = await expectToolError(
      c.client,
      "get_document",
      { db_name: "lookup", doc_id: "01HZZZZZZZZZZZZZZZZZZZZZZZ" },
      "NOT_FOUND",
    );
    expect(message).toContain("01HZZZZZZZZZZZZZZZZZZZZZZZ");
    await expectToolError(c.client, "delete_document", { db_name: "lookup", doc_id: "nope" }, "NOT_FOUND");
    await expectToolError(c.client, "find_similar_documents", { db_name: "never_created", text: "x" }, "NOT_FOUND");
    expect(existsSync(join(c.dataDir, "never_created.db"))).toBe(false);
  });

  it("empty and oversized text are INVALID_REQUEST tool errors", async () => {
    await expectToolError(c.client, "insert_document", { text: "" }, "INVALID_REQUEST");
    await expectToolError(c.client, "insert_document", { text: " \n\t " }, "INVALID_REQUEST");
    const message = await expectToolError(c.client, "insert_document", { text: "あ".repeat(100_001) }, "INVALID_REQUEST");
    expect(message).toMatch(/100000/);
    await expectToolError(c.client, "find_similar_documents", { text: "" }, "INVALID_REQUEST");
  });

  it('db_name "../etc" is INVALID_REQUEST and writes nothing outside the data folder', async () => {
    const outside = () => readdirSync(dirname(c.dataDir));
    for (const db_name of ["../etc", "/etc/passwd", "a/b", "..", "x".repeat(65), "名前"]) {
      await expectToolError(c.client, "insert_document", { db_name, text: "hello" }, "INVALID_REQUEST");
      await expectToolError(c.client, "create_database", { db_name }, "INVALID_REQUEST");
      await expectToolError(c.client, "find_similar_documents", { db_name, text: "hello" }, "INVALID_REQUEST");
    }
    expect(outside()).toEqual(["data"]);
    expect(existsSync("/etc.db") || existsSync("/etc/passwd.db")).toBe(false);
  });

  it("malformed calls are JSON-RPC errors with data.code INVALID_REQUEST", async () => {
    await expectRpcError(c.client, "insert_document", {}, /text: required string is missing/);
    await expectRpcError(c.client, "get_document", { db_name: "notes" }, /doc_id/);
    await expectRpcError(c.client, "insert_document", { text: 42 }, /text/);
    await expectRpcError(c.client, "insert_document", { text: "x", metadata: "lang=ja" }, /metadata/);
    await expectRpcError(c.client, "insert_document", { text: "x", colour: "red" }, /colour/);
    await expectRpcError(c.client, "find_similar_documents", { text: "x", top_k: 0 }, /top_k/);
    await expectRpcError(c.client, "find_similar_documents", { text: "x", top_k: 101 }, /top_k/);
    await expectRpcError(c.client, "find_similar_documents", { text: "x", mode: "fuzzy" }, /mode/);
    await expectRpcError(c.client, "no_such_tool", {}, /unknown tool "no_such_tool"/);
    // The connection is still fine afterwards.
    expect((await c.client.listTools()).tools).toHaveLength(TOOL_NAMES.length);
  });
}
