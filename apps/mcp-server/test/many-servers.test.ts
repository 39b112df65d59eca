// Two `docdb-mcp --http` processes over one PostgreSQL (PGlite over TCP) behave as one service:
// writes through one are found through the other at once, pending chunks are embedded once (the
// embedding lease), and a process killed -9 mid-write leaves the database whole.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { adminQuery } from "../../../packages/store-postgres/test/support/admin.js";
import { type PgliteServer, startPgliteServer } from "../../../packages/store-postgres/test/support/pglite-server.js";
import { generateCorpus } from "../../../scripts/generate-corpus.mjs";
import { type FakeOpenAI, startFakeOpenAI } from "../../../test/support/fake-openai.js";
import { runCli } from "../../cli/test/run-cli.js";
import { assertBuilt, BIN, CLI, type HttpServerProcess, serverEnv, startHttpServer } from "./support/server-process.js";

// Real processes on a loaded machine: every wait ends on an event or a polled condition.
vi.setConfig({ testTimeout: 600_000, hookTimeout: 120_000 });

/** Inserts (each followed by finds through the other process) in the interleaving test; CI may set fewer. */
const INSERTS = Number(process.env.DOCDB_TEST_MANY_SERVERS_INSERTS || 1000);
/** How long an insert may take to be found through the other process. */
const VISIBLE_WITHIN_MS = 1000;

let pg: PgliteServer;
let openai: FakeOpenAI;
let root: string;
const started: HttpServerProcess[] = [];
const clients: Client[] = [];

beforeAll(async () => {
  assertBuilt(CLI);
  assertBuilt(BIN);
  root = mkdtempSync(join(tmpdir(), "docdb-many-servers-"));
  [pg, openai] = await Promise.all([startPgliteServer(), startFakeOpenAI({ dimensions: 32, delayMs: 150 })]);
});
/** Each test's servers stop with it (a later test's background embedders must be its own). */
async function stopAll(): Promise<void> {
  for (const client of clients.splice(0)) await client.close().catch(() => undefined);
  for (const server of started.splice(0)) await server.stop();
}
afterEach(stopAll);
afterAll(async () => {
  await stopAll();
  await pg?.stop();
  await openai?.close();
  rmSync(root, { recursive: true, force: true });
});

const withOpenAI = (extra: Record<string, string> = {}) =>
  serverEnv({
    DOCDB_EMBEDDING: "openai",
    OPENAI_API_KEY: "sk-test",
    OPENAI_BASE_URL: openai.url,
    DOCDB_EMBEDDING_MODEL: "text-embedding-3-small",
    DOCDB_EMBEDDING_DIMENSIONS: "32",
    ...extra,
  });

