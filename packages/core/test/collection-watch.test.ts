import { appendFileSync, mkdtempSync, rmSync, unlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { copyFixture } from "../../../test/support/collection-fixtures.js";
import { type CollectionWatcher, type DocDB, openDocDB, silentLogger, type WatchEvent } from "../src/index.js";

let dataDir: string;
let docdb: DocDB;
let watcher: CollectionWatcher | undefined;
let events: WatchEvent[];

beforeEach(() => {
  dataDir = mkdtempSync(join(tmpdir(), "docdb-watch-"));
  docdb = openDocDB({ dataDir, embedding: null, logger: silentLogger() });
  events = [];
});
afterEach(async () => {
  await watcher?.close();
  watcher = undefined;
  await docdb.close();
  rmSync(dataDir, { recursive: true, force: true });
});

async function until<T>(find: () => T | undefined, what: string, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const found = find();
    if (found !== undefined) return found;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; events: ${JSON.stringify(events.map((e) => e.type))}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

function imported(collection: string, reason: string, after = 0) {
  return () =>
    events
      .slice(after)
      .find(
        (e): e is Extract<WatchEvent, { type: "imported" }> => e.type === "imported" && e.collection === collection && e.reason === reason,
      );
}

describe("CollectionWatcher", () => {
  it("catches up at start, re-imports a burst of edits after the debounce, and follows collections being added and disabled", async () => {
    const db = await docdb.database("vectors", { create: true });
    const docs = copyFixture("ja-docs");
    await db.collections.add({ name: "docs", description: "API docs", source: docs });
    watcher = db.collections.watch({ debounceMs: 150, pollMs: 50, onEvent: (e) => events.push(e) });
    await watcher.start();
    expect(watcher.names).toEqual(["docs"]);
    expect(imported("docs", "start")()?.summary).toMatchObject({ added: 4 });

    // Three writes inside the debounce window: one re-import covering all of them.
    const mark = events.length;
    appendFileSync(join(docs, "faq.txt"), "追加の質問です。\n");
    writeFileSync(join(docs, "guide/new.md"), "# 新しいページ\n\n内容です。\n");
    unlinkSync(join(docs, "README.md"));
    const change = await until(imported("docs", "change", mark), "a re-import");
    await watcher.idle();
    await new Promise((r) => setTimeout(r, 400));
    const changes = events.slice(mark).filter((e) => e.type === "imported" && e.reason === "change");
    const total = changes.reduce(
      (sum, e) =>
        e.type === "imported" ? { a: sum.a + e.summary.added, u: sum.u + e.summary.updated, r: sum.r + e.summary.removed } : sum,
      { a: 0, u: 0, r: 0 },
    );
    expect(total).toEqual({ a: 1, u: 1, r: 1 });
    expect(change.summary.unchanged).toBeLessThanOrEqual(2);
    expect((await db.collections.files("docs")).map((f) => f.path)).toEqual([
      "faq.txt",
      "guide/auth.md",
      "guide/errors.md",
      "guide/new.md",
    ]);

    // A collection added while watching is picked up (and caught up); a disabled one is dropped.
    const code = copyFixture("ts-py-project");
    await db.collections.add({ name: "code", description: "source", source: code });
    await until(imported("code", "start"), "catch-up of the new collection");
    expect(watcher.names).toEqual(["code", "docs"]);
    await db.collections.setEnabled("docs", false);
    await until(() => events.find((e) => e.type === "unwatched" && e.collection === "docs"), "docs unwatched");
    expect(watcher.names).toEqual(["code"]);

    const before = events.length;
    appendFileSync(join(docs, "faq.txt"), "無視されるはずの追記。\n");
    appendFileSync(join(code, "src/config.ts"), "\nexport const WATCHED = true;\n");
    const codeChange = await until(imported("code", "change", before), "re-import of code");
    expect(codeChange.summary.changed.updated).toEqual(["src/config.ts"]);
    expect(events.slice(before).some((e) => e.type === "imported" && e.collection === "docs")).toBe(false);
  });
});
