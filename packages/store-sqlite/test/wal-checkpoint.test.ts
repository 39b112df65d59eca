// The background WAL checkpointer (checkpointer.ts, checkpoint-worker.mjs): WAL frames copied into
// the database file by a worker thread, a kill -9 mid-ingest, close with a checkpoint running, and
// SQLite's own autocheckpoint again when the worker cannot start.
import { existsSync, statSync } from "node:fs";
import { join } from "node:path";
import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { createSqliteEngine, SAFETY_NET_WAL_BYTES, type SqliteStore, type WalCheckpointOptions } from "../src/index.js";
import { documents, write } from "./helpers/keyword-docs.js";
import { builtEngine, exitOf, runScript } from "./helpers/processes.js";
import { storeFolder } from "./helpers/store-folder.js";

const folder = storeFolder("docdb-walckpt-");
/** A low threshold, so that a few hundred small documents pass it. */
const AFTER_PAGES = 40;
const DIMS = 8;

async function open(walCheckpoint: WalCheckpointOptions = { afterPages: AFTER_PAGES }): Promise<SqliteStore> {
  const engine = folder.track(createSqliteEngine({ dataDir: folder.dir, walCheckpoint }));
  const store = (await engine.openDatabase("w", { create: true })) as SqliteStore;
  if (!(await store.getEmbeddingInfo())) await store.setEmbeddingInfo({ provider: "test", model: "m", dimensions: DIMS });
  return store;
}

function checkpoints(store: SqliteStore) {
  const view = store.walCheckpoints;
  if (!view) throw new Error("the store has no WAL checkpointer");
  return view;
}

/** Writes batches of documents (with vectors, so vec0's tables are in the WAL too) until `done()`. */
async function writeUntil(store: SqliteStore, done: () => boolean, seed: number): Promise<number> {
  for (let batch = 0; batch < 40; batch++) {
    const docs = documents(60, seed * 1000 + batch);
    await write(store, docs);
    const chunkIds = docs.flatMap((d) => d.chunks.map((c) => c.id));
    await store.writeVectors(
      chunkIds.map((chunkId, i) => ({ chunkId, vector: Float32Array.from({ length: DIMS }, (_, k) => (i + k) % 7) })),
    );
    if (done()) return batch + 1;
  }
  throw new Error("the condition was never met");
}

const path = () => join(folder.dir, "w.db");

describe("the background WAL checkpointer", () => {
  it("copies the WAL into the database file in a worker, the writing connection's autocheckpoint left at the safety net", {
    timeout: 120_000,
  }, async () => {
    const store = await open();
    const sizeBefore = statSync(path()).size;
    const view = checkpoints(store);
    await writeUntil(store, () => view.status().state === "running" || view.status().checkpoints > 0, 1);
    await view.settled();
    const status = view.status();
    expect(status.checkpoints).toBeGreaterThan(0);
    expect(status.state).toBe("idle");
    expect(status.last?.checkpointed).toBeGreaterThan(AFTER_PAGES);
    // Only checkpoints write the database file in WAL mode: it now holds the pages the worker copied.
    const probe = new Database(path(), { readonly: true });
    const pageSize = probe.pragma("page_size", { simple: true }) as number;
    probe.close();
    expect(statSync(path()).size).toBeGreaterThan(sizeBefore + AFTER_PAGES * pageSize);
    expect(status.autocheckpoint).toBe(SAFETY_NET_WAL_BYTES / pageSize);
    expect(await store.counts()).toMatchObject({ documents: expect.any(Number) });
  });

  it("ends cleanly when closed with a checkpoint running: no worker left, no WAL left, every document kept", {
    timeout: 120_000,
  }, async () => {
    const store = await open();
    const view = checkpoints(store);
    // The first checkpoint starts the worker; the next write's starts while the store closes.
    await writeUntil(store, () => view.status().checkpoints > 0 || view.status().state === "running", 2);
    await view.settled();
    const before = view.status().checkpoints;
    const docs = documents(400, 99);
    await store.writeDocuments(docs);
    // Asked for at the commit (and most likely still running: the store closes right away).
    expect(view.status().state === "running" || view.status().checkpoints > before).toBe(true);
    await store.close();
    expect(view.status().state).toBe("closed");
    expect(existsSync(`${path()}-wal`)).toBe(false);
    expect(existsSync(`${path()}-shm`)).toBe(false);
    const reopened = await open();
    for (const doc of docs.slice(-3)) expect(await reopened.getDocument(doc.document.id)).toBeDefined();
  });

  it("falls back to SQLite's own autocheckpoint when the worker cannot start", { timeout: 120_000 }, async () => {
    const script = join(folder.dir, "no-such-worker.mjs");
    const store = await open({ afterPages: AFTER_PAGES, script });
    const view = checkpoints(store);
    // (Opening wrote the schema, past the threshold already: the worker was asked for then.)
    await writeUntil(store, () => view.status().state !== "idle", 3);
    await view.settled();
    const status = view.status();
    expect(status).toMatchObject({ state: "off", checkpoints: 0, autocheckpoint: 1000 });
    expect(status.offReason).toContain(script);
    // Writes go on (SQLite checkpoints on the writing connection again).
    await write(store, documents(50, 4));
    expect((await store.counts()).documents).toBeGreaterThan(50);
  });
});

describe("kill -9 during an ingest with background checkpoints", () => {
  it("leaves a database that opens with every committed document", { timeout: 180_000 }, async () => {
    // The child writes one batch after another, printing each batch once written and the checkpoints so far.
    const script = `
      import { createSqliteEngine } from ${JSON.stringify(builtEngine())};
      const store = await createSqliteEngine({ dataDir: ${JSON.stringify(folder.dir)}, walCheckpoint: { afterPages: ${AFTER_PAGES} } }).openDatabase("w", { create: true });
      const filler = "apple river stone light quantum protein cell membrane signal garden ".repeat(20);
      for (let b = 0; ; b++) {
        const writes = Array.from({ length: 20 }, (_, i) => {
          const id = "b" + b + "-" + i;
          const text = id + " " + filler;
          return { document: { id, content: text, contentHash: id, metadata: {} }, chunks: [{ id: id + "-0", idx: 0, text, start: 0, end: text.length }] };
        });
        await store.writeDocuments(writes);
        console.log(b + " " + store.walCheckpoints.status().checkpoints);
      }`;
    let written = -1;
    let checkpointsSeen = 0;
    let enough: () => void = () => {};
    const reached = new Promise<void>((resolve) => {
      enough = resolve;
    });
    let afterCheckpoint = 0;
    const proc = runScript(script, (line) => {
      const [batch, done] = line.split(" ").map(Number) as [number, number];
      written = batch;
      checkpointsSeen = done;
      // Killed a few batches after the worker's second checkpoint (one may well be running).
      if (done >= 2 && ++afterCheckpoint >= 3) enough();
    });
    const exit = exitOf(proc);
    await Promise.race([reached, exit]);
    proc.kill("SIGKILL");
    expect((await exit).signal).toBe("SIGKILL");
    expect(checkpointsSeen, "the child's worker checkpointed").toBeGreaterThanOrEqual(2);
    const store = await open();
    for (let b = 0; b <= written; b++) {
      for (const i of [0, 19]) expect(await store.getDocument(`b${b}-${i}`), `document b${b}-${i}`).toBeDefined();
    }
    const db = new Database(path(), { readonly: true });
    expect(db.pragma("integrity_check", { simple: true })).toBe("ok");
    db.close();
  });
});
