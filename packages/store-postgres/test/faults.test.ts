import { connect, createServer, type Socket } from "node:net";
import { type DocumentWrite, StoreError } from "@docdb/store";
import { afterAll, describe, expect, it } from "vitest";
import { createPostgresEngine } from "../src/index.js";
import { type PgliteServer, startPgliteServer } from "./support/pglite-server.js";

/** A loopback port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as { port: number }).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

async function caught(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error("expected an error");
}

describe("an unreachable server", () => {
  it("is UNAVAILABLE, naming host:port and database, never the password", async () => {
    const port = await closedPort();
    const engine = createPostgresEngine({
      url: `postgres://docdb:pa55-s3cret@127.0.0.1:${port}/knowledge`,
      pool: { connectionTimeoutMillis: 3000 },
    });
    expect(engine.location).toBe(`postgres://docdb@127.0.0.1:${port}/knowledge`);
    for (const attempt of [engine.openDatabase("notes", { create: true }), engine.listDatabases(), engine.databaseExists("notes")]) {
      const error = await caught(attempt);
      expect(StoreError.isInstance(error)).toBe(true);
      const e = error as StoreError;
      expect(e.code).toBe("UNAVAILABLE");
      expect(e.message).toMatch(new RegExp(`^cannot reach PostgreSQL at 127\\.0\\.0\\.1:${port}/knowledge: `));
      expect(e.message).not.toContain("pa55-s3cret");
      expect(e.message).not.toContain("\n    at ");
      expect(JSON.stringify(e)).not.toContain("pa55-s3cret");
    }
    await engine.close();
  });
});

const docWrite = (i: number, chunks: number): DocumentWrite => ({
  document: { id: `D${String(i).padStart(6, "0")}`, content: `document ${i}`, contentHash: `h${i}`, metadata: { i }, title: `Title ${i}` },
  chunks: Array.from({ length: chunks }, (_, j) => ({
    id: `D${String(i).padStart(6, "0")}-${String(j).padStart(3, "0")}`,
    idx: j,
    text: `chunk ${j} of document ${i}: ${"lorem ipsum dolor sit amet ".repeat(20)} 東京の天気`,
    start: 0,
    end: 1,
  })),
});

describe("a server that goes away", () => {
  let server: PgliteServer | undefined;
  afterAll(async () => {
    await server?.stop();
  });

  it("leaves no half-written document when killed mid-write, and writes again after a restart", async () => {
    server = await startPgliteServer({ persistent: true });
    const engine = createPostgresEngine({ url: server.url, pool: { max: 2, connectionTimeoutMillis: 3000 } });
    const store = await engine.openDatabase("crash", { create: true });
    const CHUNKS = 30;
    const acknowledged: number[] = [];
    const failures: unknown[] = [];
    let i = 0;
    const writer = (async () => {
      for (;;) {
        const n = i++;
        try {
          await store.writeDocuments([docWrite(n, CHUNKS)]);
          acknowledged.push(n);
        } catch (error) {
          failures.push(error);
          return;
        }
      }
    })();
    // Let a few writes commit, then kill the server in the middle of the next ones.
    while (acknowledged.length < 3) await new Promise((r) => setTimeout(r, 20));
    await server.kill();
    await writer;
    expect(failures).toHaveLength(1);
    const failure = failures[0] as StoreError;
    expect(StoreError.isInstance(failure)).toBe(true);
    expect(failure.code).toBe("UNAVAILABLE");
    expect(failure.message).toContain(`127.0.0.1:${server.port}/postgres`);

    await server.restart();
    // The same engine reconnects (its old connections are gone).
    const counts = await store.counts();
    expect(counts.chunks).toBe(counts.documents * CHUNKS);
    expect(counts.keywordRows).toBe(counts.chunks);
    expect(counts.documents).toBeGreaterThanOrEqual(acknowledged.length);
    expect(counts.documents).toBeLessThanOrEqual(acknowledged.length + 1);
    for (const d of await store.listDocuments({ limit: 1000 })) expect(d.chunkCount).toBe(CHUNKS);
    await store.writeDocuments([docWrite(999_999, 2)]);
    expect((await store.counts()).documents).toBe(counts.documents + 1);
    await engine.close();
  });

  it("runs a write again on a fresh connection when the pooled one was dropped", async () => {
    server ??= await startPgliteServer({ persistent: true });
    const engine = createPostgresEngine({ url: server.url, pool: { max: 1, connectionTimeoutMillis: 3000 } });
    const store = await engine.openDatabase("retry", { create: true });
    await store.writeDocuments([docWrite(1, 1)]);
    // The pool keeps its connection; the server restarts under it.
    await server.kill();
    await server.restart();
    await store.writeDocuments([docWrite(2, 1)]);
    expect((await store.counts()).documents).toBe(2);
    expect((await store.keywordSearch({ any: [["天気"]], phrases: [] }, { limit: 10 })).length).toBe(2);
    await engine.close();
  });
});

/**
 * A TCP proxy to the server that cuts the connection carrying the first client message holding
 * `trigger` (before forwarding it), once: a connection lost at an exact point of a transaction.
 */
