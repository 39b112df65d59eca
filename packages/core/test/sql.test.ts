import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Store, StoreEngine } from "@docdb/store";
import { createSqliteEngine } from "@docdb/store-sqlite";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type DocDB, openDocDB, SQL_VIEWS, silentLogger } from "../src/index.js";

let dir: string;
let docdb: DocDB | undefined;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "docdb-core-sql-"));
});
afterEach(async () => {
  await docdb?.close();
  docdb = undefined;
  rmSync(dir, { recursive: true, force: true });
});

/** The SQLite engine, minus read-only SQL: what an engine without it looks like to core. */
function engineWithoutSql(): StoreEngine {
  const inner = createSqliteEngine({ dataDir: dir });
  const capabilities = { ...inner.capabilities, readOnlySql: false };
  return {
    kind: "nosql",
    location: inner.location,
    capabilities,
    listDatabases: () => inner.listDatabases(),
    databaseExists: (name) => inner.databaseExists(name),
    openDatabase: async (name, options) => {
      const store = await inner.openDatabase(name, options);
      return new Proxy(store, {
        get(target, property) {
          if (property === "querySql") return undefined;
          if (property === "capabilities") return capabilities;
          const value = Reflect.get(target, property, target);
          return typeof value === "function" ? value.bind(target) : value;
        },
      }) as Store;
    },
    dropDatabase: (name) => inner.dropDatabase(name),
    close: () => inner.close(),
  };
}

