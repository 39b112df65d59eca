import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Store } from "@docdb/store";
import { cosineDistance, makeDocument, random, randomUnit } from "@docdb/store/contract-suite";
import Database from "better-sqlite3";
import * as sqliteVec from "sqlite-vec";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { autoSearchWidth } from "../src/hnsw/settings.js";
import { createSqliteEngine } from "../src/index.js";

// The approximate index runs from the first vector here (threshold 1), so small data takes the
// HNSW path; the default threshold is tested in the contract suite's own run.
const DIST = fileURLToPath(new URL("../dist/index.js", import.meta.url));
const requireHere = createRequire(import.meta.url);

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "docdb-ann-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const DIMS = 16;

function engine(threshold = 1) {
  return createSqliteEngine({ dataDir: dir, vectorIndex: { threshold } });
}

async function fill(store: Store, count: number, seed: number, dims = DIMS): Promise<Map<string, Float32Array>> {
  await store.setEmbeddingInfo({ provider: "p", model: "m", dimensions: dims });
  const next = random(seed);
  const docs = Array.from({ length: count }, (_, i) =>
    makeDocument([`passage ${i}`], { metadata: { group: i % 4 === 0 ? "a" : "b" } }, () => ({ vector: randomUnit(next, dims) })),
  );
  for (let i = 0; i < docs.length; i += 100) await store.writeDocuments(docs.slice(i, i + 100));
  return new Map(docs.flatMap((d) => d.chunks.map((c) => [c.id, c.vector as Float32Array])));
}

function truth(vectors: Map<string, Float32Array>, probe: Float32Array, k: number): string[] {
  return [...vectors]
    .map(([id, v]) => ({ id, d: cosineDistance(probe, v) }))
    .sort((a, b) => a.d - b.d)
    .slice(0, k)
    .map((t) => t.id);
}

/**
 * HNSW is approximate: on these random vectors it finds about 997 of 1,000 true neighbours
 * (measured over 100 builds), and the graph is built on several threads, so which rare one it
 * misses varies between runs. Each query must find at least `k - 2` of the true top `k`
 * (f16 rounding decides near ties); returns how many it found, for recall over many queries.
 */
function expectNearest(hits: { chunkId: string }[], vectors: Map<string, Float32Array>, probe: Float32Array, k: number): number {
  const ids = hits.map((h) => h.chunkId);
  expect(ids).toHaveLength(k);
  expect(new Set(ids).size).toBe(k);
  for (const id of ids) expect(vectors.has(id)).toBe(true);
  const found = truth(vectors, probe, k).filter((id) => ids.includes(id)).length;
  expect(found).toBeGreaterThanOrEqual(k - 2);
  return found;
}

function header(name: string): { highWater: number; count: number; fingerprint: string; savedAt: string } {
  return JSON.parse(readFileSync(join(dir, `${name}.db.hnsw.json`), "utf8"));
}

/** A raw connection with sqlite-vec, as another program would open the file. */
function raw(name: string): Database.Database {
  const db = new Database(join(dir, `${name}.db`));
  sqliteVec.load(db);
  return db;
}

function lastVectors(name: string, n: number): { id: string; vector: Float32Array }[] {
  const db = raw(name);
  try {
    return (
      db.prepare("SELECT c.id, v.embedding FROM chunks c JOIN chunks_vec v ON v.rowid = c.seq ORDER BY c.seq DESC LIMIT ?").all(n) as {
        id: string;
        embedding: Buffer;
      }[]
    ).map((r) => ({ id: r.id, vector: new Float32Array(new Uint8Array(r.embedding).buffer) }));
  } finally {
    db.close();
  }
}

function requireDist(): string {
  if (!existsSync(DIST)) throw new Error(`${DIST} is missing: run \`pnpm build\` first (the child processes use the built engine)`);
  return DIST;
}

/** A node child running an ES module script; lines of its stdout go to `onLine`. */
function child(script: string, onLine: (line: string) => void): ChildProcess {
  const proc = spawn(process.execPath, ["--input-type=module", "-e", script], { stdio: ["ignore", "pipe", "inherit"] });
  let buffered = "";
  proc.stdout?.on("data", (data: Buffer) => {
    buffered += data.toString();
    let nl = buffered.indexOf("\n");
    while (nl >= 0) {
      onLine(buffered.slice(0, nl));
      buffered = buffered.slice(nl + 1);
      nl = buffered.indexOf("\n");
    }
  });
  return proc;
}

function exited(proc: ChildProcess): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  return new Promise((resolve) => proc.once("exit", (code, signal) => resolve({ code, signal })));
}

