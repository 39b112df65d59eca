import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createSqliteEngine } from "@docdb/store-sqlite";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { type FakeOpenAI, startFakeOpenAI } from "../../../test/support/fake-openai.js";
import { type DocDB, DocDBError, openDocDB, silentLogger } from "../src/index.js";

let dataDir: string;
let server: FakeOpenAI;
const open: DocDB[] = [];

beforeAll(async () => {
  server = await startFakeOpenAI();
});
afterAll(async () => {
  await server.close();
});
beforeEach(() => {
  dataDir = mkdtempSync(join(tmpdir(), "docdb-core-"));
});
afterEach(async () => {
  for (const d of open.splice(0)) await d.close();
  rmSync(dataDir, { recursive: true, force: true });
});

/** Counts straight from the engine, including what core does not report (keyword rows, vectors). */
async function storeCounts(name: string) {
  const engine = createSqliteEngine({ dataDir });
  try {
    return await (await engine.openDatabase(name)).counts();
  } finally {
    await engine.close();
  }
}

function withoutEmbeddings(): DocDB {
  const docdb = openDocDB({ dataDir, embedding: null, logger: silentLogger() });
  open.push(docdb);
  return docdb;
}

function withOpenAI(baseURL = server.url, dimensions?: number): DocDB {
  const docdb = openDocDB({ dataDir, embedding: { provider: "openai", apiKey: "sk-test", baseURL, dimensions }, logger: silentLogger() });
  open.push(docdb);
  return docdb;
}

async function codeOf(promise: Promise<unknown> | (() => unknown)): Promise<string | undefined> {
  try {
    await (typeof promise === "function" ? promise() : promise);
  } catch (error) {
    return DocDBError.isInstance(error) ? error.code : `not a DocDBError: ${String(error)}`;
  }
  return undefined;
}

describe("without an embedding provider", () => {
  it("stores the document pending and finds it by keyword and in hybrid mode", async () => {
    const db = await withoutEmbeddings().database("vectors", { create: true });
    const result = await db.insertDocument({ text: "富士山は日本で一番高い山です。標高は3776メートルです。", metadata: { lang: "ja" } });
    expect(result).toMatchObject({ chunk_count: 1, embedded: false });
    expect(result.warnings[0]).toMatch(/docdb embed --pending/);
    expect(await db.status()).toMatchObject({ documents: 1, chunks: 1, pending: 1, model: null });

    const keyword = await db.findSimilar({ query: "日本で一番高い山", mode: "keyword" });
    expect(keyword.results[0]).toMatchObject({ doc_id: result.doc_id, metadata: { lang: "ja" }, start: 0 });
    expect(keyword.results[0]?.distance).toBeUndefined();
    const hybrid = await db.findSimilar({ query: "富士山の標高" });
    expect(hybrid.results[0]?.doc_id).toBe(result.doc_id);
    expect(hybrid.warnings.join()).toMatch(/keyword results only/);
    expect(await codeOf(db.findSimilar({ query: "山", mode: "vector" }))).toBe("EMBEDDING_UNAVAILABLE");
    expect(await codeOf(db.embedPending())).toBe("EMBEDDING_UNAVAILABLE");
  });

  it("validates input with INVALID_REQUEST and unknown ids with NOT_FOUND", async () => {
    const docdb = withoutEmbeddings();
    const db = await docdb.database("vectors", { create: true });
    expect(await codeOf(db.insertDocument({ text: "" }))).toBe("INVALID_REQUEST");
    expect(await codeOf(db.insertDocument({ text: " \n\t " }))).toBe("INVALID_REQUEST");
    expect(await codeOf(db.insertDocument({ text: "a".repeat(100_001) }))).toBe("INVALID_REQUEST");
    expect(await codeOf(db.insertDocument({ text: "a".repeat(100_000) }))).toBeUndefined();
    expect(await codeOf(db.insertDocument({ text: "ok", metadata: [] as unknown as Record<string, unknown> }))).toBe("INVALID_REQUEST");
    expect(await codeOf(db.findSimilar({ query: "" }))).toBe("INVALID_REQUEST");
    expect(await codeOf(db.findSimilar({ query: "a", top_k: 0 }))).toBe("INVALID_REQUEST");
    expect(await codeOf(db.findSimilar({ query: "a", mode: "fuzzy" as "keyword" }))).toBe("INVALID_REQUEST");
    expect(await codeOf(db.findSimilar({ query: "a", filter: { "x'; DROP": 1 } }))).toBe("INVALID_REQUEST");
    expect(await codeOf(() => db.getDocument("01NOPE"))).toBe("NOT_FOUND");
    expect(await codeOf(() => db.deleteDocument("01NOPE"))).toBe("NOT_FOUND");
    for (const bad of ["../etc", "a/b", "", "x".repeat(65), "名前", "a.db"]) {
      expect(await codeOf(() => docdb.database(bad, { create: true }))).toBe("INVALID_REQUEST");
    }
    expect(await codeOf(() => docdb.database("missing"))).toBe("NOT_FOUND");
  });

  it("getDocument returns text, metadata and chunk offsets that slice the text", async () => {
    const db = await withoutEmbeddings().database("notes", { create: true });
    const text = "第一段落です。\n".repeat(120);
    const { doc_id } = await db.insertDocument({ text, title: "メモ", metadata: { a: 1 } });
    const doc = await db.getDocument(doc_id);
    expect(doc).toMatchObject({ doc_id, title: "メモ", text, metadata: { a: 1 } });
    expect(doc.chunks.length).toBeGreaterThan(1);
    for (const c of doc.chunks) expect(c.end).toBeGreaterThan(c.start);
    expect(doc.chunks[0]).toMatchObject({ index: 0, start: 0, line_start: 1 });
  });

  it("inserts 1,000 documents and finds by keyword, with documents, chunks and FTS rows counted", async () => {
    const db = await withoutEmbeddings().database("bulk", { create: true });
    let chunks = 0;
    for (let i = 0; i < 1000; i++) {
      const body = `文書${i}番。これはテスト用の文章で、識別子はトークン${i}です。`.repeat(1 + (i % 40));
      const result = await db.insertDocument({ text: body, metadata: { i } });
      chunks += result.chunk_count;
    }
    const counts = await storeCounts("bulk");
    expect(counts).toMatchObject({ documents: 1000, chunks, keywordRows: chunks, pending: chunks, vectors: 0 });
    expect(chunks).toBeGreaterThan(1000);
    const found = await db.findSimilar({ query: "トークン777", mode: "keyword", top_k: 3 });
    expect(found.results[0]?.metadata).toEqual({ i: 777 });
    expect(await db.listDocuments({ limit: 2000 })).toHaveLength(1000);
  });
});