async function cuttingProxy(
  target: number,
  trigger: string,
  options: { armed?: boolean } = {},
): Promise<{ url: string; cuts: () => number; arm: () => void; close: () => Promise<void> }> {
  let cuts = 0;
  let armed = options.armed ?? true;
  const sockets = new Set<Socket>();
  const proxy = createServer((client) => {
    const upstream = connect(target, "127.0.0.1");
    sockets.add(client);
    sockets.add(upstream);
    client.on("data", (data: Buffer) => {
      if (armed && data.includes(trigger)) {
        armed = false;
        cuts++;
        client.destroy();
        upstream.destroy();
        return;
      }
      upstream.write(data);
    });
    upstream.on("data", (data: Buffer) => client.write(data));
    for (const s of [client, upstream]) {
      s.on("error", () => {});
      s.on("close", () => {
        client.destroy();
        upstream.destroy();
      });
    }
  });
  await new Promise<void>((resolve) => proxy.listen(0, "127.0.0.1", resolve));
  const port = (proxy.address() as { port: number }).port;
  return {
    url: `postgres://postgres:postgres@127.0.0.1:${port}/postgres`,
    cuts: () => cuts,
    arm: () => {
      armed = true;
    },
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => proxy.close(() => resolve()));
    },
  };
}

describe("a connection lost inside a transaction", () => {
  let server: PgliteServer | undefined;
  afterAll(async () => {
    await server?.stop();
  });

  it("before COMMIT: the write runs again on a fresh connection, once", async () => {
    server ??= await startPgliteServer();
    const proxy = await cuttingProxy(server.port, 'INSERT INTO "docdb_cut_insert".documents');
    const engine = createPostgresEngine({ url: proxy.url, pool: { max: 2 } });
    const store = await engine.openDatabase("cut_insert", { create: true });
    const [result] = await store.writeDocuments([docWrite(1, 3)]);
    expect(proxy.cuts()).toBe(1);
    expect(result?.docId).toBe("D000001");
    expect(await store.counts()).toMatchObject({ documents: 1, chunks: 3, keywordRows: 3 });
    await engine.close();
    await proxy.close();
  });

  it("during COMMIT: reported as UNAVAILABLE (outcome unknown), never run twice", async () => {
    server ??= await startPgliteServer();
    const name = "cut_commit";
    const proxy = await cuttingProxy(server.port, "COMMIT", { armed: false });
    const engine = createPostgresEngine({ url: proxy.url, pool: { max: 2 } });
    const store = await engine.openDatabase(name, { create: true });
    proxy.arm();
    const error = (await caught(store.writeDocuments([docWrite(1, 3)]))) as StoreError;
    expect(StoreError.isInstance(error)).toBe(true);
    expect(error.code).toBe("UNAVAILABLE");
    expect(error.message).toContain("lost while committing");
    // The server never saw the COMMIT: nothing was written, and nothing half-written.
    expect(proxy.cuts()).toBe(1);
    expect(await store.counts()).toMatchObject({ documents: 0, chunks: 0, keywordRows: 0 });
    await engine.close();
    await proxy.close();
  });
});
