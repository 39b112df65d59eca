// Below the index threshold, vector queries after a connection's first scan an in-memory copy of
// the vectors: it must answer exactly as sqlite-vec's own scan, through writes from anywhere.
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Filter, Store } from "@docdb/store";
import { makeDocument, random, randomUnit } from "@docdb/store/contract-suite";
import Database from "better-sqlite3";
import * as sqliteVec from "sqlite-vec";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createSqliteEngine } from "../src/index.js";

const DIST = fileURLToPath(new URL("../dist/index.js", import.meta.url));
const DIMS = 24;
let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "docdb-scan-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const open = () => createSqliteEngine({ dataDir: dir, vectorIndex: { threshold: 100_000 } }).openDatabase("mem", { create: true });

function docs(count: number, seed: number) {
  const next = random(seed);
  return Array.from({ length: count }, (_, i) =>
    makeDocument([`passage ${i}`, `more ${i}`], {}, () => ({ vector: randomUnit(next, DIMS) })),
  );
}

/** sqlite-vec's own KNN on another connection: chunk ids and distances, nearest first. */
function sqliteVecAnswer(probe: Float32Array, k: number): { chunkId: string; distance: number }[] {
  const db = new Database(join(dir, "mem.db"), { readonly: true });
  sqliteVec.load(db);
  try {
    return db
      .prepare(
        `SELECT c.id AS chunkId, v.distance FROM (SELECT rowid, distance FROM chunks_vec WHERE embedding MATCH ? AND k = ?) v
         JOIN chunks c ON c.seq = v.rowid ORDER BY v.distance`,
      )
      .all(Buffer.from(probe.buffer, probe.byteOffset, probe.byteLength), k) as { chunkId: string; distance: number }[];
  } finally {
    db.close();
  }
}

async function expectSameAsSqliteVec(store: Store, seed: number): Promise<void> {
  const next = random(seed);
  for (let i = 0; i < 12; i++) {
    const probe = randomUnit(next, DIMS);
    const hits = await store.vectorSearch(probe, { limit: 7 });
    expect(hits.map((h) => ({ chunkId: h.chunkId, distance: h.distance }))).toEqual(sqliteVecAnswer(probe, 7));
  }
}

/** Another process deletes the first `n` documents (by creation) and adds one with fresh vectors. */
async function writeFromAnotherProcess(n: number): Promise<void> {
  if (!existsSync(DIST)) throw new Error(`${DIST} is missing: run \`pnpm build\` first (the child process uses the built engine)`);
  const script = `
    import { createSqliteEngine } from ${JSON.stringify(DIST)};
    const store = await createSqliteEngine({ dataDir: ${JSON.stringify(dir)}, vectorIndex: { threshold: 100000 } }).openDatabase("mem");
    const docs = await store.listDocuments({ limit: ${n} });
    await store.deleteDocuments(docs.map((d) => d.id));
    const vector = new Float32Array(${DIMS}).map((_, i) => Math.cos(i));
    const id = "doc_from_child";
    await store.writeDocuments([{ document: { id, key: id, source: "child", title: "child", content: "from the child",
      contentHash: "h", metadata: {}, collection: null },
      chunks: [{ id: "chk_from_child", idx: 0, text: "from the child", start: 0, end: 14, vector }] }]);
    await store.close();`;
  const proc = spawn(process.execPath, ["--input-type=module", "-e", script], { stdio: ["ignore", "inherit", "inherit"] });
  const code = await new Promise<number | null>((resolve) => proc.on("exit", resolve));
  expect(code).toBe(0);
}

