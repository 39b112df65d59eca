import { existsSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, expectToolError, ok } from "./support/agent-flow.js";
import { assertBuilt, BIN, serverEnv, tempDataDir } from "./support/server-process.js";

/** Every object key of a structured result with its path (metadata holds the user's own keys: skipped). */
function keysOf(value: unknown, path = "$"): string[] {
  if (Array.isArray(value)) return value.flatMap((v, i) => keysOf(v, `${path}[${i}]`));
  if (typeof value !== "object" || value === null) return [];
  return Object.entries(value).flatMap(([k, v]) => [`${path}.${k}`, ...(k === "metadata" ? [] : keysOf(v, `${path}.${k}`))]);
}

// What a new agent meets first, through the real server process and the SDK client, without a model.
describe("adoption over MCP", () => {
  const data = tempDataDir();
  let client: Client;

  beforeAll(async () => {
    client = new Client({ name: "docdb-adoption-test", version: "0" });
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [assertBuilt(BIN), "--data-dir", data.dir],
        env: serverEnv(),
        stderr: "pipe",
      }),
    );
  });
  afterAll(async () => {
    await client?.close();
    data.remove();
  });

  it("a writing tool's db_name for a missing database is NOT_FOUND naming create_database; the default is created", async () => {
    const writes: [string, Record<string, unknown>][] = [
      ["insert_document", { text: "hi" }],
      ["store_qa", { question: "How do I roll back?", answer: "deploy rollback", topic: "Deploy" }],
      ["store_knowledge", { text: "Roll back with deploy rollback.", topic: "Deploy" }],
    ];
    for (const [tool, args] of writes) {
      const message = await expectToolError(client, tool, { ...args, db_name: "nosuch" }, "NOT_FOUND");
      expect(message).toContain("create_database");
      expect(message).toContain('"nosuch"');
      expect(existsSync(join(data.dir, "nosuch.db")), tool).toBe(false);
    }
    for (const [tool, args] of writes) await ok(client, tool, args);
    expect(existsSync(join(data.dir, "vectors.db"))).toBe(true);
    await ok(client, "create_database", { db_name: "nosuch" });
    await ok(client, "insert_document", { text: "hi", db_name: "nosuch" });
  });

  it("every key of every tool's structured result is snake_case (metadata keeps the user's keys)", async () => {
    const inserted = await ok<{ doc_id: string }>(client, "insert_document", { text: "snake case keys", metadata: { camelKey: 1 } });
    const qa = await ok<{ qa_id: string }>(client, "store_qa", { question: "Which key style?", answer: "snake_case", topic: "Keys" });
    const results = [
      await ok(client, "list_databases"),
      await ok(client, "find_similar_documents", { text: "snake case keys" }),
      await ok(client, "get_document", { doc_id: inserted.doc_id }),
      await ok(client, "status"),
      await ok(client, "query_sql", { sql: "SELECT id, metadata FROM documents_v" }),
      await ok(client, "query_qa", { question: "key style" }),
      await ok(client, "list_topics"),
      await ok(client, "store_knowledge", { text: "Keys are snake_case.", topic: "Keys", source_qa_ids: [qa.qa_id] }),
      await ok(client, "delete_document", { doc_id: inserted.doc_id }),
    ];
    const camel = results.flatMap((r) => keysOf(r)).filter((path) => /[A-Z]/.test(path.slice(path.lastIndexOf(".") + 1)));
    expect(camel).toEqual([]);
  });

  it("hybrid without vectors answers with keyword scores and says so once", async () => {
    await ok(client, "create_database", { db_name: "plain" });
    await ok(client, "insert_document", { db_name: "plain", text: "Quartzite ridges line the northern valley." });
    await ok(client, "insert_document", { db_name: "plain", text: "The valley floor is farmland." });
    const result = await call(client, "find_similar_documents", { db_name: "plain", text: "quartzite valley" });
    const found = result.structuredContent as { results: { score: number }[]; warnings: string[] };
    expect(found.results[0]?.score).toBe(1);
    expect(found.warnings).toHaveLength(1);
    expect(found.warnings[0]).toMatch(/keyword results only/);
    const text = result.content.map((c) => (c.type === "text" ? c.text : "")).join("\n");
    expect(text.match(/Warning: /g)).toHaveLength(1);
  });

  it("store_qa under a new topic returns its warning once", async () => {
    const stored = await ok<{ topic_created: boolean; warnings: string[] }>(client, "store_qa", {
      question: "Which port does staging use?",
      answer: "5433",
      topic: "A brand new topic",
    });
    expect(stored.topic_created).toBe(true);
    expect(stored.warnings).toHaveLength(1);
  });
});
