import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { buildKeywordQuery } from "@docdb/analyzer";
import { chunkText } from "@docdb/chunker";
import type { DocumentWrite, StoreCounts, StoreEngine } from "@docdb/store";
import { createPostgresEngine } from "@docdb/store-postgres";
import { createSqliteEngine } from "@docdb/store-sqlite";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { type FakeOpenAI, startFakeOpenAI } from "../../../test/support/fake-openai.js";
import { type PgliteServer, startPgliteServer } from "../../store-postgres/test/support/pglite-server.js";
import { AnalysisPool, analyseInThread } from "../src/analysis.js";
import { type DocDB, type InsertInput, type InsertResult, openDocDB, silentLogger } from "../src/index.js";
import { toStoredChunks } from "../src/stored-chunks.js";

let dataDir: string;
let openai: FakeOpenAI;
const open: DocDB[] = [];

beforeAll(async () => {
  openai = await startFakeOpenAI({ dimensions: 32 });
});
afterAll(async () => {
  await openai.close();
});
beforeEach(() => {
  dataDir = mkdtempSync(join(tmpdir(), "docdb-bulk-"));
});
afterEach(async () => {
  for (const d of open.splice(0)) await d.close();
  rmSync(dataDir, { recursive: true, force: true });
});

function docdbOn(store: StoreEngine | undefined, embedding: boolean): DocDB {
  const docdb = openDocDB({
    dataDir,
    ...(store ? { store } : {}),
    embedding: embedding
      ? { provider: "openai", apiKey: "sk-test", baseURL: openai.url, model: "text-embedding-3-small", dimensions: 32 }
      : null,
    logger: silentLogger(),
  });
  open.push(docdb);
  return docdb;
}

/** A seeded mix of what docdb is given: Japanese, English, code, Markdown, titles, keys (one repeated). */
function corpus(count: number): InsertInput[] {
  let state = 7;
  const next = () => {
    state = (state * 1103515245 + 12345) & 0x7fffffff;
    return state / 0x7fffffff;
  };
  const pick = <T>(list: T[]) => list[Math.floor(next() * list.length)] as T;
  const ja = ["東京の天気は晴れです。", "会議の議事録を共有します。", "サーバーの設定を確認しました。", "請求書を送付いたしました。"];
  const en = ["The invoice was sent to the customer.", "Retry the request with backoff.", "Caching cuts the latency in half."];
  const code = ["`getUserName()` returns the name.", "Set max_connections to 200.", "parseConfigFile reads e-mail settings."];
  return Array.from({ length: count }, (_, n) => {
    let text = "";
    const length = 200 + Math.floor(next() * 1800);
    while (text.length < length) text += `${pick([...ja, ...en, ...code])} `;
    const input: InsertInput = { text: `${text}doc${n}`, metadata: { n } };
    if (n % 5 === 0) input.title = `文書 ${n} title`;
    if (n % 7 === 0) {
      input.source = `notes/n${n}.md`;
      input.text = `# Heading ${n}\n\n${input.text}\n\n## Part two\n\n${text}`;
    }
    if (n % 11 === 0) input.key = `key-${n % 3}`;
    return input;
  });
}

/**
 * Every third document's chunks as chunks of code: a language (its reserved words leave the
 * body), a symbol or several packed ones, and documentation (the title field takes them).
 */
function asCode<C extends DocumentWrite["chunks"][number]>(chunk: C, n: number): C {
  if (n % 3 !== 0) return chunk;
  return {
    ...chunk,
    text: `${chunk.text}\nexport function retryCharge(id) { return this.store.write(id); }`,
    language: "typescript",
    symbol: "PaymentService.retryCharge",
    symbols:
      n % 6 === 0
        ? [
            { symbol: "PaymentService.retryCharge", kind: "method" },
            { symbol: "betaGamma", kind: "function" },
          ]
        : null,
    doc: "Charges the card again.",
  };
}

async function countsOf(engine: StoreEngine, name: string): Promise<StoreCounts> {
  return (await engine.openDatabase(name)).counts();
}

