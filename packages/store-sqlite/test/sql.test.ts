import { createHash } from "node:crypto";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Store, StoreError } from "@docdb/store";
import { makeDocument } from "@docdb/store/contract-suite";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSqliteEngine, type SqliteEngine } from "../src/index.js";

let dir: string;
const hash = (path: string) => createHash("sha256").update(readFileSync(path)).digest("hex");

/** A database with a few documents in two collections, closed so its file is complete on its own. */
async function seed(): Promise<string> {
  const engine = createSqliteEngine({ dataDir: dir });
  const store = await engine.openDatabase("notes", { create: true });
  await store.createCollection({ name: "docs", description: "Docs", source: dir, enabled: true });
  await store.writeDocuments([
    makeDocument(["Tokyo is the capital of Japan."], { id: "doc-a", collection: "docs", metadata: { lang: "en", tags: ["city"] } }),
    makeDocument(["東京は日本の首都です。", "人口は約1400万人です。"], { id: "doc-b", collection: "docs", metadata: { lang: "ja" } }),
    makeDocument(["A note without a collection."], { id: "doc-c", key: "notes/one", metadata: { lang: "en", year: 2026 } }),
  ]);
  await engine.close();
  return join(dir, "notes.db");
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "docdb-sql-"));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Statements that must be refused outright (an error, nothing run). */
const REFUSED: string[] = [
  // writes
  "INSERT INTO documents (id, content, content_hash, created_at, updated_at) VALUES ('x', 'y', 'z', 'a', 'b')",
  "INSERT INTO meta VALUES ('k', 'v') RETURNING key",
  "INSERT INTO meta VALUES ('analyzer_version', 'x') ON CONFLICT(key) DO UPDATE SET value = 'y'",
  "INSERT OR REPLACE INTO meta VALUES ('a', 'b')",
  "REPLACE INTO meta VALUES ('a', 'b')",
  "UPDATE documents SET title = 'pwned'",
  "UPDATE documents SET title = 'pwned' RETURNING id",
  "DELETE FROM chunks",
  "DELETE FROM documents RETURNING id",
  "WITH x AS (SELECT 1) INSERT INTO meta SELECT 'a', 'b' FROM x",
  "WITH x AS (SELECT 1) DELETE FROM documents",
  "WITH x AS (SELECT 1) UPDATE documents SET title = 'x' RETURNING id",
  "INSERT INTO chunks_fts (chunks_fts) VALUES ('delete-all')",
  "INSERT INTO chunks_fts (chunks_fts) VALUES ('optimize')",
  "INSERT INTO sqlite_dbpage (pgno, data) VALUES (1, zeroblob(4096))",
  // DDL
  "CREATE TABLE evil (x)",
  "CREATE TABLE evil AS SELECT * FROM documents",
  "CREATE TEMP TABLE evil (x)",
  "CREATE TEMPORARY TABLE evil AS SELECT 1",
  "CREATE TEMP VIEW evil AS SELECT 1",
  "CREATE VIEW evil_v AS SELECT 1",
  "CREATE INDEX evil_i ON documents(title)",
  "CREATE TRIGGER evil_t AFTER INSERT ON documents BEGIN DELETE FROM documents; END",
  "CREATE VIRTUAL TABLE evil USING fts5(x)",
  "DROP TABLE documents",
  "DROP VIEW documents_v",
  "DROP INDEX documents_key",
  "ALTER TABLE documents ADD COLUMN evil TEXT",
  "ALTER TABLE documents RENAME TO docs2",
  // other databases
  `ATTACH DATABASE '${"ATTACHED"}' AS evil`,
  "ATTACH ':memory:' AS m",
  "DETACH DATABASE main",
  // pragmas
  "PRAGMA writable_schema = ON",
  "PRAGMA writable_schema = 1; UPDATE sqlite_master SET sql = 'x' WHERE name = 'documents'",
  "PRAGMA journal_mode = DELETE",
  "PRAGMA query_only = OFF",
  "PRAGMA user_version = 42",
  "PRAGMA foreign_keys = OFF",
  "PRAGMA wal_checkpoint(TRUNCATE)",
  "PRAGMA integrity_check",
  "pragma table_info(documents)",
  // extensions and files
  "SELECT load_extension('/tmp/evil.so')",
  "SELECT load_extension('libc.so.6', 'system')",
  "SELECT readfile('/etc/passwd')",
  "SELECT writefile('WRITTEN', 'x')",
  "SELECT edit('x')",
  "SELECT * FROM chunks_vec",
  // maintenance
  "VACUUM",
  `VACUUM INTO '${"VACUUMED"}'`,
  "REINDEX",
  "ANALYZE",
  // transactions
  "BEGIN IMMEDIATE",
  "BEGIN EXCLUSIVE; SELECT 1",
  "COMMIT",
  "SAVEPOINT s",
  "ROLLBACK",
  // several statements and disguises
  "SELECT 1; DELETE FROM documents",
  "SELECT 1; SELECT 2",
  "SELECT 1;; DROP TABLE documents",
  "/* SELECT */ DELETE FROM documents",
  "-- SELECT\nDROP TABLE documents",
  "EXPLAIN DELETE FROM documents",
  "   \n\t ",
  // too big to build
  "SELECT zeroblob(1000000000)",
  "SELECT randomblob(1000000000)",
  "SELECT printf('%.*c', 2000000000, 'x')",
  "SELECT hex(zeroblob(500000000))",
  "SELECT length(replace(hex(zeroblob(100000000)), '0', 'xxxxxxxxxxxxxxxxxxxx'))",
];

