import { existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openDocDB, silentLogger } from "@docdb/core";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { type PgliteServer, startPgliteServer } from "../../../packages/store-postgres/test/support/pglite-server.js";
import { CLI, runCli } from "./run-cli.js";

// One text model on every engine, through the built CLI: NUL and lone surrogates refused as
// INVALID_REQUEST naming the field; a SQLite database an older build wrote with such text copies
// to PostgreSQL (and SQLite) whole, the faulty characters replaced by U+FFFD and the rows named.

vi.setConfig({ testTimeout: 180_000 });

let root: string;
let pg: PgliteServer;
beforeAll(async () => {
  if (!existsSync(CLI)) throw new Error(`build the CLI first (pnpm build): ${CLI} is missing`);
  root = mkdtempSync(join(tmpdir(), "docdb-text-cli-"));
  pg = await startPgliteServer();
}, 120_000);
afterAll(async () => {
  await pg?.stop();
  rmSync(root, { recursive: true, force: true });
});

describe("text no engine stores", () => {
  it("is refused by the CLI as INVALID_REQUEST naming the field and the position", async () => {
    const dataDir = join(root, "refused");
    const nul = await runCli(["--data-dir", dataDir, "insert", "-"], { input: "abc\u0000def" });
    expect(nul.code).toBe(2);
    expect(nul.stderr).toMatch(/^INVALID_REQUEST: text contains a NUL character \(U\+0000\) at position 3: NUL is not text/);
    const meta = await runCli(["--data-dir", dataDir, "insert", "--text", "ok", "--meta", '{"a":{"b":"x\\ud800"}}']);
    expect(meta.code).toBe(2);
    expect(meta.stderr).toMatch(/^INVALID_REQUEST: metadata\.a\.b contains a lone surrogate \(U\+D800, .*\) at position 1/);
    const key = await runCli(["--data-dir", dataDir, "insert", "--text", "ok", "--meta", '{"k\\u0000":1}']);
    expect(key.stderr).toMatch(/^INVALID_REQUEST: the key "k\\u0000" in metadata contains a NUL character/);
    // On PostgreSQL the same words, not INTERNAL from the server.
    const onPg = await runCli(["--store", pg.url, "insert", "--db", "refused", "--create", "--text", "ok", "--meta", '{"n":"\\u0000"}']);
    expect(onPg.code).toBe(2);
    expect(onPg.stderr).toMatch(/^INVALID_REQUEST: metadata\.n contains a NUL character \(U\+0000\) at position 0/);
  });

  it("an older build's NUL and lone surrogates are copied SQLite → PostgreSQL as U+FFFD, every other row as it was, each repair named", async () => {
    const dataDir = join(root, "old");
    const folder = join(root, "folder");
    mkdirSync(folder);
    const docdb = openDocDB({ dataDir, embedding: null, logger: silentLogger() });
    const db = await docdb.database("vectors", { create: true });
    const ids: string[] = [];
    for (let i = 0; i < 7; i++) {
      ids.push((await db.insertDocument({ text: `before ${i} after`, title: `t${i}`, key: `k${i}`, metadata: { i } })).doc_id);
    }
    await db.collections.add({ name: "docs", description: "docs", source: folder });
    await docdb.close();
    const faulty = ids[3] as string;

    // What an older build let through, written straight into the file (test only, bypassing docdb).
    const raw = new Database(join(dataDir, "vectors.db"));
    raw
      .prepare("UPDATE documents SET title = 'a' || char(0) || 'b', content = 'before ' || char(0) || ' after', metadata = ? WHERE id = ?")
      .run('{"i":3,"note":"x\\u0000y","\\ud800":1,"tags":["\\udfff"]}', faulty);
    raw.prepare("UPDATE chunks SET text = 'before ' || char(0) || ' after' WHERE doc_id = ?").run(faulty);
    raw.prepare("UPDATE collections SET description = 'docs' || char(0)").run();
    raw.close();

    const copied = await runCli(["--data-dir", dataDir, "copy", "sqlite:vectors", `${pg.url}#copied`, "--json"]);
    expect(copied.code, copied.stderr).toBe(0);
    const result = JSON.parse(copied.stdout);
    expect(result).toMatchObject({ copied: 7, skipped: 0, collections: 1, repaired: 2 });
    expect(result.warnings).toEqual([
      'collection "docs": NUL or lone surrogates replaced by U+FFFD in description (no engine stores them)',
      `document ${faulty} (key "k3"): NUL or lone surrogates replaced by U+FFFD in document.title, document.content, document.metadata.note, document.metadata (a key), document.metadata.tags[0] and 1 more (no engine stores them)`,
    ]);
    // Copied again: the repaired rows compare equal to what the target holds, so nothing is written.
    const again = await runCli(["--data-dir", dataDir, "copy", "sqlite:vectors", `${pg.url}#copied`, "--json"]);
    expect(JSON.parse(again.stdout)).toMatchObject({ up_to_date: true, copied: 0, updated: 0, deleted: 0, skipped: 7, repaired: 0 });

    const get = async (id: string) => {
      const out = await runCli(["--store", pg.url, "get", id, "--db", "copied", "--json"]);
      expect(out.code, out.stderr).toBe(0);
      return JSON.parse(out.stdout);
    };
    const repaired = await get(faulty);
    expect(repaired).toMatchObject({
      title: "a\uFFFDb",
      text: "before \uFFFD after",
      metadata: { i: 3, note: "x\uFFFDy", "\uFFFD": 1, tags: ["\uFFFD"] },
    });
    expect(repaired.chunks.map((c: { start: number; end: number }) => [c.start, c.end])).toEqual([[0, 14]]);
    for (const [i, id] of ids.entries()) {
      if (id === faulty) continue;
      expect(await get(id)).toMatchObject({ title: `t${i}`, key: `k${i}`, text: `before ${i} after`, metadata: { i } });
    }

    // The human form says it too, and a SQLite target gets the same repair.
    const toSqlite = await runCli(["--data-dir", dataDir, "copy", "sqlite:vectors", `sqlite:${join(root, "back", "back.db")}`]);
    expect(toSqlite.code, toSqlite.stderr).toBe(0);
    expect(toSqlite.stdout).toMatch(/copied 7 new document\(s\).*; 2 with NUL or lone surrogates replaced by U\+FFFD/);
    expect(toSqlite.stderr).toContain(`warning: document ${faulty} (key "k3"): NUL or lone surrogates replaced by U+FFFD`);
  });
});
