import { type AddressInfo, createServer as createNetServer, type Socket } from "node:net";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { afterEach, describe, expect, it } from "vitest";
import { type FakeOpenAI, startFakeOpenAI } from "../../../test/support/fake-openai.js";
import { ok } from "./support/agent-flow.js";
import { assertBuilt, BIN, serverEnv, tempDataDir } from "./support/server-process.js";

interface Status {
  pending: number;
  embedded: number;
  healing?: { state: string; last_error: string | null; next_attempt_at: string | null; embedded: number };
  memory?: { documents: number; embedded: number; pending: number };
}

async function connect(dataDir: string, baseURL: string, extra: Record<string, string> = {}): Promise<Client> {
  const client = new Client({ name: "docdb-test", version: "0" });
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [assertBuilt(BIN), "--data-dir", dataDir],
      env: serverEnv({
        DOCDB_EMBEDDING: "openai",
        OPENAI_API_KEY: "sk-test",
        OPENAI_BASE_URL: baseURL,
        DOCDB_EMBEDDING_DIMENSIONS: "32",
        ...extra,
      }),
      stderr: "pipe",
    }),
  );
  return client;
}

/** Polls `status` until `done` holds; fails with the last status after `timeoutMs`. */
async function statusUntil(client: Client, done: (s: Status) => boolean, timeoutMs = 60_000): Promise<Status> {
  const until = Date.now() + timeoutMs;
  let last: Status | undefined;
  while (Date.now() < until) {
    last = await ok<Status>(client, "status");
    if (done(last)) return last;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`status never reached the expected state; last: ${JSON.stringify(last)}`);
}

describe("pending embeddings heal themselves in a running server", () => {
  const cleanups: (() => Promise<void> | void)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  it("a provider that is down (503), then back: the pending count reaches 0 with no command run", async () => {
    const openai: FakeOpenAI = await startFakeOpenAI({ dimensions: 32 });
    cleanups.push(() => openai.close());
    const data = tempDataDir();
    cleanups.push(() => data.remove());
    // Down: every call answers 503 until the failures are cleared.
    for (let i = 0; i < 10_000; i++) openai.failures.push({ status: 503 });
    const client = await connect(data.dir, openai.url, {
      DOCDB_EMBED_DEADLINE_MS: "1500",
      DOCDB_HEAL_MIN_MS: "200",
      DOCDB_HEAL_MAX_MS: "1000",
    });
    cleanups.push(() => client.close());

    const inserted = await ok<{ embedded: boolean; warnings: string[] }>(client, "insert_document", {
      text: "The lighthouse keeper logs every ship that passes the cape.",
    });
    expect(inserted.embedded).toBe(false);
    expect(inserted.warnings.join(" ")).toMatch(/stored without vectors/);

    const waiting = await statusUntil(client, (s) => s.healing?.state === "waiting" && s.healing.last_error !== null);
    expect(waiting.pending).toBeGreaterThan(0);
    expect(waiting.healing?.last_error).toMatch(/503/);
    expect(Date.parse(waiting.healing?.next_attempt_at ?? "")).toBeGreaterThan(0);

    // Back: nothing but status calls from here on.
    openai.failures.splice(0);
    const healed = await statusUntil(client, (s) => s.pending === 0);
    expect(healed.embedded).toBeGreaterThan(0);
    const idle = await statusUntil(client, (s) => s.healing?.state === "idle");
    expect(idle.healing).toMatchObject({ last_error: null });
    expect(idle.healing?.embedded).toBeGreaterThan(0);

    const found = await ok<{ results: { score: number }[]; warnings: string[] }>(client, "find_similar_documents", {
      text: "lighthouse keeper",
      mode: "vector",
    });
    expect(found.results.length).toBe(1);
    expect(found.warnings).toEqual([]);

    // Agent memory heals too, even when it is all that waits (status counts it apart).
    for (let i = 0; i < 10_000; i++) openai.failures.push({ status: 503 });
    const qa = await ok<{ embedded: boolean }>(client, "store_qa", {
      question: "Who logs the ships that pass the cape?",
      answer: "The lighthouse keeper.",
      topic: "Lighthouse",
    });
    expect(qa.embedded).toBe(false);
    const memoryWaiting = await statusUntil(client, (s) => s.healing?.state === "waiting" && (s.memory?.pending ?? 0) > 0);
    expect(memoryWaiting.pending).toBe(0);
    openai.failures.splice(0);
    const memoryHealed = await statusUntil(client, (s) => s.memory?.pending === 0);
    expect(memoryHealed.memory).toMatchObject({ documents: 2, embedded: 2 });
  });

  it("a provider that accepts and never answers: an insert returns within the deadline, pending", async () => {
    const sockets: Socket[] = [];
    const silent = createNetServer((socket) => sockets.push(socket));
    await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
    cleanups.push(
      () =>
        new Promise<void>((resolve) => {
          for (const socket of sockets) socket.destroy();
          silent.close(() => resolve());
        }),
    );
    const data = tempDataDir();
    cleanups.push(() => data.remove());
    const { port } = silent.address() as AddressInfo;
    const client = await connect(data.dir, `http://127.0.0.1:${port}/v1`, { DOCDB_EMBED_DEADLINE_MS: "1000" });
    cleanups.push(() => client.close());

    const started = Date.now();
    const inserted = await ok<{ embedded: boolean; warnings: string[]; doc_id: string }>(client, "insert_document", {
      text: "Tide tables for the northern harbour.",
    });
    expect(Date.now() - started).toBeLessThan(8_000);
    expect(inserted.embedded).toBe(false);
    expect(inserted.warnings.join(" ")).toMatch(/did not answer within 1 s/);
    // Stored and searchable by keywords at once.
    const found = await ok<{ results: { doc_id: string }[] }>(client, "find_similar_documents", { text: "tide tables", mode: "keyword" });
    expect(found.results[0]?.doc_id).toBe(inserted.doc_id);
  });
});