describe("with OpenAI (local fake server)", () => {
  it("embeds on insert, finds by vector with distances, and records the model", async () => {
    const db = await withOpenAI().database("vectors", { create: true });
    const tokyo = await db.insertDocument({ text: "東京は日本の首都です。", metadata: { city: "tokyo" } });
    await db.insertDocument({ text: "Paris is the capital of France.", metadata: { city: "paris" } });
    expect(tokyo).toMatchObject({ embedded: true, warnings: [] });
    expect(await db.status()).toMatchObject({
      pending: 0,
      model: { provider: "openai", model: "text-embedding-3-small", dimensions: 1536 },
    });

    const found = await db.findSimilar({ query: "東京は日本の首都", mode: "vector", top_k: 2 });
    expect(found.results[0]?.doc_id).toBe(tokyo.doc_id);
    expect(found.results[0]?.distance).toBeGreaterThanOrEqual(0);
    expect(found.results[0]?.score).toBeCloseTo(1 - (found.results[0]?.distance ?? 0), 6);
    expect(found.results[0]!.score).toBeGreaterThan(found.results[1]!.score);

    const filtered = await db.findSimilar({ query: "東京は日本の首都", mode: "vector", filter: { city: "paris" } });
    expect(filtered.results.map((r) => r.metadata.city)).toEqual(["paris"]);
    const strict = await db.findSimilar({ query: "東京は日本の首都", mode: "vector", threshold: 0.99 });
    expect(strict.results.every((r) => r.score >= 0.99)).toBe(true);
    expect(strict.results.length).toBeLessThan(2);

    const hybrid = await db.findSimilar({ query: "日本の首都" });
    expect(hybrid.results[0]?.doc_id).toBe(tokyo.doc_id);
    expect(hybrid.results[0]?.distance).toBeDefined();
  });

  it("keeps the document when the provider is down, then embeds it with embedPending", async () => {
    const down = withOpenAI("http://127.0.0.1:9/v1");
    const db = await down.database("vectors", { create: true });
    const result = await db.insertDocument({ text: "大阪はたこ焼きで有名です。" });
    expect(result.embedded).toBe(false);
    // The provider's words, without an error code in front (the CLI prints warnings as they are).
    expect(result.warnings[0]).toMatch(/^stored without vectors \(cannot reach the OpenAI API/);
    expect((await db.findSimilar({ query: "たこ焼き", mode: "keyword" })).results).toHaveLength(1);
    await down.close();
    open.splice(open.indexOf(down), 1);

    const up = await withOpenAI().database("vectors");
    expect((await up.status()).pending).toBe(1);
    const progress: number[] = [];
    expect(await up.embedPending({ onProgress: (p) => progress.push(p.done) })).toEqual({ embedded: 1, remaining: 0 });
    expect(progress).toEqual([1]);
    expect((await up.findSimilar({ query: "たこ焼き", mode: "vector" })).results[0]?.doc_id).toBe(result.doc_id);
  });

  it("refuses a model of another dimension with DIMENSION_MISMATCH and reembed fixes it", async () => {
    const first = withOpenAI();
    await (await first.database("vectors", { create: true })).insertDocument({ text: "札幌は北海道にあります。" });
    await first.close();
    open.splice(open.indexOf(first), 1);

    const other = await withOpenAI(server.url, 256).database("vectors");
    const error = await other.findSimilar({ query: "札幌", mode: "vector" }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: "DIMENSION_MISMATCH" });
    expect((error as Error).message).toMatch(/docdb reembed --db vectors/);
    expect(await codeOf(other.insertDocument({ text: "x" }))).toBe("DIMENSION_MISMATCH");
    expect((await other.status()).documents).toBe(1);

    expect(await other.reembed()).toEqual({ embedded: 1, remaining: 0 });
    expect((await other.status()).model?.dimensions).toBe(256);
    const found = await other.findSimilar({ query: "札幌は北海道", mode: "vector" });
    expect(found.results).toHaveLength(1);
  });

  it("deleting removes vectors and FTS rows so the document is never found again", async () => {
    const db = await withOpenAI().database("vectors", { create: true });
    const { doc_id, chunk_count } = await db.insertDocument({ text: "名古屋城は金のしゃちほこで知られます。".repeat(60) });
    expect(await storeCounts("vectors")).toMatchObject({ chunks: chunk_count, vectors: chunk_count, keywordRows: chunk_count });
    expect(await db.deleteDocument(doc_id)).toEqual({ deleted_chunks: chunk_count });
    expect(await storeCounts("vectors")).toMatchObject({ documents: 0, chunks: 0, vectors: 0, keywordRows: 0 });
    for (const mode of ["keyword", "vector", "hybrid"] as const) {
      expect((await db.findSimilar({ query: "名古屋城", mode })).results).toEqual([]);
    }
  });
});
