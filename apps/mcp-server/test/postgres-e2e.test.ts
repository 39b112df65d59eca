import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { openDocDB, SQL_VIEWS, silentLogger } from "@docdb/core";
import type { ExportedChunk, Store, StoreEngine } from "@docdb/store";
import { createPostgresEngine } from "@docdb/store-postgres";
import { createSqliteEngine } from "@docdb/store-sqlite";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { adminQuery } from "../../../packages/store-postgres/test/support/admin.js";
import { type PgliteServer, startPgliteServer } from "../../../packages/store-postgres/test/support/pglite-server.js";
import { generateCorpus } from "../../../scripts/generate-corpus.mjs";
import { copyFixture } from "../../../test/support/collection-fixtures.js";
import { type FakeOpenAI, startFakeOpenAI } from "../../../test/support/fake-openai.js";
import { type CliResult, runCli } from "../../cli/test/run-cli.js";
import { assertBuilt, BIN, CLI, serverEnv, startHttpServer } from "./support/server-process.js";

// docdb on PostgreSQL end to end: the built CLI and MCP server as real processes, against a
// PGlite server (PostgreSQL + pgvector) over TCP.

// Real processes on a loaded 2-core machine: generous limits; every wait below ends on an event.
vi.setConfig({ testTimeout: 300_000 });

let pg: PgliteServer;
let openai: FakeOpenAI;
let root: string;

beforeAll(async () => {
  assertBuilt(CLI);
  assertBuilt(BIN);
  root = mkdtempSync(join(tmpdir(), "docdb-pg-e2e-"));
  [pg, openai] = await Promise.all([startPgliteServer(), startFakeOpenAI({ dimensions: 64 })]);
}, 120_000);
afterAll(async () => {
  await pg?.stop();
  await openai?.close();
  rmSync(root, { recursive: true, force: true });
});

/** The CLI with OpenAI (the fake server) as its model. */
const withOpenAI = () => ({
  DOCDB_EMBEDDING: "openai",
  OPENAI_API_KEY: "sk-test",
  OPENAI_BASE_URL: openai.url,
  DOCDB_EMBEDDING_MODEL: "text-embedding-3-small",
  DOCDB_EMBEDDING_DIMENSIONS: "64",
});

/** Without an embedding model the CLI warns that chunks wait for one; anything else on stderr is a failure. */
function unexpectedStderr(stderr: string): string[] {
  return stderr.split("\n").filter((line) => line !== "" && !/^warning: .*(embedding|embed --pending|without vectors)/.test(line));
}

async function ok(args: string[], env: Record<string, string | undefined> = {}): Promise<string> {
  const result = await runCli(args, { env });
  expect(result.code, `docdb ${args.join(" ")}: ${result.stderr}`).toBe(0);
  expect(unexpectedStderr(result.stderr), `docdb ${args.join(" ")}`).toEqual([]);
  return result.stdout;
}

const pgCli = (args: string[], env: Record<string, string | undefined> = {}) => ok(["--store", pg.url, ...args], env);
const json = <T>(text: string): T => JSON.parse(text) as T;

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

function structured<T>(result: CallToolResult): T {
  const text = result.content.map((c) => (c.type === "text" ? c.text : "")).join("\n");
  expect(result.isError ?? false, text).toBe(false);
  return result.structuredContent as T;
}

async function tool<T = Record<string, unknown>>(client: Client, name: string, args: Record<string, unknown>): Promise<T> {
  return structured<T>((await client.callTool({ name, arguments: args })) as CallToolResult);
}

