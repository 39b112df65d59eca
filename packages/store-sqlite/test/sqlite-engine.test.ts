import { spawn } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { buildKeywordQuery } from "@docdb/analyzer";
import { StoreError } from "@docdb/store";
import { makeDocument } from "@docdb/store/contract-suite";
import Database from "better-sqlite3";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createSqliteEngine } from "../src/index.js";

const migrationsDir = fileURLToPath(new URL("../migrations", import.meta.url));

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "docdb-sqlite-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe("the SQLite engine on real files", () => {
  it("one file per database, sqlite-vec loaded, WAL, every migration recorded once", async () => {
    const engine = createSqliteEngine({ dataDir: dir });
    await engine.openDatabase("notes", { create: true });
    await engine.close();
    const path = join(dir, "notes.db");
    expect(existsSync(path)).toBe(true);
    const raw = new Database(path, { readonly: true });
    let versions: string[] = [];
    try {
      expect(raw.pragma("journal_mode", { simple: true })).toBe("wal");
      versions = (raw.prepare("SELECT version FROM schema_migrations ORDER BY version").all() as { version: string }[]).map(
        (v) => v.version,
      );
      // Every shipped migration, in order (the folder the package reads them from).
      const shipped = readdirSync(migrationsDir)
        .filter((f) => f.endsWith(".sql"))
        .map((f) => f.replace(/\.sql$/, ""))
        .sort();
      expect(shipped.slice(0, 7)).toEqual([
        "0001_init",
        "0002_collections",
        "0003_contract",
        "0004_views",
        "0005_vector_log",
        "0006_memory_views",
        "0007_code_symbols",
      ]);
      expect(shipped).toContain("0008_write_indexes");
      expect(versions).toEqual(shipped);
    } finally {
      raw.close();
    }
    const again = createSqliteEngine({ dataDir: dir });
    await again.openDatabase("notes");
    await again.close();
    const check = new Database(path, { readonly: true });
    expect((check.prepare("SELECT count(*) AS n FROM schema_migrations").get() as { n: number }).n).toBe(
      readdirSync(migrationsDir).filter((f) => f.endsWith(".sql")).length,
    );
    check.close();
  });

  it("a database made before migration 0008 upgrades: its two unused indexes go, its rows stay", async () => {
    // Every migration but 0008, in a folder of their own: the schema today's writes need (later
    // migrations add columns they fill), with the two indexes 0008 drops still there.
    const before = join(dir, "migrations-before-0008");
    mkdirSync(before);
    for (const f of readdirSync(migrationsDir)) if (!f.startsWith("0008")) copyFileSync(join(migrationsDir, f), join(before, f));
    const old = createSqliteEngine({ dataDir: dir, migrationsDir: before });
    const store = await old.openDatabase("up", { create: true });
    const doc = makeDocument(["Indexes every insert paid for.", "Pending chunks are read by id."]);
    await store.writeDocuments([doc]);
    await old.close();
    const indexes = () => {
      const raw = new Database(join(dir, "up.db"), { readonly: true });
      try {
        return (
          raw.prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND name LIKE 'chunks_%'").pluck().all() as string[]
        ).sort();
      } finally {
        raw.close();
      }
    };
    expect(indexes()).toEqual(expect.arrayContaining(["chunks_doc", "chunks_pending", "chunks_pending_id"]));

    const upgraded = await createSqliteEngine({ dataDir: dir }).openDatabase("up");
    expect(indexes()).not.toContain("chunks_doc");
    expect(indexes()).not.toContain("chunks_pending");
    expect(indexes()).toContain("chunks_pending_id");
    expect(await upgraded.counts()).toMatchObject({ documents: 1, chunks: 2, pending: 2, keywordRows: 2 });
    expect((await upgraded.getChunks(doc.document.id)).map((c) => c.id)).toEqual(doc.chunks.map((c) => c.id));
    const hits = await upgraded.keywordSearch(buildKeywordQuery("pending chunks")!, { limit: 5 });
    expect(hits.map((h) => h.chunkId)).toEqual([doc.chunks[1]?.id]);
    await upgraded.close();
    const raw = new Database(join(dir, "up.db"), { readonly: true });
    expect(raw.prepare("SELECT version FROM schema_migrations WHERE version = '0008_write_indexes'").pluck().get()).toBe(
      "0008_write_indexes",
    );
    raw.close();
  });

  it("refuses an empty data folder and names that are not names", () => {
    expect(() => createSqliteEngine({ dataDir: "" })).toThrow(/non-empty/);
    const engine = createSqliteEngine({ dataDir: dir });
    expect(() => engine.path("../x")).toThrow(StoreError);
  });

  it("rebuilds the keyword index from chunk text when it was made by another analyzer version", async () => {
    const engine = createSqliteEngine({ dataDir: dir });
    const store = await engine.openDatabase("k", { create: true });
    const doc = makeDocument(["The experiments were running for weeks."]);
    await store.writeDocuments([doc]);
    await engine.close();
    // Simulate a database indexed by an older analyzer: empty index, old version recorded.
    const raw = new Database(join(dir, "k.db"));
    raw.exec("INSERT INTO chunks_fts (chunks_fts) VALUES ('delete-all'); UPDATE meta SET value = '1' WHERE key = 'analyzer_version'");
    raw.close();
    const reopened = await createSqliteEngine({ dataDir: dir }).openDatabase("k");
    expect((await reopened.counts()).keywordRows).toBe(1);
    const hits = await reopened.keywordSearch(buildKeywordQuery("run an experiment")!, { limit: 5 });
    expect(hits.map((h) => h.chunkId)).toEqual([doc.chunks[0]?.id]);
    await reopened.close();
  });

  it("a writer waits for another process's write lock, then gives up with CONFLICT naming that process", async () => {
    const engine = createSqliteEngine({ dataDir: dir, busyTimeoutMs: 300 });
    const store = await engine.openDatabase("busy", { create: true });
    const path = join(dir, "busy.db");
    // Another process takes the write lock and holds it until told to stop.
    const holder = spawn(
      process.execPath,
      [
        "-e",
        `const D = require(${JSON.stringify(createRequire(import.meta.url).resolve("better-sqlite3"))});
         const db = new D(${JSON.stringify(path)}); db.exec("BEGIN IMMEDIATE");
         process.stdout.write("locked\\n"); process.stdin.on("data", () => { db.exec("COMMIT"); process.exit(0); });`,
      ],
      { stdio: ["pipe", "pipe", "inherit"] },
    );
    await new Promise<void>((resolve) => holder.stdout?.once("data", () => resolve()));
    const error = await store.writeDocuments([makeDocument(["blocked"])]).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(StoreError.isInstance(error) && error.code).toBe("CONFLICT");
    expect((error as Error).message).toContain(`pid ${holder.pid}`);
    expect((await store.counts()).documents).toBe(0);
    // Once the lock is released, a waiting write goes through.
    const waiting = createSqliteEngine({ dataDir: dir, busyTimeoutMs: 30_000 });
    const patient = await waiting.openDatabase("busy");
    const write = patient.writeDocuments([makeDocument(["after the lock"])]);
    holder.stdin?.write("go\n");
    await write;
    expect((await patient.counts()).documents).toBe(1);
    await waiting.close();
    await engine.close();
  });
});
