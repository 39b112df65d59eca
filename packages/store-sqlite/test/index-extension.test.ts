// Inserts, re-embeds and deletes after a build extend the memory-mapped HNSW file without a
// rebuild (a delta beside it, merged into a new file on close), and a process killed with
// SIGKILL while extending it or while writing the merged file leaves a database that serves
// correct answers on the next open. Real SQLite files, real usearch, real child processes.
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, watch } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Store } from "@docdb/store";
import { cosineDistance, makeDocument, random, randomUnit } from "@docdb/store/contract-suite";
import Database from "better-sqlite3";
import * as sqliteVec from "sqlite-vec";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createSqliteEngine } from "../src/index.js";

const DIST = fileURLToPath(new URL("../dist/index.js", import.meta.url));
const DIMS = 16;

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "docdb-extend-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const engine = () => createSqliteEngine({ dataDir: dir, vectorIndex: { threshold: 1 } });
const header = (name: string) => JSON.parse(readFileSync(join(dir, `${name}.db.hnsw.json`), "utf8"));

async function fill(store: Store, count: number, seed: number): Promise<void> {
  await store.setEmbeddingInfo({ provider: "p", model: "m", dimensions: DIMS });
  const next = random(seed);
  const docs = Array.from({ length: count }, (_, i) => makeDocument([`passage ${i}`], {}, () => ({ vector: randomUnit(next, DIMS) })));
  for (let i = 0; i < docs.length; i += 200) await store.writeDocuments(docs.slice(i, i + 200));
}

/** Every stored vector by chunk id, read with a raw connection as another program would. */
function stored(name: string): Map<string, Float32Array> {
  return new Map([...rows(name)].map(([id, r]) => [id, r.vector]));
}

function rows(name: string): Map<string, { doc: string; vector: Float32Array }> {
  const db = new Database(join(dir, `${name}.db`), { readonly: true });
  sqliteVec.load(db);
  try {
    const all = db
      .prepare("SELECT c.id AS id, c.doc_id AS doc, v.embedding AS e FROM chunks c JOIN chunks_vec v ON v.rowid = c.seq")
      .all() as { id: string; doc: string; e: Buffer }[];
    return new Map(all.map((r) => [r.id, { doc: r.doc, vector: new Float32Array(new Uint8Array(r.e).buffer) }]));
  } finally {
    db.close();
  }
}

/** Every hit exists with its stored vector and distance, and most of the exact top 10 are found. */
async function expectCorrect(store: Store, vectors: Map<string, Float32Array>, seed: number): Promise<void> {
  const next = random(seed);
  let found = 0;
  for (let q = 0; q < 20; q++) {
    const probe = randomUnit(next, DIMS);
    const hits = await store.vectorSearch(probe, { limit: 10 });
    expect(hits).toHaveLength(10);
    for (const hit of hits) {
      const vector = vectors.get(hit.chunkId);
      expect(vector, `hit ${hit.chunkId} is a stored chunk with a vector`).toBeDefined();
      // The index keeps f16 copies: its distances are within rounding of the stored vectors'.
      expect(Math.abs(hit.distance - cosineDistance(probe, vector as Float32Array))).toBeLessThan(2e-3);
    }
    const truth = [...vectors]
      .map(([id, v]) => ({ id, d: cosineDistance(probe, v) }))
      .sort((a, b) => a.d - b.d)
      .slice(0, 10)
      .map((t) => t.id);
    found += truth.filter((id) => hits.some((h) => h.chunkId === id)).length;
  }
  expect(found / 200, "recall@10 against the exact answer").toBeGreaterThanOrEqual(0.95);
}