describe("docdb CLI on PostgreSQL (--store)", () => {
  it("insert → find (keyword, vector, hybrid) → get → delete, and db create/list/drop", async () => {
    const env = withOpenAI();
    await pgCli(["db", "create", "cli_e2e"]);
    const inserted = json<{ doc_id: string; embedded: boolean; chunk_count: number }>(
      await pgCli(
        ["insert", "--db", "cli_e2e", "--text", "北海道の冬はとても寒く、雪がたくさん降ります。", "--title", "北海道", "--json"],
        env,
      ),
    );
    expect(inserted).toMatchObject({ embedded: true, chunk_count: 1 });
    await pgCli(["insert", "--db", "cli_e2e", "--text", "The Rhine flows into the North Sea.", "--meta", '{"lang":"en"}', "--json"], env);

    for (const mode of ["keyword", "vector", "hybrid"]) {
      const results = json<{ doc_id: string; text: string }[]>(
        await pgCli(["find", "北海道の冬", "--db", "cli_e2e", "--mode", mode, "--json"], env),
      );
      expect(results[0]?.doc_id, mode).toBe(inserted.doc_id);
      expect(results[0]?.text).toContain("北海道");
    }
    const got = json<{ doc_id: string; title: string }>(await pgCli(["get", inserted.doc_id, "--db", "cli_e2e", "--json"]));
    expect(got).toMatchObject({ doc_id: inserted.doc_id, title: "北海道" });

    const list = json<{ name: string; documents: number; engine?: string; model: { dimensions: number } | null }[]>(
      await pgCli(["db", "list", "--json"]),
    );
    expect(list.find((d) => d.name === "cli_e2e")).toMatchObject({ documents: 2, model: { dimensions: 64 } });

    expect(json(await pgCli(["delete", inserted.doc_id, "--db", "cli_e2e", "--json"]))).toEqual({ deleted_chunks: 1 });
    const after = json<{ doc_id: string }[]>(await pgCli(["find", "北海道の冬", "--db", "cli_e2e", "--mode", "keyword", "--json"]));
    expect(after.map((r) => r.doc_id)).not.toContain(inserted.doc_id);

    expect(json(await pgCli(["db", "drop", "cli_e2e", "--yes", "--json"]))).toEqual({ dropped: true });
    const names = json<{ name: string }[]>(await pgCli(["db", "list", "--json"])).map((d) => d.name);
    expect(names).not.toContain("cli_e2e");
  });

  it("imports a folder with collection add + import, and a changed file on the next import", async () => {
    const folder = copyFixture("ja-docs");
    try {
      await pgCli(["collection", "add", "--create", "--db", "folder", "-n", "docs", "-d", "Japanese API docs", "-s", folder]);
      const first = json<{ added: number }>(await pgCli(["import", "--db", "folder", "-n", "docs", "--json"]));
      expect(first.added).toBe(4);
      const found = json<{ text: string }[]>(await pgCli(["find", "有効期限", "--db", "folder", "--mode", "keyword", "--json"]));
      expect(found[0]?.text).toContain("有効期限");

      writeFileSync(join(folder, "faq.txt"), "よくある質問: 合言葉は「ふじやま」です。\n");
      const second = json<{ added: number; updated: number; unchanged: number }>(
        await pgCli(["import", "--db", "folder", "-n", "docs", "--json"]),
      );
      expect(second).toMatchObject({ added: 0, updated: 1, unchanged: 3 });
      const status = json<{ collection: { documents: number } }>(await pgCli(["status", "--db", "folder", "-n", "docs", "--json"]));
      expect(status.collection.documents).toBe(4);
      const changed = json<{ text: string }[]>(await pgCli(["find", "ふじやま", "--db", "folder", "--mode", "keyword", "--json"]));
      expect(changed.map((r) => r.text).join("")).toContain("合言葉");
    } finally {
      rmSync(join(folder, ".."), { recursive: true, force: true });
    }
  });

  it("an unreachable server: STORE_UNAVAILABLE naming host:port, never the password; status never prints it either", async () => {
    const port = await freePort();
    const result = await runCli(["--store", `postgres://u:secret@127.0.0.1:${port}/x`, "status"]);
    expect(result.code).not.toBe(0);
    expect(result.stderr).toMatch(/^STORE_UNAVAILABLE: /);
    expect(result.stderr).toContain(`127.0.0.1:${port}`);
    expect(result.stdout + result.stderr).not.toContain("secret");

    const withPassword = pg.url.replace("postgres:postgres@", "postgres:pw-s3cr3t@");
    await ok(["--store", withPassword, "db", "create", "vectors"]);
    for (const args of [["status", "--json"], ["status"], ["db", "list", "--json"], ["db", "create", "vectors", "--json"]]) {
      const out = await runCli(["--store", withPassword, ...args]);
      expect(out.code, out.stderr).toBe(0);
      expect(out.stdout + out.stderr).not.toContain("pw-s3cr3t");
    }
    const status = json<{ store: { engine: string; location: string } }>(await ok(["--store", withPassword, "status", "--json"]));
    expect(status.store).toEqual({ engine: "postgres", location: `postgres://postgres@127.0.0.1:${pg.port}/postgres` });
  });
});