describe("the in-memory exact scan below the index threshold", () => {
  it("answers as sqlite-vec does (ids, order, distances) through inserts, deletes and re-embeds from another connection and another process", async () => {
    const store = await open();
    await store.setEmbeddingInfo({ provider: "p", model: "m", dimensions: DIMS });
    await store.writeDocuments(docs(150, 1));
    await expectSameAsSqliteVec(store, 2);

    // Another connection: inserts, deletes, re-embeds some chunks.
    const other = await open();
    await other.writeDocuments(docs(40, 3));
    const listed = await other.listDocuments({ limit: 20, offset: 30 });
    await other.deleteDocuments(listed.slice(0, 10).map((d) => d.id));
    const next = random(4);
    const reembed = (await Promise.all(listed.slice(10).map((d) => other.getChunks(d.id)))).flat();
    expect(await other.writeVectors(reembed.map((c) => ({ chunkId: c.id, vector: randomUnit(next, DIMS) })))).toBe(reembed.length);
    await other.close();
    await expectSameAsSqliteVec(store, 5);

    await writeFromAnotherProcess(5);
    await expectSameAsSqliteVec(store, 6);
    const near = new Float32Array(DIMS).map((_, i) => Math.cos(i));
    expect((await store.vectorSearch(near, { limit: 1 }))[0]?.chunkId).toBe("chk_from_child");
    await store.close();
  });

  it("answers a filter most chunks pass as sqlite-vec's filtered scan does, through deletes", async () => {
    const store = await open();
    await store.setEmbeddingInfo({ provider: "p", model: "m", dimensions: DIMS });
    const next = random(7);
    // 6,000 chunks, 90% "common": more than the 5,000 that SQL scans exactly, so the in-memory
    // scan's candidates are checked against the filter.
    const written = Array.from({ length: 3000 }, (_, i) =>
      makeDocument([`passage ${i}`, `more ${i}`], { metadata: { kind: i % 10 === 0 ? "rare" : "common" } }, () => ({
        vector: randomUnit(next, DIMS),
      })),
    );
    for (let i = 0; i < written.length; i += 500) await store.writeDocuments(written.slice(i, i + 500));
    // 80 "rare" chunks around one direction: a query there finds none that pass among the first
    // candidates, and must ask the scan for more.
    const hot = randomUnit(next, DIMS);
    const near = () => ({ vector: Float32Array.from(hot, (x) => x + 0.01 * (next() - 0.5)) });
    await store.writeDocuments(
      Array.from({ length: 40 }, (_, i) => makeDocument([`near ${i}`, `close ${i}`], { metadata: { kind: "rare" } }, near)),
    );
    const filter: Filter = { op: "eq", field: { metadata: ["kind"] }, value: "common" };
    /** sqlite-vec's distances over every chunk passing the filter, on another connection. */
    const truth = (probe: Float32Array, k: number) => {
      const db = new Database(join(dir, "mem.db"), { readonly: true });
      sqliteVec.load(db);
      try {
        return db
          .prepare(
            `SELECT c.id AS chunkId, vec_distance_cosine(v.embedding, ?) AS distance FROM chunks c
             JOIN chunks_vec v ON v.rowid = c.seq JOIN documents d ON d.id = c.doc_id
             WHERE json_extract(d.metadata, '$.kind') = 'common' ORDER BY distance, c.seq LIMIT ?`,
          )
          .all(Buffer.from(probe.buffer, probe.byteOffset, probe.byteLength), k) as { chunkId: string; distance: number }[];
      } finally {
        db.close();
      }
    };
    const check = async (round: number) => {
      for (let q = 0; q < 8; q++) {
        const probe = q < 2 ? hot : randomUnit(next, DIMS);
        const limit = q % 2 === 0 ? 7 : 40;
        const hits = await store.vectorSearch(probe, { limit, filter });
        expect(
          hits.map((h) => ({ chunkId: h.chunkId, distance: h.distance })),
          `round ${round}, query ${q}`,
        ).toEqual(truth(probe, limit));
      }
    };
    // Counts the in-memory scans (after a connection's first query, sqlite-vec's), so the test
    // checks the path it means to: sqlite-vec's filtered scan gives the same answers.
    const ann = (store as unknown as { vectors: { ann: { exactSearchNow: (...x: unknown[]) => unknown } } }).vectors.ann;
    const scan = ann.exactSearchNow.bind(ann);
    let scans = 0;
    ann.exactSearchNow = (...x: unknown[]) => {
      scans++;
      return scan(...x);
    };
    await check(0);
    // 100 documents deleted: still more than 5,000 chunks pass the filter.
    const listed = await store.listDocuments({ limit: 100 });
    await store.deleteDocuments(listed.map((d) => d.id));
    await check(1);
    expect(scans).toBeGreaterThanOrEqual(15);
    await store.close();
  });
});