/** Inserts `inputs` one by one into `one` and in bulk into `bulk`, and checks both hold the same. */
async function sameAsOneByOne(docdb: DocDB, engine: StoreEngine, inputs: InsertInput[]) {
  const one = await docdb.database("one", { create: true });
  const bulk = await docdb.database("bulk", { create: true });
  const singles: InsertResult[] = [];
  for (const input of inputs) singles.push(await one.insertDocument(input));
  const many = await bulk.insertDocuments(inputs, { batch_size: 23 });
  expect(many.failed).toBe(0);
  const shape = (r: InsertResult) => ({
    chunk_count: r.chunk_count,
    embedded: r.embedded,
    replaced: r.replaced,
    reused_vectors: r.reused_vectors,
  });
  expect(many.results.map((r) => (r.ok ? shape(r) : r))).toEqual(singles.map(shape));
  expect(many.chunks).toBe(singles.reduce((n, r) => n + r.chunk_count, 0));
  // Documents, chunks, keyword rows and vectors, straight from the engine.
  const counts = await countsOf(engine, "bulk");
  expect(counts).toEqual(await countsOf(engine, "one"));
  expect(counts.keywordRows).toBe(counts.chunks);
  // The same passages come back for the same queries.
  for (const query of ["東京の天気", "invoice customer", "max_connections", "getUserName", "doc17", "Heading 14"]) {
    const a = await one.findSimilar({ query, mode: "keyword", top_k: 5, include_text: true });
    const b = await bulk.findSimilar({ query, mode: "keyword", top_k: 5, include_text: true });
    expect(b.results.map((r) => [r.metadata.n, r.text, r.score])).toEqual(a.results.map((r) => [r.metadata.n, r.text, r.score]));
  }
  return { one, bulk, counts, many };
}