describe("docdb-mcp on PostgreSQL", () => {
  it("over stdio with --store: insert_document, find_similar_documents, a collection's search tool", async () => {
    const folder = copyFixture("ja-docs");
    await pgCli(["collection", "add", "-n", "api_docs", "-d", "社内APIのドキュメント", "-s", folder]);
    await pgCli(["import", "-n", "api_docs", "--json"]);
    const client = new Client({ name: "docdb-pg-e2e", version: "0.0.0" });
    await client.connect(
      new StdioClientTransport({ command: process.execPath, args: [BIN, "--store", pg.url], env: serverEnv(withOpenAI()), stderr: "pipe" }),
    );
    try {
      await tool(client, "create_database", { db_name: "mcp" });
      const inserted = await tool<{ doc_id: string; embedded: boolean }>(client, "insert_document", {
        db_name: "mcp",
        text: "東京は日本の首都で、隅田川が流れています。",
      });
      expect(inserted.embedded).toBe(true);
      await tool(client, "insert_document", { db_name: "mcp", text: "大阪はたこ焼きで知られています。" });
      for (const mode of ["keyword", "vector", "hybrid"]) {
        const found = await tool<{ results: { doc_id: string }[] }>(client, "find_similar_documents", {
          db_name: "mcp",
          text: "隅田川が流れる首都",
          mode,
        });
        expect(found.results[0]?.doc_id, mode).toBe(inserted.doc_id);
      }
      const passages = await tool<{ results: { path: string; text: string }[] }>(client, "search_api_docs", {
        query: "アクセストークンの有効期限",
        top_k: 3,
      });
      expect(passages.results[0]?.path).toBe("guide/auth.md");
      expect(passages.results[0]?.text).toContain("有効期限");
    } finally {
      await client.close();
      rmSync(join(folder, ".."), { recursive: true, force: true });
    }
  });

  for (const model of ["openai", "none"] as const) {
    it(`agent memory over stdio with --store (${model === "none" ? "no model" : "a model"}): store_qa reuses a topic, query_qa by context, store_knowledge marks QAs merged`, async () => {
      const client = new Client({ name: "docdb-pg-e2e-memory", version: "0.0.0" });
      await client.connect(
        new StdioClientTransport({
          command: process.execPath,
          args: [BIN, "--store", pg.url, "--db", `pg_memory_${model}`],
          env: serverEnv(model === "none" ? {} : withOpenAI()),
          stderr: "pipe",
        }),
      );
      type Stored = { qa_id: string; topic: string; topic_created: boolean; embedded: boolean; similar: { qa_id: string }[] };
      type Query = { topic: { name: string } | null; results: { kind: string; id: string; answer?: string }[] };
      try {
        const a = await tool<Stored>(client, "store_qa", {
          topic: "Deploy",
          question: "How do I roll back a failed deploy?",
          answer: "Run `deploy rollback --to previous`.",
        });
        expect(a).toMatchObject({ topic: "Deploy", topic_created: true, embedded: model !== "none" });
        const b = await tool<Stored>(client, "store_qa", {
          topic: " deploy!",
          question: "How can I roll back a deploy that failed?",
          answer: "Use deploy rollback; it takes a minute.",
        });
        expect(b).toMatchObject({ topic: "Deploy", topic_created: false });
        if (model === "none") expect(b.similar.map((s) => s.qa_id)).toEqual([a.qa_id]);
        const port = await tool<Stored>(client, "store_qa", {
          topic: "Staging database",
          question: "Which port does the staging database listen on?",
          answer: "5433, not the default 5432.",
        });
        expect(port).toMatchObject({ topic: "Staging database", topic_created: true });

        const byContext = await tool<Query>(client, "query_qa", { question: "staging database port", context: "staging database setup" });
        expect(byContext.topic?.name).toBe("Staging database");
        expect(byContext.results[0]).toMatchObject({ kind: "qa", id: port.qa_id, answer: "5433, not the default 5432." });

        const knowledge = await tool<{ knowledge_id: string; merged_qa_ids: string[] }>(client, "store_knowledge", {
          text: "To roll back a failed deploy run `deploy rollback --to previous`; it takes a minute.",
          topic: "deploy",
          source_qa_ids: [a.qa_id, b.qa_id],
        });
        expect(knowledge.merged_qa_ids.sort()).toEqual([a.qa_id, b.qa_id].sort());
        // Merged QAs are kept but no longer found: the knowledge is.
        const deploy = await tool<Query>(client, "query_qa", { question: "roll back a failed deploy", context: "deploy" });
        expect(deploy.topic?.name).toBe("Deploy");
        expect(deploy.results.map((r) => r.id)).toEqual([knowledge.knowledge_id]);
        const topics = await tool<{ topics: { name: string; qa_count: number; unmerged_count: number; knowledge_count: number }[] }>(
          client,
          "list_topics",
          {},
        );
        expect(topics.topics.map((t) => [t.name, t.qa_count, t.unmerged_count, t.knowledge_count])).toEqual([
          ["Deploy", 2, 0, 1],
          ["Staging database", 1, 1, 0],
        ]);
        const read = await client.readResource({ uri: `knowledge://Deploy/${encodeURIComponent("roll back")}` });
        expect((read.contents[0] as { text: string }).text).toContain("deploy rollback --to previous");
        // Memory is counted apart from the documents.
        const status = await tool<{ documents: number; memory: { documents: number; pending: number } }>(client, "status", {});
        // Without a model its chunks wait for one, like documents' (one chunk per record).
        expect(status).toMatchObject({ documents: 0, memory: { documents: 2 + 3 + 1, pending: model === "none" ? 6 : 0 } });
      } finally {
        await client.close();
      }
    });
  }

  it("an MCP server over HTTP sees what a CLI import writes while it runs; final counts are exact", async () => {
    const FILES = 400;
    const corpus = join(root, "bulk-corpus");
    generateCorpus(corpus, { files: FILES, seed: 3 });
    await pgCli(["collection", "add", "--create", "--db", "bulk", "-n", "corpus", "-d", "generated corpus", "-s", corpus]);
    const server = await startHttpServer(["--store", pg.url]);
    const client = new Client({ name: "docdb-pg-e2e-http", version: "0.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL(server.url)));
    try {
      const child = spawn(process.execPath, [CLI, "--store", pg.url, "import", "--db", "bulk", "-n", "corpus", "--json"], {
        env: serverEnv(),
        stdio: ["ignore", "pipe", "pipe"],
      });
      let stdout = "";
      let stderr = "";
      child.stdout.setEncoding("utf8").on("data", (d: string) => {
        stdout += d;
      });
      child.stderr.setEncoding("utf8").on("data", (d: string) => {
        stderr += d;
      });
      let running = true;
      const done = new Promise<number | null>((resolve) =>
        child.on("close", (code) => {
          running = false;
          resolve(code);
        }),
      );
      const seen: number[] = [];
      while (running) {
        const status = await tool<{ documents: number }>(client, "status", { db_name: "bulk" });
        if (running) seen.push(status.documents);
      }
      expect(await done, stderr).toBe(0);
      expect(unexpectedStderr(stderr)).toEqual([]);
      expect(json<{ added: number }>(stdout).added).toBe(FILES);
      // The server saw the import's documents arrive, batch by batch, while it ran.
      expect(
        seen.some((n) => n > 0 && n < FILES),
        `counts seen during the import: ${seen.join(",")}`,
      ).toBe(true);
      for (let i = 1; i < seen.length; i++) expect(seen[i]).toBeGreaterThanOrEqual(seen[i - 1] as number);

      const final = await tool<{ documents: number; chunks: number }>(client, "status", { db_name: "bulk" });
      const cli = json<{ collection: { documents: number; chunks: number } }>(
        await pgCli(["status", "--db", "bulk", "-n", "corpus", "--json"]),
      );
      expect(final.documents).toBe(FILES);
      expect(cli.collection).toMatchObject({ documents: FILES, chunks: final.chunks });
      expect(server.stderr.filter((l) => /error/i.test(l))).toEqual([]);
    } finally {
      await client.close();
      await server.stop();
    }
  });
});

describe("read-only SQL and reused vectors on PostgreSQL", () => {
  it("docdb sql --store and MCP query_sql answer over the views; status and the MCP status tool count reused vectors", async () => {
    const env = withOpenAI();
    const folder = join(root, "sql-notes");
    mkdirSync(folder, { recursive: true });
    const paragraphs = Array.from({ length: 8 }, (_, i) => `Section ${i}. ${`Paragraph ${i} explains setup and operations. `.repeat(4)}`);
    writeFileSync(join(folder, "guide.md"), paragraphs.join("\n\n"));
    await pgCli(["collection", "add", "--create", "--db", "sqldb", "-n", "notes", "-d", "notes", "-s", folder]);
    const first = json<{ chunks: number; embedded: number }>(
      await pgCli(["import", "--db", "sqldb", "-n", "notes", "--chunk-size", "200", "--chunk-overlap", "0", "--json"], env),
    );
    expect(first.chunks).toBeGreaterThanOrEqual(8);
    expect(first.embedded).toBe(first.chunks);
    paragraphs[3] = `Section 3. ${"Paragraph 3 was rewritten entirely just now. ".repeat(4)}`;
    writeFileSync(join(folder, "guide.md"), paragraphs.join("\n\n"));
    const second = json<{ updated: number; reused_vectors: number; total_chunks: number }>(
      await pgCli(["import", "--db", "sqldb", "-n", "notes", "--json"], env),
    );
    expect(second.updated).toBe(1);
    expect(second.reused_vectors).toBeGreaterThanOrEqual(first.chunks - 2);
    await pgCli(
      ["insert", "--db", "sqldb", "--text", "東京は日本の首都です。", "--meta", '{"lang":"ja"}', "--key", "tokyo", "--json"],
      env,
    );

    const status = json<{ databases: { name: string; reused_vectors: number }[] }>(await pgCli(["status", "--db", "sqldb", "--json"]));
    expect(status.databases[0]).toMatchObject({ name: "sqldb", reused_vectors: second.reused_vectors });
    const table = await pgCli(["status", "--db", "sqldb"]);
    expect(table).toMatch(/REUSED/);
    expect(table).toMatch(new RegExp(`sqldb\\s+2\\s+\\d+\\s+0\\s+${second.reused_vectors}\\s`));

    const counts = json<{ columns: string[]; rows: unknown[][]; truncated: boolean; limits: { max_rows: number } }>(
      await pgCli([
        "sql",
        "--db",
        "sqldb",
        "SELECT coalesce(collection, '-') AS collection, count(*) AS docs, sum(length) AS chars FROM documents_v GROUP BY 1 ORDER BY 1",
        "--json",
      ]),
    );
    expect(counts).toMatchObject({ columns: ["collection", "docs", "chars"], truncated: false, limits: { max_rows: 100 } });
    expect(counts.rows.map((r) => r.slice(0, 2))).toEqual([
      ["-", 1],
      ["notes", 1],
    ]);
    const lang = json<{ rows: unknown[][] }>(
      await pgCli([
        "sql",
        "--db",
        "sqldb",
        "SELECT key, metadata ->> 'lang' AS lang FROM documents_v WHERE metadata ->> 'lang' = 'ja'",
        "--json",
      ]),
    );
    expect(lang.rows).toEqual([["tokyo", "ja"]]);
    const cut = await runCli([
      "--store",
      pg.url,
      "sql",
      "--db",
      "sqldb",
      "SELECT idx, embedded FROM chunks_v ORDER BY doc_id, idx",
      "--max-rows",
      "3",
    ]);
    expect(cut.code, cut.stderr).toBe(0);
    expect(cut.stderr).toMatch(/cut at the 3-row cap/);
    // With DOCDB_POSTGRES_SQL_ROLE the query runs as that role: the views only.
    await adminQuery(pg.url, [
      "CREATE ROLE docdb_e2e_reader NOLOGIN",
      "GRANT USAGE ON SCHEMA docdb_sqldb TO docdb_e2e_reader",
      "GRANT SELECT ON docdb_sqldb.documents_v TO docdb_e2e_reader",
    ]);
    const asReader = json<{ rows: unknown[][] }>(
      await pgCli(["sql", "--db", "sqldb", "SELECT current_user AS who, count(*) AS n FROM documents_v", "--json"], {
        DOCDB_POSTGRES_SQL_ROLE: "docdb_e2e_reader",
      }),
    );
    expect(asReader.rows).toEqual([["docdb_e2e_reader", 2]]);
    const denied = await runCli(["--store", pg.url, "sql", "--db", "sqldb", "SELECT count(*) AS n FROM meta"], {
      env: { DOCDB_POSTGRES_SQL_ROLE: "docdb_e2e_reader" },
    });
    expect(denied.code).toBe(2);
    expect(denied.stderr).toMatch(/^INVALID_REQUEST: SQL error: permission denied for table meta/);
    for (const sql of ["DELETE FROM documents", "SELECT pg_sleep(5)"]) {
      const refused = await runCli(["--store", pg.url, "sql", "--db", "sqldb", sql]);
      expect(refused.code, sql).toBe(2);
      expect(refused.stderr, sql).toMatch(/^INVALID_REQUEST: /);
    }

    const client = new Client({ name: "docdb-pg-e2e-sql", version: "0.0.0" });
    await client.connect(
      new StdioClientTransport({ command: process.execPath, args: [BIN, "--store", pg.url], env: serverEnv(), stderr: "pipe" }),
    );
    try {
      const answer = await tool<{ rows: unknown[][]; row_count: number }>(client, "query_sql", {
        db_name: "sqldb",
        sql: "SELECT count(*) AS chunks, sum(embedded) AS embedded FROM chunks_v",
      });
      expect(answer.rows).toEqual([[second.total_chunks + 1, second.total_chunks + 1]]);
      const refused = (await client.callTool({
        name: "query_sql",
        arguments: { db_name: "sqldb", sql: "UPDATE documents SET title = 'x'" },
      })) as CallToolResult;
      expect(refused.isError).toBe(true);
      // The refused UPDATE changed nothing.
      const titles = await tool<{ rows: unknown[][] }>(client, "query_sql", {
        db_name: "sqldb",
        sql: "SELECT count(*) AS n FROM documents_v WHERE title = 'x'",
      });
      expect(titles.rows).toEqual([[0]]);
      const mcpStatus = await tool<{ reused_vectors: number }>(client, "status", { db_name: "sqldb" });
      expect(mcpStatus.reused_vectors).toBe(second.reused_vectors);
    } finally {
      await client.close();
    }
  });
});

/** Every document with its chunks (vectors as bytes), in creation order, from an engine's database. */
async function snapshot(store: Store) {
  const docs = await store.listDocuments({ limit: 100_000 });
  const out = [];
  for (const d of docs) {
    const full = await store.getDocument(d.id);
    const chunks = (await store.exportChunks(d.id)).map((c: ExportedChunk) => ({
      ...c,
      vector: c.vector ? Buffer.from(c.vector.buffer, c.vector.byteOffset, c.vector.byteLength).toString("base64") : null,
    }));
    out.push({ ...full, chunks });
  }
  return out;
}

async function withStore<T>(engine: StoreEngine, name: string, fn: (store: Store) => Promise<T>): Promise<T> {
  try {
    return await fn(await engine.openDatabase(name));
  } finally {
    await engine.close();
  }
}

describe("agent memory's SQL views on both engines", () => {
  it("topics_v, qa_v and knowledge_v have their documented columns and give the same rows on PostgreSQL as on SQLite", async () => {
    const answers: unknown[][][] = [];
    for (const store of [undefined, `${pg.url}#memviews`]) {
      const docdb = openDocDB({ dataDir: join(root, "memviews"), store, embedding: null, logger: silentLogger() });
      try {
        const db = await docdb.database("memviews", { create: true });
        for (const [view, columns] of Object.entries(SQL_VIEWS)) {
          expect((await db.sql(`SELECT * FROM ${view} LIMIT 0`)).columns, `${view} on ${store ?? "SQLite"}`).toEqual(columns);
        }
        const a = await db.memory.storeQa({ question: "How do I roll back a failed deploy?", answer: "deploy rollback", topic: "Deploy" });
        const b = await db.memory.storeQa({ question: "How can I roll back a deploy that failed?", answer: "rollback", topic: " deploy!" });
        await db.memory.storeQa({ question: "Which port does staging use?", answer: "5433", topic: "Staging database" });
        await db.memory.storeKnowledge({ text: "Roll back with `deploy rollback`.", topic: "Deploy", source_qa_ids: [a.qa_id, b.qa_id] });
        const rows: unknown[][] = [];
        for (const sql of [
          "SELECT name, normalized_name, qa_count, unmerged_count, knowledge_count FROM topics_v ORDER BY name",
          "SELECT topic, question, answer, merged, CASE WHEN merged_into IS NULL THEN 0 ELSE 1 END AS has_target FROM qa_v ORDER BY question",
          "SELECT topic, text, source_count FROM knowledge_v",
          "SELECT topic, count(*) AS open FROM qa_v WHERE merged = 0 GROUP BY topic",
        ]) {
          rows.push((await db.sql(sql)).rows);
        }
        answers.push(rows);
      } finally {
        await docdb.close();
      }
    }
    expect(answers[0]?.[0]).toEqual([
      ["Deploy", "deploy", 2, 0, 1],
      ["Staging database", "staging database", 1, 1, 0],
    ]);
    expect(answers[0]?.[2]).toEqual([["Deploy", "Roll back with `deploy rollback`.", 2]]);
    expect(answers[1]).toEqual(answers[0]);
  });
});

describe("docdb copy between engines", () => {
  it("SQLite → PostgreSQL → SQLite keeps documents, chunks, vectors byte for byte, collections and keyword results", async () => {
    const dataDir = join(root, "copy-data");
    const env = withOpenAI();
    const local = (args: string[]) => ok(["--data-dir", dataDir, ...args], env);
    await local(["insert", "--text", "京都には金閣寺や清水寺など多くの寺院があります。", "--key", "kyoto", "--meta", '{"lang":"ja"}']);
    await local(["insert", "--text", "The Rhine flows from the Alps into the North Sea.", "--title", "Rhine"]);
    const folder = copyFixture("ja-docs");
    await local(["collection", "add", "-n", "api_docs", "-d", "社内APIのドキュメント", "-s", folder]);
    await local(["import", "-n", "api_docs", "--json"]);

    const target = `${pg.url}#copied`;
    const there = json<{ copied: number; skipped: number; vectors: number; collections: number }>(
      await local(["copy", "sqlite:vectors", target, "--json"]),
    );
    expect(there).toMatchObject({ copied: 6, skipped: 0, collections: 1 });
    expect(there.vectors).toBeGreaterThan(6);
    const back = json<{ copied: number }>(await local(["copy", target, `sqlite:${join(root, "backup", "back.db")}`, "--json"]));
    expect(back.copied).toBe(6);
    // Again: everything is already there.
    expect(json(await local(["copy", "sqlite:vectors", target, "--json"]))).toMatchObject({ copied: 0, skipped: 6 });

    const original = await withStore(createSqliteEngine({ dataDir }), "vectors", snapshot);
    const onPostgres = await withStore(createPostgresEngine({ url: pg.url }), "copied", snapshot);
    const roundTrip = await withStore(createSqliteEngine({ dataDir: join(root, "backup") }), "back", snapshot);
    expect(original).toHaveLength(6);
    expect(onPostgres).toEqual(original);
    expect(roundTrip).toEqual(original);

    // The same keyword results everywhere, and the collection is searchable with its files.
    const places = [
      ["--data-dir", dataDir],
      ["--store", pg.url, "--db", "copied"],
      ["--data-dir", join(root, "backup"), "--db", "back"],
    ];
    const ranked = [];
    for (const place of places) {
      const [flag, value, ...db] = place as [string, string, ...string[]];
      const results = json<{ chunk_id: string }[]>(
        await ok([flag, value, "find", "寺院 トークン 有効期限", ...db, "--mode", "keyword", "--json"]),
      );
      ranked.push(results.map((r) => r.chunk_id));
    }
    expect(ranked[0]?.length).toBeGreaterThan(1);
    expect(ranked[1]).toEqual(ranked[0]);
    expect(ranked[2]).toEqual(ranked[0]);
    const files = json<{ collection: { documents: number }; files: { path: string }[] }>(
      await ok(["--store", pg.url, "status", "--db", "copied", "-n", "api_docs", "--json"]),
    );
    expect(files.collection.documents).toBe(4);
    expect(files.files.map((f) => f.path).sort()).toEqual(["README.md", "faq.txt", "guide/auth.md", "guide/errors.md"]);

    // Another model at the target is refused.
    await ok(["--store", pg.url, "insert", "--create", "--db", "other_model", "--text", "x"], {
      ...env,
      DOCDB_EMBEDDING_DIMENSIONS: "32",
    });
    const refused = await runCli(["--data-dir", dataDir, "copy", "sqlite:vectors", `${pg.url}#other_model`]);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toMatch(/^DIMENSION_MISMATCH: /);
    rmSync(join(folder, ".."), { recursive: true, force: true });
  });

  it("refuses a copy onto itself and from a missing database, naming no password", async () => {
    const secretUrl = pg.url.replace("postgres:postgres@", "postgres:pw-s3cr3t@");
    await ok(["--store", secretUrl, "db", "create", "self"]);
    const same = await runCli(["copy", `${secretUrl}#self`, `${secretUrl}#self`]);
    expect(same.code).not.toBe(0);
    expect(same.stderr).toMatch(/^INVALID_REQUEST: .*both the source and the target/);
    const missing = await runCli(["--data-dir", join(root, "missing"), "copy", `${secretUrl}#nope`, "sqlite:x"]);
    expect(missing.code).not.toBe(0);
    expect(missing.stderr).toMatch(/^NOT_FOUND: database "nope" does not exist/);
    for (const r of [same, missing]) expect(r.stdout + r.stderr).not.toContain("pw-s3cr3t");
  });

  it("a copy killed with SIGKILL midway finishes when run again, with the same counts", async () => {
    const FILES = 400;
    const dataDir = join(root, "kill-data");
    const corpus = join(root, "kill-corpus");
    generateCorpus(corpus, { files: FILES, seed: 9 });
    await ok(["--data-dir", dataDir, "collection", "add", "-n", "corpus", "-d", "generated corpus", "-s", corpus]);
    await ok(["--data-dir", dataDir, "import", "-n", "corpus", "--json"]);
    const target = `${pg.url}#killed`;

    const child = spawn(process.execPath, [CLI, "--data-dir", dataDir, "copy", "sqlite:vectors", target, "--batch-size", "10"], {
      env: serverEnv(),
      stdio: ["ignore", "ignore", "pipe"],
    });
    const exited = new Promise<NodeJS.Signals | null>((resolve) => child.once("exit", (_code, signal) => resolve(signal)));
    const lines: string[] = [];
    createInterface({ input: child.stderr }).on("line", (line) => {
      lines.push(line);
      const match = /^copying: (\d+)\/(\d+)/.exec(line);
      if (match && Number(match[1]) > 0 && Number(match[1]) < Number(match[2])) child.kill("SIGKILL");
    });
    expect(await exited, `the copy finished before it could be killed: ${lines.join("\n")}`).toBe("SIGKILL");

    const partial = await withStore(createPostgresEngine({ url: pg.url }), "killed", (s) => s.counts());
    expect(partial.documents).toBeGreaterThan(0);
    expect(partial.documents).toBeLessThan(FILES);

    const rerun = json<{ copied: number; skipped: number }>(await ok(["--data-dir", dataDir, "copy", "sqlite:vectors", target, "--json"]));
    expect(rerun.skipped).toBe(partial.documents);
    expect(rerun.copied + rerun.skipped).toBe(FILES);

    const source = await withStore(createSqliteEngine({ dataDir }), "vectors", (s) => s.counts());
    const copied = await withStore(createPostgresEngine({ url: pg.url }), "killed", (s) => s.counts());
    expect(copied).toEqual(source);
    const files = json<{ collection: { documents: number; chunks: number } }>(
      await ok(["--store", pg.url, "status", "--db", "killed", "-n", "corpus", "--json"]),
    );
    expect(files.collection).toMatchObject({ documents: FILES, chunks: source.chunks });
  });
});

export type { CliResult };