describe("the search width docdb picks by size", () => {
  it("is ef_search up to 200,000 vectors, then grows with the size (ef 640 at 1M), capped at 4096", () => {
    expect(autoSearchWidth(100_000)).toBe(0);
    expect(autoSearchWidth(200_000)).toBe(0);
    expect(autoSearchWidth(250_000)).toBe(160);
    expect(autoSearchWidth(500_000)).toBe(320);
    expect(autoSearchWidth(1_000_000)).toBe(640);
    expect(autoSearchWidth(2_000_001)).toBe(1281);
    expect(autoSearchWidth(50_000_000)).toBe(4096);
  });
});

describe("the approximate vector index (HNSW beside the SQLite file)", () => {
  it("agrees with the exact answer on a small set, and exact: true scans exactly", async () => {
    const e = engine();
    const store = await e.openDatabase("small", { create: true });
    const vectors = await fill(store, 400, 1);
    const next = random(99);
    let found = 0;
    for (let q = 0; q < 20; q++) {
      const probe = randomUnit(next, DIMS);
      const expected = truth(vectors, probe, 10);
      const exact = await store.vectorSearch(probe, { limit: 10, exact: true });
      expect(exact.map((h) => h.chunkId)).toEqual(expected);
      for (const h of exact) expect(h.distance).toBeCloseTo(cosineDistance(probe, vectors.get(h.chunkId) as Float32Array), 5);
      const approximate = await store.vectorSearch(probe, { limit: 10 });
      found += expectNearest(approximate, vectors, probe, 10);
      // Distances come from the index (f16 copies of the vectors): close, not identical, and sorted.
      for (const h of approximate) expect(h.distance).toBeCloseTo(cosineDistance(probe, vectors.get(h.chunkId) as Float32Array), 2);
      for (let i = 1; i < approximate.length; i++)
        expect(approximate[i]?.distance).toBeGreaterThanOrEqual(approximate[i - 1]?.distance as number);
    }
    expect(found / 200).toBeGreaterThanOrEqual(0.97);
    // The index is a file beside the database, in step with it.
    expect(existsSync(join(dir, "small.db.hnsw"))).toBe(true);
    const status = await store.vectorIndex?.status();
    expect(status).toMatchObject({ state: "ready", vectors: 400, indexed: 400, behind: 0 });
    expect(status?.library).toMatch(/^usearch 2\./);
    await e.close();
  });

  it("a broad filter over-fetches from the index, and with exact: true from the in-memory scan, exactly", async () => {
    const e = engine();
    const store = await e.openDatabase("broad", { create: true });
    // 7,200 vectors, 5,400 in group "b": more than the engine scans one by one for a filter.
    const vectors = await fill(store, 7200, 12);
    const inB = new Map([...vectors].filter((_, i) => i % 4 !== 0));
    const filter = { op: "eq", field: { metadata: ["group"] }, value: "b" } as const;
    const next = random(13);
    let found = 0;
    for (let q = 0; q < 10; q++) {
      const probe = randomUnit(next, DIMS);
      const exact = await store.vectorSearch(probe, { limit: 10, filter, exact: true });
      expect(exact.map((h) => h.chunkId)).toEqual(truth(inB, probe, 10));
      for (const h of exact) expect(h.distance).toBeCloseTo(cosineDistance(probe, vectors.get(h.chunkId) as Float32Array), 5);
      found += expectNearest(await store.vectorSearch(probe, { limit: 10, filter }), inB, probe, 10);
    }
    expect(found / 100).toBeGreaterThanOrEqual(0.95);
    // A deleted chunk drops out of both paths: the counts behind the plan follow the write.
    const probe = randomUnit(random(14), DIMS);
    const [gone] = truth(inB, probe, 1);
    const [hit] = await store.chunkHits([gone as string]);
    expect((await store.deleteDocuments([hit?.docId as string])).chunks).toBe(1);
    inB.delete(gone as string);
    const exact = await store.vectorSearch(probe, { limit: 10, filter, exact: true });
    expect(exact.map((h) => h.chunkId)).toEqual(truth(inB, probe, 10));
    expect((await store.vectorSearch(probe, { limit: 10, filter })).map((h) => h.chunkId)).not.toContain(gone);
    await e.close();
  });

  it("below the threshold a connection's first query scans with sqlite-vec without loading usearch, later ones scan in memory; above it the index answers", async () => {
    const store = await engine(1000).openDatabase("lazy", { create: true });
    await fill(store, 50, 2);
    await store.close();
    // A fresh process: the native library shows in its memory maps once loaded.
    const script = `
      import { readFileSync } from "node:fs";
      import { createSqliteEngine } from ${JSON.stringify(requireDist())};
      const loaded = () => readFileSync("/proc/self/maps", "utf8").includes("usearch");
      const probe = new Float32Array(${DIMS}).fill(0.25);
      const below = await createSqliteEngine({ dataDir: ${JSON.stringify(dir)}, vectorIndex: { threshold: 1000 } }).openDatabase("lazy");
      const a = await below.vectorSearch(probe, { limit: 5 });
      const first = loaded();
      // More than the first query's answer kept (twice its limit): scanned again, in memory.
      const b = (await below.vectorSearch(probe, { limit: 11, exact: true })).slice(0, 5);
      const same = JSON.stringify(a) === JSON.stringify(b);
      console.log(JSON.stringify({ below: first, later: loaded(), same, n: a.length + b.length }));
      await below.close();
      const above = await createSqliteEngine({ dataDir: ${JSON.stringify(dir)}, vectorIndex: { threshold: 10 } }).openDatabase("lazy");
      const c = await above.vectorSearch(probe, { limit: 5 });
      console.log(JSON.stringify({ above: loaded(), n: c.length }));
      await above.close();`;
    const lines: string[] = [];
    const proc = child(script, (l) => lines.push(l));
    expect((await exited(proc)).code).toBe(0);
    expect(lines.map((l) => JSON.parse(l))).toEqual([
      { below: false, later: true, same: true, n: 10 },
      { above: true, n: 5 },
    ]);
    expect(existsSync(join(dir, "lazy.db.hnsw"))).toBe(true);
  });

  it("never returns a chunk another process deleted, even one the index was not told about", async () => {
    const e = engine();
    const store = await e.openDatabase("del", { create: true });
    await fill(store, 300, 3);
    const [victim, ghost] = lastVectors("del", 2);
    if (!victim || !ghost) throw new Error("no vectors");
    // The index is built and holds both.
    expect((await store.vectorSearch(victim.vector, { limit: 1 }))[0]?.chunkId).toBe(victim.id);
    expect((await store.vectorSearch(ghost.vector, { limit: 1 }))[0]?.chunkId).toBe(ghost.id);
    // Another process deletes both chunks; for the second it also erases the log entry, as if
    // the index could never learn of it.
    const script = `
      import { createRequire } from "node:module";
      const require = createRequire(${JSON.stringify(requireHere.resolve("better-sqlite3"))});
      const Database = require("better-sqlite3");
      const db = new Database(${JSON.stringify(join(dir, "del.db"))});
      require(${JSON.stringify(requireHere.resolve("sqlite-vec"))}).load(db);
      for (const id of ${JSON.stringify([victim.id, ghost.id])}) {
        const seq = db.prepare("SELECT seq FROM chunks WHERE id = ?").pluck().get(id);
        db.transaction(() => {
          db.prepare("DELETE FROM chunks_vec WHERE rowid = ?").run(BigInt(seq));
          db.prepare("DELETE FROM chunks WHERE seq = ?").run(seq);
        }).immediate();
      }
      db.prepare("DELETE FROM vector_log WHERE id = (SELECT max(id) FROM vector_log)").run();
      db.close();
      console.log("deleted");`;
    const lines: string[] = [];
    expect((await exited(child(script, (l) => lines.push(l)))).code).toBe(0);
    expect(lines).toEqual(["deleted"]);
    for (const gone of [victim, ghost]) {
      const hits = await store.vectorSearch(gone.vector, { limit: 10 });
      expect(hits).toHaveLength(10);
      expect(hits.map((h) => h.chunkId)).not.toContain(victim.id);
      expect(hits.map((h) => h.chunkId)).not.toContain(ghost.id);
    }
    await e.close();
  });

  it("survives kill -9 of a process importing into it, and catches up on the next query", async () => {
    const e = engine();
    const store = await e.openDatabase("crash", { create: true });
    const vectors = await fill(store, 200, 4);
    // Built and written beside the database.
    await store.vectorSearch(vectors.values().next().value as Float32Array, { limit: 5 });
    const before = header("crash");
    expect(before.count).toBe(200);
    await e.close();

    // Another process imports documents one transaction at a time, querying (so its own index
    // catches up and is rebuilt and written now and then) until it is killed mid-way.
    const script = `
      import { createSqliteEngine } from ${JSON.stringify(requireDist())};
      const store = await createSqliteEngine({ dataDir: ${JSON.stringify(dir)}, vectorIndex: { threshold: 1 } }).openDatabase("crash");
      let state = 12345;
      const next = () => ((state = (state * 1103515245 + 12345) % 2147483648) / 2147483648) * 2 - 1;
      for (let i = 0; ; i++) {
        const v = Float32Array.from({ length: ${DIMS} }, next);
        const id = "k" + String(i).padStart(8, "0");
        await store.writeDocuments([{ document: { id: "d" + id, content: "x", contentHash: "h", metadata: {} },
          chunks: [{ id: "c" + id, idx: 0, text: "x", start: 0, end: 1, vector: v }] }]);
        if (i % 25 === 0) await store.vectorSearch(v, { limit: 3 });
        if (i % 60 === 59) await store.vectorIndex.rebuild({});
        console.log(String(i));
      }`;
    let committed = -1;
    let resolveEnough: () => void = () => {};
    const enough = new Promise<void>((r) => {
      resolveEnough = r;
    });
    const proc = child(script, (line) => {
      committed = Number(line);
      if (committed >= 150) resolveEnough();
    });
    const exit = exited(proc);
    await Promise.race([enough, exit]);
    proc.kill("SIGKILL");
    expect((await exit).signal).toBe("SIGKILL");
    expect(committed).toBeGreaterThanOrEqual(150);

    const again = engine();
    const reopened = await again.openDatabase("crash");
    const counts = await reopened.counts();
    // Every document the child reported (and maybe the one it was writing) is stored.
    expect(counts.vectors).toBeGreaterThanOrEqual(200 + committed + 1);
    // The file on disk is valid but behind what SQLite holds, or has to be rebuilt.
    const status = await reopened.vectorIndex?.status();
    expect(status?.state === "behind" || status?.state === "missing" || status?.indexed === counts.vectors).toBe(true);
    const fileBefore = status?.state === "behind" ? header("crash").savedAt : undefined;
    // The newest chunks are found through the index: it caught up.
    for (const { id, vector } of lastVectors("crash", 20)) {
      expect((await reopened.vectorSearch(vector, { limit: 1 }))[0]?.chunkId).toBe(id);
    }
    // A file that was only behind is caught up from the log in memory, not built again.
    if (fileBefore !== undefined) expect(header("crash").savedAt).toBe(fileBefore);
    const all = lastVectors("crash", counts.vectors);
    expect(all).toHaveLength(counts.vectors);
    const everything = new Map(all.map((r) => [r.id, r.vector]));
    const next = random(5);
    for (let q = 0; q < 10; q++) {
      const probe = randomUnit(next, DIMS);
      expectNearest(await reopened.vectorSearch(probe, { limit: 10 }), everything, probe, 10);
    }
    await again.close();
  });

  it("is rebuilt for a new model after a re-embed (setEmbeddingInfo replace)", async () => {
    const e = engine();
    const store = await e.openDatabase("model", { create: true });
    const old = await fill(store, 150, 6, 8);
    await store.vectorSearch(old.values().next().value as Float32Array, { limit: 3 });
    expect(header("model").fingerprint).toContain("|m|8|");

    await store.setEmbeddingInfo({ provider: "p", model: "m2", dimensions: 12 }, { replace: true });
    // The old model's index is gone with its vectors.
    expect(existsSync(join(dir, "model.db.hnsw"))).toBe(false);
    expect(await store.vectorSearch(randomUnit(random(1), 12), { limit: 3 })).toEqual([]);
    const next = random(7);
    const fresh = new Map<string, Float32Array>();
    for (const id of old.keys()) fresh.set(id, randomUnit(next, 12));
    await store.writeVectors([...fresh].map(([chunkId, vector]) => ({ chunkId, vector })));
    for (let q = 0; q < 10; q++) {
      const probe = randomUnit(next, 12);
      expectNearest(await store.vectorSearch(probe, { limit: 10 }), fresh, probe, 10);
    }
    expect(header("model").fingerprint).toContain("|m2|12|");
    expect(header("model").count).toBe(150);
    await e.close();
  });

  it("keeps index settings per database, checks them, and rebuilds with a progress report", async () => {
    const e = engine(1_000_000);
    const store = await e.openDatabase("set", { create: true });
    await fill(store, 120, 10);
    expect(await store.vectorIndex?.status()).toMatchObject({ state: "exact", indexed: 0, settings: { threshold: 1_000_000 } });
    const phases = new Set<string>();
    const status = await store.vectorIndex?.rebuild({
      settings: { threshold: 100, connectivity: 8, expansionSearch: 40, quantization: "f32" },
      onProgress: (p) => phases.add(p.phase),
    });
    expect([...phases].sort()).toEqual(["build", "read", "save"]);
    expect(status).toMatchObject({
      state: "ready",
      indexed: 120,
      settings: { threshold: 100, connectivity: 8, expansionSearch: 40, quantization: "f32" },
    });
    await e.close();
    // Kept with the database: another engine (default threshold 1) reads them.
    const other = engine();
    const reopened = await other.openDatabase("set");
    expect((await reopened.vectorIndex?.status())?.settings).toMatchObject({ threshold: 100, connectivity: 8, quantization: "f32" });
    await expect(reopened.vectorIndex?.rebuild({ settings: { connectivity: 1 } })).rejects.toThrow(/connectivity/);
    await expect(reopened.vectorIndex?.rebuild({ settings: { quantization: "i8" as "f16" } })).rejects.toThrow(/quantization/);
    await other.close();
  });
});