describe("insertDocuments", () => {
  it("stores on SQLite exactly what insertDocument one by one stores, vectors in the same write, and the vector index keeps step", async () => {
    // Threshold 0: the HNSW index (fed by vector_log) serves every vector query.
    const engine = createSqliteEngine({ dataDir, vectorIndex: { threshold: 0 } });
    const docdb = docdbOn(engine, true);
    const inputs = corpus(90);
    const { bulk, counts } = await sameAsOneByOne(docdb, engine, inputs);
    expect(counts.pending).toBe(0);
    expect(counts.vectors).toBe(counts.chunks);
    // The approximate index applies vector_log and then agrees with the exact scan (HNSW is
    // approximate: at most one of the exact five may be traded for the next nearest).
    const store = await engine.openDatabase("bulk");
    let seed = 3;
    const vector = Float32Array.from({ length: 32 }, () => {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      return seed / 0x7fffffff - 0.5;
    });
    const approximate = await store.vectorSearch(vector, { limit: 5 });
    const exact = await store.vectorSearch(vector, { limit: 5, exact: true });
    expect(approximate).toHaveLength(5);
    const near = new Set(approximate.map((h) => h.chunkId));
    expect(exact.filter((h) => near.has(h.chunkId)).length).toBeGreaterThanOrEqual(4);
    expect(await bulk.indexStatus()).toMatchObject({ state: "ready", vectors: counts.vectors, indexed: counts.vectors, behind: 0 });
    // Core's own vector search (through the index) finds nearly the same passages as exact.
    const query = { query: "サーバーの設定", mode: "vector" as const, top_k: 5, merge: false };
    const viaCore = new Set((await bulk.findSimilar(query)).results.map((r) => r.chunk_id));
    const exactCore = (await bulk.findSimilar({ ...query, exact: true })).results.map((r) => r.chunk_id);
    expect(exactCore).toHaveLength(5);
    expect(exactCore.filter((id) => viaCore.has(id)).length).toBeGreaterThanOrEqual(4);
    await engine.close();
  });

  it("stores on PostgreSQL exactly what insertDocument one by one stores", async () => {
    const pg: PgliteServer = await startPgliteServer();
    try {
      const engine = createPostgresEngine({ url: pg.url });
      const docdb = docdbOn(engine, true);
      const { counts } = await sameAsOneByOne(docdb, engine, corpus(24));
      expect(counts).toMatchObject({ pending: 0, vectors: counts.chunks });
      // A document the server refuses though it is valid (a word too long for PostgreSQL's
      // btree index on terms): its batch is written again one document at a time, so only it fails.
      let seed = 3;
      const letters = Array.from({ length: 9000 }, () => {
        seed = (seed * 1103515245 + 12345) & 0x7fffffff;
        return String.fromCharCode(97 + (seed % 26));
      }).join("");
      // (Chunks of 10,000 characters, so the word reaches the index whole.)
      const wide = openDocDB({ store: engine, embedding: null, logger: silentLogger(), chunkOptions: { size: 10_000, overlap: 100 } });
      open.push(wide);
      const db = await wide.database("refused", { create: true });
      const result = await db.insertDocuments([
        { text: "before the long word" },
        { text: `a ${letters} word` },
        { text: "after the long word" },
      ]);
      expect(result.results.map((r) => (r.ok ? "ok" : r.error.code))).toEqual(["ok", "INTERNAL", "ok"]);
      expect((await db.status()).documents).toBe(2);
      await docdb.close();
      await engine.close();
    } finally {
      await pg.stop();
    }
  });

  it("refuses an invalid document with its own error and stores the others", async () => {
    const docdb = docdbOn(undefined, false);
    const db = await docdb.database("mixed", { create: true });
    const inputs = [
      { text: "first good document" },
      { text: "" },
      { text: "second good document", metadata: { ok: true } },
      { text: "bad metadata", metadata: [1, 2] },
      null,
      { text: "bad title", title: "x".repeat(1001) },
      { text: "x".repeat(100_001) },
      { text: "third good document", key: "k1" },
      // Agent memory's collections are docdb's own.
      { text: "not a QA record", collection: "_memory_qa" },
    ] as InsertInput[];
    const result = await db.insertDocuments(inputs, { batch_size: 3 });
    expect(result.results.map((r) => (r.ok ? "ok" : r.error.code))).toEqual([
      "ok",
      "INVALID_REQUEST",
      "ok",
      "INVALID_REQUEST",
      "INVALID_REQUEST",
      "INVALID_REQUEST",
      "INVALID_REQUEST",
      "ok",
      "INVALID_REQUEST",
    ]);
    const refused = result.results[1];
    expect(refused?.ok === false && refused.error.message).toMatch(/empty/);
    const reserved = result.results[8];
    expect(reserved?.ok === false && reserved.error.message).toMatch(/reserved for docdb/);
    expect(result).toMatchObject({ inserted: 3, failed: 6, chunks: 3, pending: 3 });
    expect(result.warnings).toHaveLength(1);
    expect(result.warnings[0]).toMatch(/docdb embed --pending/);
    expect(await db.status()).toMatchObject({ documents: 3, chunks: 3, pending: 3 });
    expect((await db.findSimilar({ query: "third good", mode: "keyword" })).results[0]?.metadata).toEqual({});
    // The call itself: an array and a batch size in range.
    await expect(db.insertDocuments("text" as unknown as InsertInput[])).rejects.toMatchObject({ code: "INVALID_REQUEST" });
    await expect(db.insertDocuments([], { batch_size: 0 })).rejects.toMatchObject({ code: "INVALID_REQUEST" });
    await expect(db.insertDocuments([], { batch_size: 1001 })).rejects.toMatchObject({ code: "INVALID_REQUEST" });
    expect(await db.insertDocuments([])).toMatchObject({ results: [], inserted: 0, failed: 0 });
  });

  it("leaves documents pending, not lost, when the provider fails mid-call, and embeds them later", async () => {
    const docdb = docdbOn(undefined, true);
    const db = await docdb.database("flaky", { create: true });
    const inputs = corpus(30).map(({ key: _key, ...rest }) => rest);
    const progress: number[] = [];
    const result = await db.insertDocuments(inputs, {
      batch_size: 10,
      onProgress: ({ done }) => {
        progress.push(done);
        // After the first batch the provider starts refusing (400: not retried).
        if (done === 10) openai.failures.push({ status: 400 });
      },
    });
    expect(progress).toEqual([10, 20, 30]);
    expect(result.failed).toBe(0);
    expect(result.results.map((r) => r.ok && r.embedded)).toEqual([...Array(10).fill(true), ...Array(20).fill(false)]);
    expect(result.warnings.join()).toMatch(/scripted 400/);
    const pending = result.results.slice(10).reduce((n, r) => n + (r.ok ? r.chunk_count : 0), 0);
    expect(await db.status()).toMatchObject({ documents: 30, pending });
    // Keyword search finds them meanwhile; embedPending finishes the job.
    expect((await db.findSimilar({ query: "doc25", mode: "keyword", top_k: 1 })).results[0]?.metadata).toEqual({ n: 25 });
    expect(await db.embedPending()).toEqual({ embedded: pending, remaining: 0 });
  });

  it("stops between batches when aborted, keeping the batches written before", async () => {
    const docdb = docdbOn(undefined, false);
    const db = await docdb.database("stopped", { create: true });
    const controller = new AbortController();
    const inputs = corpus(25).map(({ key: _key, ...rest }) => rest);
    await expect(
      db.insertDocuments(inputs, { batch_size: 10, signal: controller.signal, onProgress: () => controller.abort() }),
    ).rejects.toThrow(/10 of 25 documents were stored/);
    expect((await db.status()).documents).toBe(10);
  });
});

