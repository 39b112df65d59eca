// Errors that repeat a caller's value repeat a short prefix of it (echo()), however long the
// value: ids, collection names, modes, ranges and settings, through the public API.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { type Database, type DocDB, openDocDB, settingsFromEnv, silentLogger } from "../src/index.js";

const HUGE = "x".repeat(1_000_000);

let scratch: string;
let docdb: DocDB;
let db: Database;
beforeAll(async () => {
  scratch = mkdtempSync(join(tmpdir(), "docdb-echo-"));
  docdb = openDocDB({ dataDir: scratch, embedding: { provider: "none" }, logger: silentLogger() });
  db = await docdb.database("vectors", { create: true });
  await db.insertDocument({ text: "one line" });
});
afterAll(async () => {
  await docdb.close();
  rmSync(scratch, { recursive: true, force: true });
});

async function messageOf(work: () => unknown): Promise<string> {
  try {
    await work();
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error("expected an error");
}

it.each<[string, () => unknown]>([
  ["find mode", () => db.findSimilar({ query: "line", mode: HUGE as "keyword" })],
  ["range", async () => db.getDocument((await db.listDocuments())[0]?.doc_id ?? "", { start: HUGE as unknown as number })],
  ["deadline setting", () => settingsFromEnv({ DOCDB_EMBED_DEADLINE_MS: HUGE }).embedDeadlineMs],
  ["whole-number setting", () => settingsFromEnv({ DOCDB_ANALYSIS_WORKERS: HUGE }).analysisWorkers],
  ["log level", () => settingsFromEnv({ DOCDB_LOG_LEVEL: HUGE }) && openDocDB({ settings: settingsFromEnv({ DOCDB_LOG_LEVEL: HUGE }) })],
  ["provider name", () => settingsFromEnv({ DOCDB_EMBEDDING: HUGE }).embedding],
  ["reranker name", () => settingsFromEnv({ DOCDB_RERANKER: HUGE }).reranker],
])("a 1 MB %s comes back as a short prefix", async (_, work) => {
  const message = await messageOf(work);
  expect(message.length).toBeLessThan(400);
  expect(message).toMatch(/x… \(1000000 characters\)/);
});

it.each<[string, () => unknown]>([
  ["document id", () => db.getDocument(HUGE)],
  ["document id to delete", () => db.deleteDocument(HUGE)],
  ["collection name", () => db.collections.get(HUGE)],
])("a 1 MB %s is refused in a short message", async (_, work) => {
  expect((await messageOf(work)).length).toBeLessThan(400);
});