/** Statements that run but must be stopped by the row cap (a result with `truncated`). */
const CUT_BY_ROWS: string[] = [
  "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT x FROM c",
  "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n LIMIT 100000) SELECT * FROM n a, n b, n c, n d",
  "SELECT * FROM chunks a, chunks b, chunks c, chunks d, chunks e, chunks f",
];

/** Statements that never yield a row: they must be stopped by the time cap. */
const STOPPED_BY_TIME: string[] = [
  // An endless CTE read twice is materialised first: no row ever comes.
  "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n) SELECT a.i, b.i FROM n a, n b",
  "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c",
  "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT x FROM c ORDER BY x DESC",
  "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n LIMIT 1000000) SELECT count(*) FROM n a, n b",
];

describe("read-only SQL on the SQLite engine", () => {
  let path: string;
  let engine: SqliteEngine;
  let store: Store;

  beforeAll(async () => {
    path = await seed();
    engine = createSqliteEngine({ dataDir: dir });
    store = await engine.openDatabase("notes");
  });
  afterAll(async () => {
    await engine?.close();
  });

  it("says it can, and answers queries over the documented views", async () => {
    expect(store.capabilities.readOnlySql).toBe(true);
    const byCollection = await store.querySql?.(
      "SELECT coalesce(collection, '(none)') AS collection, count(*) AS n FROM documents_v GROUP BY 1 ORDER BY 1",
      { maxRows: 100, timeoutMs: 5000 },
    );
    expect(byCollection).toEqual({
      columns: ["collection", "n"],
      rows: [
        ["(none)", 1],
        ["docs", 2],
      ],
      truncated: false,
    });
    const lang = await store.querySql?.(
      "SELECT id, json_extract(metadata, '$.lang') AS lang, length FROM documents_v WHERE json_extract(metadata, '$.lang') = 'ja'",
      { maxRows: 10, timeoutMs: 5000 },
    );
    expect(lang?.rows).toEqual([["doc-b", "ja", "東京は日本の首都です。\n人口は約1400万人です。".length]]);
    const chunks = await store.querySql?.("SELECT doc_id, idx, text, embedded FROM chunks_v WHERE doc_id = 'doc-b' ORDER BY idx", {
      maxRows: 10,
      timeoutMs: 5000,
    });
    expect(chunks?.rows).toEqual([
      ["doc-b", 0, "東京は日本の首都です。", 0],
      ["doc-b", 1, "人口は約1400万人です。", 0],
    ]);
    const collections = await store.querySql?.("SELECT name, description, enabled FROM collections_v", { maxRows: 10, timeoutMs: 5000 });
    expect(collections?.rows).toEqual([["docs", "Docs", 1]]);
    const files = await store.querySql?.("SELECT count(*) FROM files_v", { maxRows: 10, timeoutMs: 5000 });
    expect(files?.rows).toEqual([[0]]);
    const keyed = await store.querySql?.("VALUES (1, 'a'), (2, 'b')", { maxRows: 1, timeoutMs: 5000 });
    expect(keyed).toEqual({ columns: ["column1", "column2"], rows: [[1, "a"]], truncated: true, truncatedBy: "rows" });
  });

  it(`refuses ${REFUSED.length} hostile statements, stops ${CUT_BY_ROWS.length + STOPPED_BY_TIME.length} runaway ones, and leaves the file byte-for-byte unchanged`, async () => {
    await engine.close();
    const before = hash(path);
    expect(existsSync(`${path}-wal`)).toBe(false);
    engine = createSqliteEngine({ dataDir: dir });
    store = await engine.openDatabase("notes");
    const query = store.querySql?.bind(store) as NonNullable<Store["querySql"]>;
    expect(REFUSED.length + CUT_BY_ROWS.length + STOPPED_BY_TIME.length).toBeGreaterThanOrEqual(50);

    for (const template of REFUSED) {
      const sql = template
        .replace("ATTACHED", join(dir, "attached.db"))
        .replace("VACUUMED", join(dir, "copy.db"))
        .replace("WRITTEN", join(dir, "written"));
      const error = await query(sql, { maxRows: 20, timeoutMs: 2000 }).then(
        (result) => new Error(`ran: ${JSON.stringify(result).slice(0, 200)}`),
        (e: unknown) => e,
      );
      expect(StoreError.isInstance(error), `${sql}: ${String(error)}`).toBe(true);
      expect((error as StoreError).code, sql).toBe("INVALID_REQUEST");
    }
    for (const sql of CUT_BY_ROWS) {
      const result = await query(sql, { maxRows: 20, timeoutMs: 5000 });
      expect(result.truncated, sql).toBe(true);
      expect(result.rows.length, sql).toBe(20);
    }
    for (const sql of STOPPED_BY_TIME) {
      const started = performance.now();
      await expect(query(sql, { maxRows: 20, timeoutMs: 300 }), sql).rejects.toThrow(/300 ms time cap/);
      expect(performance.now() - started, sql).toBeLessThan(5000);
    }
    // After all that (and reader processes killed at the time cap), queries still work.
    expect((await query("SELECT count(*) FROM documents_v", { maxRows: 1, timeoutMs: 5000 })).rows).toEqual([[3]]);
    await engine.close();

    expect(hash(path)).toBe(before);
    expect(readdirSync(dir).sort()).toEqual(["notes.db"]);
    const raw = new Database(path, { readonly: true });
    try {
      expect(raw.prepare("SELECT id, title FROM documents ORDER BY id").all()).toEqual([
        { id: "doc-a", title: "title of doc-a" },
        { id: "doc-b", title: "title of doc-b" },
        { id: "doc-c", title: "title of doc-c" },
      ]);
    } finally {
      raw.close();
    }
    engine = createSqliteEngine({ dataDir: dir });
    store = await engine.openDatabase("notes");
  });

  it("names the problem: SQL errors, refusals and the caps", async () => {
    const query = store.querySql?.bind(store) as NonNullable<Store["querySql"]>;
    await expect(query("SELECT nope FROM documents_v", { maxRows: 5, timeoutMs: 5000 })).rejects.toThrow(/SQL error: no such column: nope/);
    await expect(query("DELETE FROM documents", { maxRows: 5, timeoutMs: 5000 })).rejects.toThrow(/SELECT, WITH or VALUES\); got DELETE/);
    await expect(query("SELECT 1; SELECT 2", { maxRows: 5, timeoutMs: 5000 })).rejects.toThrow(/only one statement/);
    await expect(query("WITH x AS (SELECT 1) DELETE FROM documents", { maxRows: 5, timeoutMs: 5000 })).rejects.toThrow(
      /would change the database/,
    );
    const blob = await query("SELECT x'00ff' AS b, 9007199254740993 AS big", { maxRows: 5, timeoutMs: 5000 });
    expect(blob.rows).toEqual([["base64:AP8=", 9007199254740992]]);
  });
});
