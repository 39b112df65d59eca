// The keyword index beside a SQLite database (<name>.db.keywords): the same answers as FTS5 (with
// filters, and writes by another connection), its lifecycle, damage, and kill -9 during saves and builds.
import { existsSync, readdirSync, readFileSync, readlinkSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { buildKeywordQuery } from "@docdb/analyzer";
import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import type { KeywordIndexOptions, SqliteStore } from "../src/index.js";
import { answers, documents, keywordStores, write } from "./helpers/keyword-docs.js";
import { builtEngine, exitOf, runScript } from "./helpers/processes.js";

/** A threshold no test database reaches: FTS5 answers alone (today's path). */
const FTS_ONLY = Number.MAX_SAFE_INTEGER;
const stores = keywordStores("docdb-kwlive-");
const { open, closeAll } = stores;

/** Starts the index with a find, waits for it in the background, and checks that the index answers now. */
async function ready(store: SqliteStore): Promise<void> {
  const query = buildKeywordQuery("apple") as NonNullable<ReturnType<typeof buildKeywordQuery>>;
  await store.keywordSearch(query, { limit: 1 });
  await store.keywords.settled();
  expect(store.keywords.search(query, 1, undefined), "the keyword index answers").toBeDefined();
}

async function keywordStatus(store: SqliteStore) {
  const status = await store.vectorIndex.status();
  if (!status.keyword) throw new Error("no keyword index status");
  return status.keyword;
}

describe("the keyword index beside the database", () => {
  it("answers exactly as FTS5 does: ids, order, scores, with filters, after writes by another connection", async () => {
    const indexed = await open(1);
    await write(indexed, documents(300, 7));
    const fts = await open(FTS_ONLY);
    await ready(indexed);
    const first = await answers(indexed);
    expect(first.flat().length).toBeGreaterThan(100);
    expect(first).toEqual(await answers(fts));

    // Another connection writes and deletes; the index catches up through keyword_log.
    await write(fts, documents(80, 11));
    await fts.deleteDocuments(Array.from({ length: 40 }, (_, i) => `d7-${i * 5}`));
    await write(fts, documents(20, 7).slice(0, 20)); // rewrites of deleted and kept documents
    // More changes than a find replays itself: FTS5 answers while the background catches up.
    expect(indexed.keywords.search(buildKeywordQuery("apple") as never, 1, undefined)).toBeUndefined();
    await indexed.keywords.settled();
    expect(indexed.keywords.search(buildKeywordQuery("apple") as never, 1, undefined)).toBeDefined();
    expect(await answers(indexed)).toEqual(await answers(fts));
    const status = await keywordStatus(indexed);
    expect(status.state).toBe("ready");
    expect(status.rows).toBe((await fts.counts()).chunks);
  });

  it("keeps no index below the threshold; above it builds one in the background, saves it, and loads it on the next open", async () => {
    const small = await open(10_000);
    await write(small, documents(50, 3));
    await answers(small);
    expect((await keywordStatus(small)).state).toBe("none");
    expect(existsSync(small.keywords.file)).toBe(false);

    const store = await open(20);
    expect((await keywordStatus(store)).state).toBe("missing");
    const query = buildKeywordQuery("apple") as NonNullable<ReturnType<typeof buildKeywordQuery>>;
    // The find that starts the build is answered by FTS5 (it does not wait).
    expect(store.keywords.search(query, 5, undefined)).toBeUndefined();
    await store.keywords.settled();
    const saved = await keywordStatus(store);
    expect(saved).toMatchObject({ state: "ready", rows: (await store.counts()).chunks });
    expect(saved.bytes).toBeGreaterThan(0);
    await closeAll();

    const again = await open(20);
    await ready(again);
    expect((await keywordStatus(again)).savedAt).toBe(saved.savedAt);
    expect(await answers(again)).toEqual(await answers(await open(FTS_ONLY)));

    // Saved on close after each change and loaded again: headers of every length load (none set aside).
    for (let round = 0; round < 8; round++) {
      const store = await open(20);
      await write(store, documents(1 + round, 100 + round));
      await ready(store);
      await closeAll();
    }
    expect(readdirSync(stores.dir).filter((f) => f.includes(".corrupt-"))).toEqual([]);
  });

  it("builds a deleted file again, and sets a damaged one aside with a warning, answering correctly throughout", async () => {
    const warnings: string[] = [];
    const store = await open(1, { warn: (m) => warnings.push(m) });
    await write(store, documents(200, 5));
    await ready(store);
    await closeAll();
    const file = join(stores.dir, "k.db.keywords");

    rmSync(file);
    let reopened = await open(1);
    const truth = await answers(await open(FTS_ONLY));
    expect(await answers(reopened)).toEqual(truth);
    await ready(reopened);
    expect(existsSync(file)).toBe(true);
    expect(await answers(reopened)).toEqual(truth);
    await closeAll();

    const bytes = readFileSync(file);
    bytes[bytes.length - 10] = (bytes[bytes.length - 10] as number) ^ 0xff;
    writeFileSync(file, bytes);
    reopened = await open(1, { warn: (m) => warnings.push(m) });
    expect(await answers(reopened)).toEqual(truth);
    await ready(reopened);
    expect(warnings.join("\n")).toMatch(
      /keyword index .*k\.db\.keywords does not match the checksum in its header.*set aside as .*corrupt-/,
    );
    expect(readdirSync(stores.dir).some((f) => f.startsWith("k.db.keywords.corrupt-"))).toBe(true);
    expect(await answers(reopened)).toEqual(truth);
    const status = await keywordStatus(reopened);
    expect(status.damaged?.rebuilt).toBe(true);
  });

  it("`index rebuild` builds the keyword index too, waiting for it and writing the file", async () => {
    const store = await open(20);
    await write(store, documents(60, 9));
    expect((await keywordStatus(store)).state).toBe("missing");
    const rebuilt = await store.vectorIndex.rebuild();
    expect(rebuilt.keyword).toMatchObject({ state: "ready", rows: (await store.counts()).chunks });
    expect(existsSync(store.keywords.file)).toBe(true);
    const query = buildKeywordQuery("quantum protein") as NonNullable<ReturnType<typeof buildKeywordQuery>>;
    // Answered by the index at once (no background start): the same as FTS5's.
    const hits = store.keywords.search(query, 10, undefined);
    expect(hits).toBeDefined();
    expect(await answers(store)).toEqual(await answers(await open(FTS_ONLY)));
  });

  it.runIf(process.platform === "linux")(
    "reads positions from its file once saved or loaded (not memory), and closes it with the store",
    async () => {
      // Open descriptors of this process on the keyword index file.
      const openOn = (file: string) =>
        readdirSync("/proc/self/fd").filter((fd) => {
          try {
            return readlinkSync(`/proc/self/fd/${fd}`) === file;
          } catch {
            return false;
          }
        }).length;
      // Small positions stay in memory by default; here every size goes to the file.
      const small = await open(20);
      await write(small, documents(60, 9));
      await small.vectorIndex.rebuild();
      expect(openOn(small.keywords.file), "small: positions in memory").toBe(0);
      await closeAll();
      const store = await open(20, { positionsInFileFrom: 0 });
      await store.vectorIndex.rebuild();
      const file = store.keywords.file;
      expect(openOn(file), "built and saved: positions read from the file").toBe(1);
      const fts = await answers(await open(FTS_ONLY));
      expect(await answers(store)).toEqual(fts);
      await closeAll();
      expect(openOn(file), "closed with the store").toBe(0);
      const reopened = await open(20, { positionsInFileFrom: 0 });
      await ready(reopened);
      expect(openOn(file), "loaded: positions read from the file").toBe(1);
      expect(await answers(reopened)).toEqual(fts);
      await closeAll();
      expect(openOn(file)).toBe(0);
    },
  );

  it("builds the index again when the analyser version changes", async () => {
    const store = await open(1);
    await write(store, documents(150, 9));
    await ready(store);
    const before = await keywordStatus(store);
    await closeAll();
    // As a database last opened by a docdb with another analyser: its keyword rows are refilled.
    const db = new Database(join(stores.dir, "k.db"));
    db.prepare("UPDATE meta SET value = '0' WHERE key = 'analyzer_version'").run();
    db.close();
    const reopened = await open(1);
    const query = buildKeywordQuery("apple") as NonNullable<ReturnType<typeof buildKeywordQuery>>;
    expect(reopened.keywords.search(query, 5, undefined)).toBeUndefined();
    await reopened.keywords.settled();
    const after = await keywordStatus(reopened);
    expect(after.state).toBe("ready");
    expect(after.savedAt).not.toBe(before.savedAt);
    expect(await answers(reopened)).toEqual(await answers(await open(FTS_ONLY)));
  });
});

describe("kill -9 and the keyword index", () => {
  /** Runs `body` in a child process over the test database and kills it once it printed `lines` lines. */
  async function killAfter(body: string, lines: number, options: KeywordIndexOptions = { saveAfterChanges: 3 }): Promise<void> {
    const script = `
      import { createSqliteEngine } from ${JSON.stringify(builtEngine())};
      const Q = ${JSON.stringify(buildKeywordQuery("apple river"))};
      const store = await createSqliteEngine({ dataDir: ${JSON.stringify(stores.dir)}, keywordIndex: { threshold: 1, ...${JSON.stringify(options)} } }).openDatabase("k");
      ${body}`;
    let seen = 0;
    let enough: () => void = () => {};
    const reached = new Promise<void>((resolve) => {
      enough = resolve;
    });
    const proc = runScript(script, () => {
      if (++seen >= lines) enough();
    });
    const exit = exitOf(proc);
    await Promise.race([reached, exit]);
    proc.kill("SIGKILL");
    expect((await exit).signal).toBe("SIGKILL");
  }

  // Saves append to the delta file (compacting when it holds 12 rows), only compact, or only append.
  it.each([
    ["delta records and compactions", { saveAfterChanges: 3 }],
    ["compactions in steps", { saveAfterChanges: 3, compactAfterChanges: 1 }],
    ["delta records", { saveAfterChanges: 3, compactAfterChanges: 1_000_000 }],
  ])("during saves (%s) and catch-ups: the next open answers as FTS5 does", { timeout: 120_000 }, async (_, options) => {
    const store = await open(1);
    await write(store, documents(200, 13));
    await ready(store);
    await closeAll();
    // Writes one document at a time and finds after each (catching up, saving every 3 changes).
    await killAfter(
      `
      for (let i = 0; ; i++) {
        const text = "apple river stone " + i;
        await store.writeDocuments([{ document: { id: "x" + i, content: text, contentHash: "x" + i, metadata: {} },
          chunks: [{ id: "x" + i + "-0", idx: 0, text, start: 0, end: text.length }] }]);
        if (i % 7 === 3) await store.deleteDocuments(["d13-" + i]);
        await store.keywordSearch(Q, { limit: 5 });
        console.log(String(i));
      }`,
      60,
      options,
    );
    const reopened = await open(1);
    await ready(reopened);
    expect(await answers(reopened)).toEqual(await answers(await open(FTS_ONLY)));
    // A temporary file the killed process was writing is removed.
    expect(readdirSync(stores.dir).filter((f) => f.includes(".keywords.tmp-"))).toEqual([]);
  });

  it("during a build: the next open answers as FTS5 does, and builds it", { timeout: 120_000 }, async () => {
    const store = await open(FTS_ONLY);
    await write(store, documents(1500, 17));
    await closeAll();
    await killAfter(
      `
      await store.keywordSearch(Q, { limit: 5 });
      console.log("building");
      await new Promise(() => {});`,
      1,
    );
    const reopened = await open(1);
    const truth = await answers(await open(FTS_ONLY));
    expect(await answers(reopened)).toEqual(truth);
    await ready(reopened);
    expect(await answers(reopened)).toEqual(truth);
  });
});