describe("terms analysed in core", () => {
  it("index exactly as the engine's own analysis does", async () => {
    const engine = createSqliteEngine({ dataDir });
    const writes = (analysed: boolean): DocumentWrite[] => {
      const list = corpus(40).map((input, n) => ({
        document: { id: `d${n}`, title: input.title ?? null, content: input.text, contentHash: "h", metadata: { n } },
        chunks: toStoredChunks(input.text, chunkText(input.text, { size: 300, overlap: 50 }), input.title ?? null).map((c, i) =>
          asCode({ ...c, heading: i % 2 === 0 ? `見出し ${n} > part` : null }, n),
        ),
      }));
      if (analysed) analyseInThread(list);
      return list;
    };
    const ours = await engine.openDatabase("ours", { create: true });
    const theirs = await engine.openDatabase("theirs", { create: true });
    const given = writes(true);
    const plain = writes(false);
    expect(given[1]?.chunks[0]?.terms?.title).toMatch(/見出 1 part$/);
    expect(plain[0]?.chunks[0]?.terms).toBeUndefined();
    await ours.writeDocuments(given);
    await theirs.writeDocuments(plain);
    // Chunk ids differ between the two lists: hits are compared as (document, chunk index).
    const place = (list: DocumentWrite[]) => new Map(list.flatMap((w) => w.chunks.map((c) => [c.id, `${w.document.id}:${c.idx}`])));
    const [inOurs, inTheirs] = [place(given), place(plain)];
    for (const text of [
      "東京の天気",
      "invoice customer",
      "max_connections",
      "getUserName",
      "見出し 3",
      "文書 title",
      "doc17",
      "retryCharge",
      "this.store.write",
      "betaGamma",
      "charges the card",
    ]) {
      const query = buildKeywordQuery(text);
      if (!query) throw new Error(text);
      const a = await ours.keywordSearch(query, { limit: 10 });
      const b = await theirs.keywordSearch(query, { limit: 10 });
      expect(a.length).toBeGreaterThan(0);
      expect(a.map((h) => [inOurs.get(h.chunkId), h.score])).toEqual(b.map((h) => [inTheirs.get(h.chunkId), h.score]));
    }
    await engine.close();
  });
});