describe("Database.sql", () => {
  it("answers counts by collection, the newest documents and JSON metadata, with the caps in the answer", async () => {
    docdb = openDocDB({ dataDir: dir, embedding: null, logger: silentLogger() });
    const db = await docdb.database("notes", { create: true });
    await db.insertDocument({ text: "東京は日本の首都です。", metadata: { lang: "ja", year: 2024 } });
    await db.insertDocument({ text: "Paris is the capital of France.", metadata: { lang: "en", year: 2025 } });
    await db.insertDocument({ text: "Berlin is the capital of Germany.", metadata: { lang: "en", year: 2026 }, key: "notes/berlin" });

    const byLang = await db.sql("SELECT json_extract(metadata, '$.lang') AS lang, count(*) AS n FROM documents_v GROUP BY 1 ORDER BY 1");
    expect(byLang).toEqual({
      columns: ["lang", "n"],
      rows: [
        ["en", 2],
        ["ja", 1],
      ],
      row_count: 2,
      truncated: false,
      limits: { max_rows: 100, timeout_ms: 5000, max_bytes: 8388608 },
    });
    const newest = await db.sql("SELECT key, json_extract(metadata, '$.year') FROM documents_v ORDER BY created_at DESC, id DESC", {
      max_rows: 1,
      timeout_ms: 2000,
    });
    expect(newest).toMatchObject({
      rows: [["notes/berlin", 2026]],
      row_count: 1,
      truncated: true,
      limits: { max_rows: 1, timeout_ms: 2000, max_bytes: 8388608 },
    });
    const chunks = await db.sql("SELECT count(*) AS chunks, sum(embedded) AS embedded FROM chunks_v");
    expect(chunks.rows).toEqual([[3, 0]]);
  });

  it("every documented view has exactly its documented columns", async () => {
    docdb = openDocDB({ dataDir: dir, embedding: null, logger: silentLogger() });
    const db = await docdb.database("notes", { create: true });
    for (const [view, columns] of Object.entries(SQL_VIEWS)) {
      expect((await db.sql(`SELECT * FROM ${view} LIMIT 0`)).columns, view).toEqual(columns);
    }
  });

  it("agent memory's views: topics with counts, QA records with their merged state, knowledge with its sources", async () => {
    docdb = openDocDB({ dataDir: dir, embedding: null, logger: silentLogger() });
    const db = await docdb.database("mem", { create: true });
    const a = await db.memory.storeQa({ question: "How do I roll back a failed deploy?", answer: "deploy rollback", topic: "Deploy" });
    const b = await db.memory.storeQa({ question: "How can I roll back a deploy that failed?", answer: "rollback", topic: " deploy!" });
    const c = await db.memory.storeQa({ question: "Which port does staging use?", answer: "5433", topic: "Staging database" });
    const k = await db.memory.storeKnowledge({
      text: "Roll back with `deploy rollback`.",
      topic: "Deploy",
      source_qa_ids: [a.qa_id, b.qa_id],
    });
    await db.insertDocument({ text: "A person's note about deploys." });

    const topics = await db.sql("SELECT name, normalized_name, qa_count, unmerged_count, knowledge_count FROM topics_v ORDER BY name");
    expect(topics.rows).toEqual([
      ["Deploy", "deploy", 2, 0, 1],
      ["Staging database", "staging database", 1, 1, 0],
    ]);
    const qas = await db.sql("SELECT id, topic, question, answer, merged, merged_into FROM qa_v ORDER BY created_at, id");
    expect(qas.rows).toEqual([
      [a.qa_id, "Deploy", "How do I roll back a failed deploy?", "deploy rollback", 1, k.knowledge_id],
      [b.qa_id, "Deploy", "How can I roll back a deploy that failed?", "rollback", 1, k.knowledge_id],
      [c.qa_id, "Staging database", "Which port does staging use?", "5433", 0, null],
    ]);
    const knowledge = await db.sql("SELECT id, topic, text, source_count FROM knowledge_v");
    expect(knowledge.rows).toEqual([[k.knowledge_id, "Deploy", "Roll back with `deploy rollback`.", 2]]);
    // The sources join back to their QA records.
    const joined = await db.sql(
      "SELECT q.question FROM knowledge_v k, json_each(k.source_qa_ids) s JOIN qa_v q ON q.id = s.value ORDER BY q.created_at, q.id",
    );
    expect(joined.rows).toEqual([["How do I roll back a failed deploy?"], ["How can I roll back a deploy that failed?"]]);
    // Unmerged answers per topic: what merge_knowledge would still look at.
    const open = await db.sql("SELECT topic, count(*) FROM qa_v WHERE merged = 0 GROUP BY topic");
    expect(open.rows).toEqual([["Staging database", 1]]);
    // Writes through the views are refused like any other.
    await expect(db.sql("DELETE FROM qa_v")).rejects.toMatchObject({ code: "INVALID_REQUEST" });
  });

  it("checks its arguments and turns refusals into INVALID_REQUEST", async () => {
    docdb = openDocDB({ dataDir: dir, embedding: null, logger: silentLogger() });
    const db = await docdb.database("notes", { create: true });
    await expect(db.sql("")).rejects.toMatchObject({ code: "INVALID_REQUEST" });
    await expect(db.sql("SELECT 1", { max_rows: 0 })).rejects.toThrow(/max_rows/);
    await expect(db.sql("SELECT 1", { timeout_ms: 10 })).rejects.toThrow(/timeout_ms/);
    await expect(db.sql("DELETE FROM documents")).rejects.toMatchObject({
      code: "INVALID_REQUEST",
      message: expect.stringMatching(/got DELETE/),
    });
    await expect(db.sql("SELECT * FROM nowhere")).rejects.toMatchObject({
      code: "INVALID_REQUEST",
      message: expect.stringMatching(/no such table/),
    });
  });

  it("refuses clearly when the engine offers no SQL", async () => {
    docdb = openDocDB({ store: engineWithoutSql(), embedding: null, logger: silentLogger() });
    const db = await docdb.database("notes", { create: true });
    await db.insertDocument({ text: "a document" });
    await expect(db.sql("SELECT count(*) FROM documents_v")).rejects.toMatchObject({
      code: "INVALID_REQUEST",
      message: expect.stringMatching(/the nosql engine does not offer read-only SQL/),
    });
  });
});