async function serve(db: string, env: Record<string, string>): Promise<{ server: HttpServerProcess; client: Client }> {
  const server = await startHttpServer(["--store", pg.url, "--db", db], env);
  started.push(server);
  const client = new Client({ name: "docdb-many-servers", version: "0.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(server.url)));
  clients.push(client);
  return { server, client };
}

async function tool<T = Record<string, unknown>>(client: Client, name: string, args: Record<string, unknown>): Promise<T> {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
  const text = result.content.map((c) => (c.type === "text" ? c.text : "")).join("\n");
  if (result.isError) throw new Error(`${name} failed: ${text}`);
  return result.structuredContent as T;
}

async function cli(args: string[], env: Record<string, string> = serverEnv()): Promise<string> {
  const result = await runCli(["--store", pg.url, ...args], { env });
  expect(result.code, `docdb ${args.join(" ")}: ${result.stderr}`).toBe(0);
  return result.stdout;
}

/** Polls `check` until it holds (true) or `ms` pass (false); each look is one real request. */
async function within(ms: number, check: () => Promise<boolean>): Promise<boolean> {
  const end = Date.now() + ms;
  for (;;) {
    if (await check()) return true;
    if (Date.now() >= end) return false;
    await new Promise((resolve) => setImmediate(resolve));
  }
}

/** Rows that would mean a half-written document, in a database's schema. */
async function inconsistencies(db: string): Promise<Record<string, number>> {
  const s = `docdb_${db}`;
  const [vectors] = await adminQuery(pg.url, [`SELECT to_regclass('${s}.chunk_vectors') IS NOT NULL AS ok`]);
  const embeddedWithoutVector = vectors?.rows[0]?.ok
    ? `(SELECT count(*) FROM ${s}.chunks WHERE embedded AND seq NOT IN (SELECT seq FROM ${s}.chunk_vectors))::int`
    : `(SELECT count(*) FROM ${s}.chunks WHERE embedded)::int`;
  const [result] = await adminQuery(pg.url, [
    `SELECT
       (SELECT count(*) FROM ${s}.documents d WHERE NOT EXISTS (SELECT 1 FROM ${s}.chunks c WHERE c.doc_id = d.id))::int AS documents_without_chunks,
       (SELECT count(*) FROM ${s}.chunks c WHERE NOT EXISTS (SELECT 1 FROM ${s}.documents d WHERE d.id = c.doc_id))::int AS chunks_without_document,
       ${embeddedWithoutVector} AS embedded_without_vector,
       (SELECT count(*) FROM ${s}.chunks c WHERE c.kw_length > 0 AND NOT EXISTS (SELECT 1 FROM ${s}.postings p WHERE p.seq = c.seq))::int AS chunks_without_keywords,
       ((SELECT chunks FROM ${s}.counters) - (SELECT count(*) FROM ${s}.chunks))::int AS counter_drift`,
  ]);
  return result?.rows[0] as Record<string, number>;
}

describe("two serve --http processes over one PostgreSQL", () => {
  it(`${INSERTS} interleaved inserts and finds across both: 0 errors, each insert found through the other within ${VISIBLE_WITHIN_MS} ms`, async () => {
    await cli(["db", "create", "shared"]);
    const [a, b] = await Promise.all([serve("shared", serverEnv()), serve("shared", serverEnv())]);
    const errors: string[] = [];
    const slowest = { ms: 0, i: -1 };
    let next = 0;
    const lane = async () => {
      for (let i = next++; i < INSERTS; i = next++) {
        const [writer, reader] = i % 2 === 0 ? [a.client, b.client] : [b.client, a.client];
        const word = `zq${i.toString(36)}marker${(i * 7919).toString(36)}`;
        try {
          const { doc_id } = await tool<{ doc_id: string }>(writer, "insert_document", {
            text: `Note ${i}: ${word} shared between servers.`,
          });
          const inserted = Date.now();
          const found = await within(VISIBLE_WITHIN_MS, async () => {
            const { results } = await tool<{ results: { doc_id: string }[] }>(reader, "find_similar_documents", {
              text: word,
              mode: "keyword",
            });
            return results.some((r) => r.doc_id === doc_id);
          });
          const ms = Date.now() - inserted;
          if (ms > slowest.ms) Object.assign(slowest, { ms, i });
          if (!found) errors.push(`insert ${i} (${doc_id}) not found through the other process within ${VISIBLE_WITHIN_MS} ms`);
        } catch (error) {
          errors.push(`insert ${i}: ${(error as Error).message}`);
        }
      }
    };
    await Promise.all(Array.from({ length: 4 }, lane));
    expect(errors, `slowest visibility ${slowest.ms} ms (insert ${slowest.i})`).toEqual([]);
    const [sa, sb] = await Promise.all([a.client, b.client].map((c) => tool<{ documents: number }>(c, "status", {})));
    expect(sa?.documents).toBe(INSERTS);
    expect(sb?.documents).toBe(INSERTS);
    expect(await inconsistencies("shared")).toMatchObject({ documents_without_chunks: 0, chunks_without_document: 0, counter_drift: 0 });
    // Its chunks wait for a vector (no model): out of the way of the next tests' embedders.
    for (const c of [a.client, b.client]) await c.close();
    await cli(["db", "drop", "shared", "--yes"]);
  });

  it("databases, memory topics and collection tools agree: a change through one is seen through the other", async () => {
    await cli(["db", "create", "agree"]);
    const [a, b] = await Promise.all([serve("agree", serverEnv()), serve("agree", serverEnv())]);
    const names = async (c: Client) =>
      (await tool<{ databases: { name: string }[] }>(c, "list_databases", {})).databases.map((d) => d.name);
    // A database created through A is listed by B at once, and usable there.
    await tool(a.client, "create_database", { db_name: "agree_new" });
    expect(await names(b.client)).toContain("agree_new");
    await tool(b.client, "insert_document", { db_name: "agree_new", text: "first life: phoenixword" });
    // Memory: a topic made through A is B's to reuse.
    const first = await tool<{ topic_created: boolean }>(a.client, "store_qa", {
      question: "How to deploy?",
      answer: "Run make deploy.",
      topic: "Deploy",
    });
    expect(first.topic_created).toBe(true);
    const topics = await tool<{ topics: { name: string; qa_count?: number }[] }>(b.client, "list_topics", {});
    expect(topics.topics.map((t) => t.name)).toEqual(["Deploy"]);
    const second = await tool<{ topic_created: boolean; topic: string }>(b.client, "store_qa", {
      question: "How to deploy to staging?",
      answer: "Run make deploy ENV=staging.",
      topic: "deploy",
    });
    expect(second).toMatchObject({ topic_created: false, topic: "Deploy" });
    // A database dropped elsewhere: B (which had it open) answers NOT_FOUND, then sees it made again.
    await cli(["db", "drop", "agree_new", "--yes"]);
    expect(await names(b.client)).not.toContain("agree_new");
    const gone = (await b.client.callTool({
      name: "find_similar_documents",
      arguments: { db_name: "agree_new", text: "phoenixword", mode: "keyword" },
    })) as CallToolResult;
    expect(gone.isError).toBe(true);
    expect(JSON.stringify(gone.content)).toMatch(/NOT_FOUND/);
    await tool(a.client, "create_database", { db_name: "agree_new" });
    const { doc_id } = await tool<{ doc_id: string }>(a.client, "insert_document", {
      db_name: "agree_new",
      text: "second life: phoenixword",
    });
    const again = await tool<{ results: { doc_id: string }[] }>(b.client, "find_similar_documents", {
      db_name: "agree_new",
      text: "phoenixword",
      mode: "keyword",
    });
    expect(again.results.map((r) => r.doc_id)).toEqual([doc_id]);
    // Collection tools: a collection added elsewhere brings its search tool to both servers.
    const folder = join(root, "agree-corpus");
    generateCorpus(folder, { files: 5, seed: 2 });
    await cli(["collection", "add", "--db", "agree", "-n", "handbook", "-d", "the team handbook", "-s", folder]);
    for (const c of [a.client, b.client]) {
      const listed = await within(60_000, async () => (await c.listTools()).tools.some((t) => t.name === "search_handbook"));
      expect(listed).toBe(true);
    }
    // Their chunks wait for a vector (no model): out of the way of the next tests' embedders.
    for (const c of [a.client, b.client]) await c.close();
    await cli(["db", "drop", "agree_new", "--yes"]);
    await cli(["db", "drop", "agree", "--yes"]);
  });

  it("pending chunks are embedded exactly once by the two background embedders (one holds the lease)", async () => {
    const corpus = join(root, "pending-corpus");
    generateCorpus(corpus, { files: 60, seed: 5 });
    // Written without a model: every chunk waits for a vector.
    await cli(["collection", "add", "--create", "--db", "heal", "-n", "corpus", "-d", "generated corpus", "-s", corpus]);
    await cli(["import", "--db", "heal", "-n", "corpus", "--json"]);
    const [pendingRows] = await adminQuery(pg.url, ["SELECT count(*)::int AS n FROM docdb_heal.chunks WHERE NOT embedded"]);
    const chunks = Number(pendingRows?.rows[0]?.n);
    expect(chunks).toBeGreaterThan(100);
    const before = openai.requests.length;
    // A provider call (1.5 s) longer than the lease (0.6 s): the holder's renewals keep it while it waits.
    openai.delayMs = 1500;
    const env = withOpenAI({ DOCDB_HEAL_MIN_MS: "50", DOCDB_EMBED_LEASE_MS: "600" });
    const [a, b] = await Promise.all([serve("heal", env), serve("heal", env)]);
    const status = (c: Client) => tool<{ pending: number; healing?: { embedded: number } }>(c, "status", { db_name: "heal" });
    expect(await within(300_000, async () => (await status(a.client)).pending === 0)).toBe(true);
    const inputs = openai.requests.slice(before).flatMap((r) => r.input);
    // Every chunk once: no more provider inputs than chunks, and none embedded twice.
    const counts = new Map<string, number>();
    for (const input of inputs) counts.set(input, (counts.get(input) ?? 0) + 1);
    const twice = [...counts].filter(([, n]) => n > 1);
    expect(inputs.length, `embedded twice: ${twice.length} texts`).toBe(chunks);
    const [ha, hb] = [(await status(a.client)).healing?.embedded ?? 0, (await status(b.client)).healing?.embedded ?? 0];
    expect(ha + hb).toBe(chunks);
    expect(await inconsistencies("heal")).toMatchObject({ embedded_without_vector: 0, counter_drift: 0 });
  });

  it("a process killed -9 while embedding and inserting: its lease expires, the other finishes; nothing half-written; the other keeps serving", async () => {
    const corpus = join(root, "kill-corpus");
    generateCorpus(corpus, { files: 60, seed: 11 });
    await cli(["collection", "add", "--create", "--db", "crash", "-n", "corpus", "-d", "generated corpus", "-s", corpus]);
    await cli(["import", "--db", "crash", "-n", "corpus", "--json"]);
    openai.delayMs = 5000; // a batch slow enough that A is still embedding it when it dies
    const env = withOpenAI({ DOCDB_HEAL_MIN_MS: "50", DOCDB_EMBED_LEASE_MS: "3000" });
    const a = await serve("crash", env);
    const pid = a.server.child.pid;
    // A holds the embedding lease (its holder name carries its pid).
    const leaseOfA = async () =>
      (
        (await adminQuery(pg.url, ["SELECT value FROM docdb_crash.meta WHERE key = 'lease:embed-pending'"]))[0]?.rows[0]?.value ?? ""
      ).includes(`pid${pid}-`);
    expect(await within(120_000, leaseOfA)).toBe(true);
    const b = await serve("crash", env);
    // Large multi-chunk documents through A, in flight when it dies.
    const big = (i: number) =>
      Array.from({ length: 400 }, (_, j) => `Paragraph ${j} of crash document ${i}: words about servers.`).join("\n\n");
    const inFlight = Array.from({ length: 6 }, (_, i) =>
      tool(a.client, "insert_document", { text: big(i), title: `crash ${i}` }).catch(() => undefined),
    );
    // Killed while it holds the lease (its one batch at the slow provider) and the inserts are in flight.
    a.server.child.kill("SIGKILL");
    await Promise.all(inFlight);
    // B keeps serving, takes the lease once A's runs out, and embeds the rest.
    const { doc_id } = await tool<{ doc_id: string }>(b.client, "insert_document", { text: "after the crash: survivorword" });
    const { results } = await tool<{ results: { doc_id: string }[] }>(b.client, "find_similar_documents", {
      text: "survivorword",
      mode: "keyword",
    });
    expect(results.map((r) => r.doc_id)).toContain(doc_id);
    const status = () => tool<{ pending: number; documents: number; healing?: { embedded: number } }>(b.client, "status", {});
    expect(await within(300_000, async () => (await status()).pending === 0)).toBe(true);
    expect((await status()).healing?.embedded ?? 0).toBeGreaterThan(0);
    expect(await inconsistencies("crash")).toEqual({
      documents_without_chunks: 0,
      chunks_without_document: 0,
      embedded_without_vector: 0,
      chunks_without_keywords: 0,
      counter_drift: 0,
    });
  });
});