describe("analysis in worker threads", () => {
  function writes(): DocumentWrite[] {
    return corpus(40).map((input, n) => ({
      document: { id: `d${n}`, title: input.title ?? null, content: input.text, contentHash: "h", metadata: {} },
      chunks: toStoredChunks(
        input.text,
        [{ index: 0, text: input.text, start: 0, end: input.text.length, headingPath: ["見出し", `part ${n}`] }],
        input.title ?? null,
      ).map((c) => asCode(c, n)),
    }));
  }

  it("gives the same terms as analysis in the main thread, and falls back to it when a worker fails", async () => {
    const expected = writes();
    analyseInThread(expected);
    const pool = new AnalysisPool({ size: 2, minChunks: 1 });
    try {
      const pooled = writes();
      await pool.analyse(pooled);
      expect(pool.running).toBe(2);
      expect(pooled.map((w) => w.chunks.map((c) => c.terms))).toEqual(expected.map((w) => w.chunks.map((c) => c.terms)));
      expect(pooled[4]?.chunks[0]?.terms?.title).toMatch(/見出 part 4$/);
      // Code fields crossed to the workers: symbols and documentation in the title, no reserved words in the body.
      expect(pooled[3]?.chunks[0]?.terms?.title).toMatch(
        /part 3 paymentservic payment servic retrycharg retri charg paymentservice\.retrycharge charg the card again$/,
      );
      expect(pooled[6]?.chunks[0]?.terms?.title).toContain("betagamma beta gamma");
      expect(pooled[3]?.chunks[0]?.terms?.body).toMatch(/ retrycharg retri charg id store write store\.write id$/);
      expect(pooled[4]?.chunks[0]?.terms?.body.split(" ")).not.toContain("retrycharg");
      // Small batches stay in this thread.
      const small = new AnalysisPool({ size: 2, minChunks: 1000 });
      const few = writes().slice(0, 2);
      await small.analyse(few);
      expect(small.running).toBe(0);
      expect(few.map((w) => w.chunks.map((c) => c.terms))).toEqual(expected.slice(0, 2).map((w) => w.chunks.map((c) => c.terms)));
    } finally {
      await pool.close();
    }
    const broken = join(dataDir, "broken-worker.mjs");
    writeFileSync(broken, "throw new Error('this worker cannot start');\n");
    const failing = new AnalysisPool({ size: 1, minChunks: 1, script: broken });
    try {
      const fallback = writes();
      await failing.analyse(fallback);
      expect(fallback.map((w) => w.chunks.map((c) => c.terms))).toEqual(expected.map((w) => w.chunks.map((c) => c.terms)));
      expect(failing.running).toBe(0);
    } finally {
      await failing.close();
    }
  });

  it("runs in a bulk insert and stores what the main thread would", async () => {
    const inThread = openDocDB({ dataDir, embedding: null, logger: silentLogger(), analysisWorkers: 0 });
    const pooled = openDocDB({ dataDir, embedding: null, logger: silentLogger(), analysisWorkers: 2 });
    open.push(inThread, pooled);
    const inputs = corpus(60);
    const a = await (await inThread.database("in_thread", { create: true })).insertDocuments(inputs, { batch_size: 20 });
    const db = await pooled.database("pooled", { create: true });
    const b = await db.insertDocuments(inputs, { batch_size: 20 });
    expect(b.results.map((r) => r.ok && r.chunk_count)).toEqual(a.results.map((r) => r.ok && r.chunk_count));
    const engine = createSqliteEngine({ dataDir });
    expect(await countsOf(engine, "pooled")).toEqual(await countsOf(engine, "in_thread"));
    await engine.close();
    const one = await inThread.database("in_thread");
    for (const query of ["東京の天気", "max_connections", "doc42"]) {
      const x = await one.findSimilar({ query, mode: "keyword", top_k: 5 });
      const y = await db.findSimilar({ query, mode: "keyword", top_k: 5 });
      expect(y.results.map((r) => [r.metadata.n, r.score])).toEqual(x.results.map((r) => [r.metadata.n, r.score]));
    }
  });
});
