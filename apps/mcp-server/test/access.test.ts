// Scoped tokens over HTTP, end to end with the built binaries: a read-only token changes nothing
// through any tool, resource or SQL; a token for one database never sees another; expired, revoked
// and unknown tokens get 401; rate and body limits answer 429/413; every write is in the audit trail.
import { spawnSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { openDocDB } from "@docdb/core";
import { createSqliteEngine } from "@docdb/store-sqlite";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { storeContentHash } from "../../../test/support/store-hash.js";
import { QA, registerDeterministicSampling } from "./support/memory-flow.js";
import { BIN, CLI, type HttpServerProcess, serverEnv, startHttpServer, tempDataDir } from "./support/server-process.js";

const ADMIN = "admin-token-5b1d9e";

async function connect(url: string, token: string, sampling = false): Promise<Client> {
  const client = new Client({ name: "docdb-access-test", version: "0.0.0" }, sampling ? { capabilities: { sampling: {} } } : {});
  if (sampling) registerDeterministicSampling(client, []);
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
  return client;
}

describe("scoped tokens, audit and limits over HTTP", () => {
  const data = tempDataDir();
  let server: HttpServerProcess;
  const tokens: Record<string, string> = {};
  const ids: Record<string, string> = {};
  const cli = (...args: string[]) => {
    const run = spawnSync(process.execPath, [CLI, "--data-dir", data.dir, ...args], { env: serverEnv(), encoding: "utf8" });
    if (run.status !== 0) throw new Error(`docdb ${args.join(" ")} failed: ${run.stderr}`);
    return run.stdout.trim();
  };

  beforeAll(async () => {
    for (const db of ["alpha", "beta"]) {
      cli("db", "create", db);
      ids[db] = JSON.parse(
        cli("insert", "--db", db, "--text", `secret notes of ${db} about tokens`, "--title", `${db} notes`, "--json"),
      ).doc_id;
    }
    ids.vectors = JSON.parse(cli("insert", "--text", "default database text about tokens", "--json")).doc_id;
    tokens.reader = cli("token", "create", "--name", "reader", "--read-only");
    tokens.alpha = cli("token", "create", "--name", "alpha-writer", "--db", "alpha", "--access", "write");
    tokens.limited = cli("token", "create", "--name", "limited", "--rate", "2/min", "--read-only");
    tokens.small = cli("token", "create", "--name", "small", "--max-body", "300");
    tokens.revoked = cli("token", "create", "--name", "gone");
    cli("token", "revoke", "gone");
    const docdb = openDocDB({ dataDir: data.dir, embedding: { provider: "none" } });
    tokens.expired = (await docdb.access().createToken({ name: "old", expiresInMs: -60_000 }, { name: "test", origin: "test" })).token;
    await docdb.close();
    server = await startHttpServer(["--data-dir", data.dir, "--token", ADMIN]);
  }, 120_000);

  afterAll(async () => {
    await server?.stop();
    data.remove();
  });

  async function snapshot(): Promise<Record<string, string>> {
    const engine = createSqliteEngine({ dataDir: data.dir });
    try {
      const out: Record<string, string> = {};
      for (const name of (await engine.listDatabases()).filter((n) => n !== "_docdb")) {
        const store = await engine.openDatabase(name);
        out[name] = `${JSON.stringify(await store.counts())} ${await storeContentHash(store)}`;
      }
      return out;
    } finally {
      await engine.close();
    }
  }

  it("a read-only token changes nothing through any tool, resource or SQL", async () => {
    const before = await snapshot();
    const client = await connect(server.url, tokens.reader as string);
    const args: Record<string, Record<string, unknown>> = {
      create_database: { db_name: "gamma" },
      insert_document: { text: "written by a reader" },
      get_document: { doc_id: ids.vectors },
      delete_document: { doc_id: ids.vectors },
      find_similar_documents: { text: "tokens" },
      query_sql: { sql: "DELETE FROM documents" },
      store_qa: { question: "Who may write?", answer: "Writers", topic: "Access" },
      query_qa: { question: "Who may write?" },
      merge_knowledge: {},
      store_knowledge: { text: "Readers read", topic: "Access" },
    };
    const { tools } = await client.listTools();
    expect(tools.length).toBeGreaterThanOrEqual(13);
    const refused: string[] = [];
    for (const tool of tools) {
      const result = await client.callTool({ name: tool.name, arguments: args[tool.name] ?? {} });
      const error = (result.structuredContent as { error?: { code: string; message: string } }).error;
      if (error?.code === "FORBIDDEN") {
        refused.push(tool.name);
        expect(error.message).toMatch(/"reader" has read access/);
      }
    }
    expect(refused.sort()).toEqual(
      [
        "create_database",
        "delete_document",
        "insert_document",
        "insert_file",
        "insert_url",
        "merge_knowledge",
        "query_sql",
        "store_knowledge",
        "store_qa",
      ].sort(),
    );
    const { resources } = await client.listResources();
    expect(resources.length).toBeGreaterThanOrEqual(3);
    for (const resource of resources) await client.readResource({ uri: resource.uri });
    await client.close();
    // SQL stays read-only for admin too.
    const admin = await connect(server.url, ADMIN);
    for (const sql of [
      "DELETE FROM documents",
      "DROP TABLE documents",
      "UPDATE documents SET title = 'x'",
      "WITH d AS (DELETE FROM documents RETURNING 1) SELECT 1",
    ]) {
      expect((await admin.callTool({ name: "query_sql", arguments: { sql } })).isError, sql).toBe(true);
    }
    await admin.close();
    expect(await snapshot()).toEqual(before);
  });

  it("a token for alpha never sees beta: listings, completions, errors", async () => {
    const client = await connect(server.url, tokens.alpha as string);
    const listed = await client.callTool({ name: "list_databases", arguments: {} });
    expect((listed.structuredContent as { databases: { name: string }[] }).databases.map((d) => d.name)).toEqual(["alpha"]);
    const { resources } = await client.listResources();
    expect(resources.map((r) => r.uri).sort()).toEqual([`docdb://alpha/documents/${ids.alpha}`]);
    const completed = await client.complete({
      ref: { type: "ref/resource", uri: "docdb://{db}/documents/{id}" },
      argument: { name: "db", value: "" },
    });
    expect(completed.completion.values).toEqual(["alpha"]);
    const prompt = await client.complete({ ref: { type: "ref/prompt", name: "search_docdb" }, argument: { name: "db_name", value: "b" } });
    expect(prompt.completion.values).toEqual([]);
    const ids2 = await client.complete({
      ref: { type: "ref/resource", uri: "docdb://{db}/documents/{id}" },
      argument: { name: "id", value: "" },
      context: { arguments: { db: "beta" } },
    });
    expect(ids2.completion.values).toEqual([]);
    // The error for beta is the error for a database that does not exist, word for word.
    const message = async (db: string) =>
      JSON.stringify(
        (await client.callTool({ name: "get_document", arguments: { doc_id: ids.beta, db_name: db } })).structuredContent,
      ).replaceAll(db, "X");
    expect(await message("beta")).toBe(await message("nosuchdb"));
    const readError = async (db: string) =>
      (
        await client.readResource({ uri: `docdb://${db}/documents/${ids.beta}` }).then(
          () => "read",
          (e: Error) => e.message,
        )
      ).replaceAll(db, "X");
    expect(await readError("beta")).toBe(await readError("nosuchdb"));
    expect(await readError("beta")).toMatch(/does not exist/);
    const inserted = await client.callTool({ name: "insert_document", arguments: { text: "alpha writer was here", db_name: "alpha" } });
    expect(inserted.isError).toBeFalsy();
    const outside = await client.callTool({ name: "insert_document", arguments: { text: "never", db_name: "beta" } });
    expect(outside.isError).toBe(true);
    await client.close();
    const manifest = await fetch(new URL("/tools", server.base), { headers: { authorization: `Bearer ${tokens.alpha}` } });
    expect(manifest.status).toBe(200);
    // A session belongs to the caller that opened it: another token naming its id finds no session.
    const admin = new StreamableHTTPClientTransport(new URL(server.url), {
      requestInit: { headers: { authorization: `Bearer ${ADMIN}` } },
    });
    const adminClient = new Client({ name: "admin", version: "0.0.0" });
    await adminClient.connect(admin);
    const hijack = await fetch(server.url, {
      method: "POST",
      headers: {
        authorization: `Bearer ${tokens.reader}`,
        "mcp-session-id": admin.sessionId as string,
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
      },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 9,
        method: "tools/call",
        params: { name: "delete_document", arguments: { doc_id: ids.alpha, db_name: "alpha" } },
      }),
    });
    expect(hijack.status).toBe(404);
    await adminClient.close();
  });

  it("refuses unknown, expired and revoked tokens with 401 and WWW-Authenticate, saying which", async () => {
    for (const [token, said] of [
      ["docdb_not-a-token", /unknown bearer token/],
      [tokens.expired, /token "old" has expired/],
      [tokens.revoked, /token "gone" was revoked/],
      ["something-else", /unknown bearer token/],
    ] as const) {
      const response = await fetch(server.url, { method: "POST", headers: { authorization: `Bearer ${token}` }, body: "{}" });
      expect(response.status).toBe(401);
      expect(response.headers.get("www-authenticate")).toMatch(/^Bearer /);
      expect(((await response.json()) as { error: { message: string } }).error.message).toMatch(said);
    }
    const none = await fetch(new URL("/healthz", server.base));
    expect(none.status).toBe(401);
    expect(none.headers.get("www-authenticate")).toMatch(/^Bearer /);
  });

  it("answers 429 with Retry-After over a token's rate and 413 over its body limit, then keeps serving", async () => {
    const get = () => fetch(new URL("/healthz", server.base), { headers: { authorization: `Bearer ${tokens.limited}` } });
    expect((await get()).status).toBe(200);
    expect((await get()).status).toBe(200);
    const third = await get();
    expect(third.status).toBe(429);
    expect(Number(third.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    const big = await fetch(server.url, {
      method: "POST",
      headers: {
        authorization: `Bearer ${tokens.small}`,
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { padding: "x".repeat(1000) } }),
    });
    expect(big.status).toBe(413);
    expect((await fetch(new URL("/healthz", server.base), { headers: { authorization: `Bearer ${ADMIN}` } })).status).toBe(200);
  });

  it("records every write with its caller in the audit trail; reads are not recorded", async () => {
    const admin = await connect(server.url, ADMIN, true);
    const made = await admin.callTool({ name: "insert_document", arguments: { text: "admin text", key: "k1" } });
    const docId = (made.structuredContent as { doc_id: string }).doc_id;
    await admin.callTool({ name: "delete_document", arguments: { doc_id: docId } });
    await admin.callTool({ name: "create_database", arguments: { db_name: "gamma" } });
    await admin.callTool({ name: "store_qa", arguments: { question: "How?", answer: "So.", topic: "Ways" } });
    await admin.callTool({ name: "store_knowledge", arguments: { text: "Ways are so.", topic: "Ways" } });
    for (const qa of [QA.rollback1, QA.rollback2]) await admin.callTool({ name: "store_qa", arguments: { ...qa, topic: "Deploy" } });
    const merged = await admin.callTool({ name: "merge_knowledge", arguments: { topic: "Deploy" } });
    expect(merged.isError, JSON.stringify(merged.structuredContent)).toBeFalsy();
    await admin.callTool({ name: "find_similar_documents", arguments: { text: "admin" } });
    await admin.close();
    const stdio = new Client({ name: "stdio-agent", version: "0.0.0" });
    await stdio.connect(
      new StdioClientTransport({ command: process.execPath, args: [BIN, "--data-dir", data.dir], env: serverEnv(), stderr: "pipe" }),
    );
    expect((await stdio.callTool({ name: "insert_document", arguments: { text: "over stdio" } })).isError).toBeFalsy();
    await stdio.close();
    cli("delete", ids.beta as string, "--db", "beta");
    const folder = join(data.parent, "notes");
    mkdirSync(folder);
    writeFileSync(join(folder, "a.md"), "# Notes\n\nImported text.\n");
    cli("collection", "add", "-n", "notes", "-d", "team notes", "-s", folder);
    cli("import", "-n", "notes");
    cli("db", "drop", "gamma", "--yes");
    const entries = JSON.parse(cli("audit", "--json", "--since", "1h")) as {
      actor: string;
      origin: string;
      action: string;
      database: string;
      detail: string;
    }[];
    const seen = entries.map((e) => `${e.actor}|${e.action}|${e.database}`);
    for (const expected of [
      "admin|insert|vectors",
      "admin|delete|vectors",
      "admin|create_database|gamma",
      "admin|store_qa|vectors",
      "admin|store_knowledge|vectors",
      "admin|merge|vectors",
      "alpha-writer|insert|alpha",
    ]) {
      expect(seen, expected).toContain(expected);
    }
    for (const action of [
      "import",
      "collection_add",
      "delete",
      "drop_database",
      "token_create",
      "token_revoke",
      "insert",
      "create_database",
    ]) {
      expect(
        entries.some((e) => e.action === action && e.origin === "cli"),
        action,
      ).toBe(true);
    }
    expect(entries.find((e) => e.actor === "admin" && e.action === "insert")?.detail).toContain(docId);
    expect(entries.some((e) => e.actor === "local" && e.origin === "stdio" && e.action === "insert")).toBe(true);
    expect(entries.find((e) => e.actor === "admin")?.origin).toMatch(/127\.0\.0\.1|::1/);
    expect(entries.some((e) => e.action.startsWith("find"))).toBe(false);
    expect(entries.some((e) => e.actor === "reader")).toBe(false);
    const onlyAlpha = JSON.parse(cli("audit", "--json", "--db", "alpha")) as { database: string }[];
    expect(onlyAlpha.length).toBeGreaterThan(0);
    expect(onlyAlpha.every((e) => e.database === "alpha")).toBe(true);
  });
});