describe("extending the memory-mapped vector index", () => {
  it("inserts, re-embeds and deletes after a build are searched beside the file, then merged into it on close", async () => {
    let e = engine();
    let store = await e.openDatabase("grow", { create: true });
    await fill(store, 1500, 1);
    await store.vectorSearch(randomUnit(random(2), DIMS), { limit: 3 });
    await e.close();
    const built = header("grow");
    expect(built.count).toBe(1500);

    e = engine();
    store = await e.openDatabase("grow");
    await store.vectorSearch(randomUnit(random(3), DIMS), { limit: 3 });
    const before = stored("grow");
    const docs = rows("grow");
    const ids = [...before.keys()];
    // Re-embedded chunks: their old vectors are still in the file and must not be found there.
    const next = random(4);
    const moved = ids
      .slice(0, 200)
      .map((chunkId) => ({ chunkId, old: before.get(chunkId) as Float32Array, vector: randomUnit(next, DIMS) }));
    await store.writeVectors(moved.map(({ chunkId, vector }) => ({ chunkId, vector })));
    await store.deleteDocuments(ids.slice(200, 300).map((id) => docs.get(id)?.doc as string));
    await fill(store, 1000, 5);
    const now = stored("grow");
    for (const { chunkId, old, vector } of moved.slice(0, 30)) {
      expect((await store.vectorSearch(vector, { limit: 1 }))[0]?.chunkId).toBe(chunkId);
      const atOld = (await store.vectorSearch(old, { limit: 3 })).find((h) => h.chunkId === chunkId);
      if (atOld) expect(atOld.distance).toBeCloseTo(cosineDistance(old, vector), 2);
    }
    await expectCorrect(store, now, 6);
    // Served beside the file: it was not written again while the process ran.
    expect(header("grow").savedAt).toBe(built.savedAt);
    await e.close();
    expect(header("grow")).toMatchObject({ count: now.size });
    e = engine();
    store = await e.openDatabase("grow");
    expect(await store.vectorIndex?.status()).toMatchObject({ state: "ready", indexed: now.size, behind: 0 });
    await expectCorrect(store, now, 7);
    await e.close();
  }, 120_000);

  it("a delta past 10,000 changes is merged into a new file while queries go on", async () => {
    let e = engine();
    let store = await e.openDatabase("busy", { create: true });
    await fill(store, 1000, 21);
    await store.vectorSearch(randomUnit(random(22), DIMS), { limit: 3 });
    await e.close();
    const built = header("busy");
    e = engine();
    store = await e.openDatabase("busy");
    await store.vectorSearch(randomUnit(random(23), DIMS), { limit: 3 });
    await fill(store, 10_050, 24);
    // Queries answer throughout; the merged file replaces the first one without a close.
    const deadline = Date.now() + 240_000;
    while (header("busy").savedAt === built.savedAt && Date.now() < deadline) {
      expect(await store.vectorSearch(randomUnit(random(25), DIMS), { limit: 10 })).toHaveLength(10);
      await new Promise((resolve) => setImmediate(resolve));
    }
    expect(header("busy")).toMatchObject({ count: 11_050 });
    await expectCorrect(store, stored("busy"), 26);
    await e.close();
  }, 300_000);

  it("kill -9 while extending it or while writing the merged file: the next open serves correct answers", async () => {
    if (!existsSync(DIST)) throw new Error(`${DIST} is missing: run \`pnpm build\` first (the child processes use the built engine)`);
    const e = engine();
    const store = await e.openDatabase("crash", { create: true });
    await fill(store, 2000, 11);
    await store.vectorSearch(randomUnit(random(12), DIMS), { limit: 3 });
    await e.close();

    // The child maps the file, then in rounds: 1,200 inserts and 100 re-embeds, one query (the
    // delta catches up: "extending"), close (merged into a new file and written), open again.
    const script = (seed: number) => `
      import { createSqliteEngine } from ${JSON.stringify(DIST)};
      const open = async () => { const e = createSqliteEngine({ dataDir: ${JSON.stringify(dir)}, vectorIndex: { threshold: 1 } }); return [e, await e.openDatabase("crash")]; };
      let state = ${seed};
      const next = () => ((state = (state * 1103515245 + 12345) % 2147483648) / 2147483648) * 2 - 1;
      const vector = () => Float32Array.from({ length: ${DIMS} }, next);
      let [e, store] = await open();
      await store.vectorSearch(vector(), { limit: 3 });
      for (let round = 0; ; round++) {
        for (let b = 0; b < 12; b++) {
          const docs = Array.from({ length: 100 }, (_, i) => { const id = ${seed} + "-" + round + "-" + b + "-" + i;
            return { document: { id: "d" + id, content: "x", contentHash: "h", metadata: {} }, chunks: [{ id: "c" + id, idx: 0, text: "x", start: 0, end: 1, vector: vector() }] }; });
          await store.writeDocuments(docs);
        }
        const some = (await store.vectorSearch(vector(), { limit: 100 })).map((h) => ({ chunkId: h.chunkId, vector: vector() }));
        await store.writeVectors(some);
        console.log("extending " + round);
        await store.vectorSearch(vector(), { limit: 3 });
        console.log("closing " + round);
        await e.close();
        [e, store] = await open();
      }`;
    const leftovers = () => readdirSync(dir).filter((n) => n.startsWith("crash.db.hnsw.tmp-"));

    // 1. Killed right after it starts extending the mapped index (round 1: after one merge).
    const first = run(script(101), (line, proc) => line === "extending 1" && proc.kill("SIGKILL"));
    expect((await first).signal).toBe("SIGKILL");
    let reopened = engine();
    await expectCorrect(await reopened.openDatabase("crash"), stored("crash"), 13);
    await reopened.close();

    // 2. Killed while writing the merged file: as soon as its temporary file appears. The
    // watcher may see it too late (the file written and renamed already): then again.
    let killedInSave = false;
    for (let attempt = 0; attempt < 5 && !killedInSave; attempt++) {
      const watcher = watch(dir);
      let proc: ChildProcess | undefined;
      watcher.on("change", (_event, name) => {
        if (String(name).startsWith("crash.db.hnsw.tmp-")) proc?.kill("SIGKILL");
      });
      const done = run(
        script(200 + attempt),
        () => false,
        (p) => {
          proc = p;
        },
      );
      expect((await done).signal).toBe("SIGKILL");
      watcher.close();
      killedInSave = leftovers().length > 0;
      reopened = engine();
      const db = await reopened.openDatabase("crash");
      const vectors = stored("crash");
      await expectCorrect(db, vectors, 14 + attempt);
      // The next open serves from a usable file (the old one, caught up) or one it built.
      expect(await db.vectorIndex?.status()).toMatchObject({ state: expect.stringMatching(/ready|behind/) });
      await reopened.close();
    }
    expect(killedInSave, "a child was killed while its merged file was being written").toBe(true);
    // A later save clears what the killed process left behind.
    expect(leftovers()).toEqual([]);
  }, 600_000);
});

/** Runs an ES module script in a node child; each stdout line goes to `onLine` (with the process). */
function run(
  script: string,
  onLine: (line: string, proc: ChildProcess) => unknown,
  started: (proc: ChildProcess) => void = () => {},
): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  const proc = spawn(process.execPath, ["--input-type=module", "-e", script], { stdio: ["ignore", "pipe", "inherit"] });
  started(proc);
  let buffered = "";
  proc.stdout?.on("data", (data: Buffer) => {
    buffered += data.toString();
    for (let nl = buffered.indexOf("\n"); nl >= 0; nl = buffered.indexOf("\n")) {
      onLine(buffered.slice(0, nl), proc);
      buffered = buffered.slice(nl + 1);
    }
  });
  return new Promise((resolve) => proc.once("exit", (code, signal) => resolve({ code, signal })));
}
