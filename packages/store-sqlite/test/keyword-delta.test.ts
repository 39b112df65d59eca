// The keyword index's delta file (<name>.db.keywords.delta): saves append the changed rows instead
// of writing the whole index, the next open loads file + delta, a grown delta is compacted into a
// new file, and a torn, damaged or foreign delta still gives FTS5's answers (the log replays it).
import { existsSync, openSync, readdirSync, readFileSync, readlinkSync, statSync, truncateSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { buildKeywordQuery } from "@docdb/analyzer";
import { describe, expect, it } from "vitest";
import type { KeywordIndexOptions, SqliteStore } from "../src/index.js";
import { compactSteps, type IndexedRow, KeywordIndex } from "../src/keyword-index/index.js";
import { answers, documents, keywordStores, write } from "./helpers/keyword-docs.js";

const FTS_ONLY = Number.MAX_SAFE_INTEGER;
const stores = keywordStores("docdb-kwdelta-");
const { open, closeAll } = stores;
const Q = buildKeywordQuery("apple river") as NonNullable<ReturnType<typeof buildKeywordQuery>>;

async function ready(store: SqliteStore): Promise<void> {
  await store.keywordSearch(Q, { limit: 1 });
  await store.keywords.settled();
  expect(store.keywords.search(Q, 1, undefined), "the keyword index answers").toBeDefined();
}

/**
 * Writes `count` one-chunk documents one at a time (deleting one of the d21 documents every
 * fifth), a find after each (catching up, saving); with `wait: false` the saves those finds
 * start run in the background meanwhile (only a turn of the event loop between writes).
 */
async function trickle(store: SqliteStore, count: number, from = 0, wait = true): Promise<void> {
  for (let i = from; i < from + count; i++) {
    const text = `apple river stone ${i}`;
    await store.writeDocuments([
      {
        document: { id: `t${i}`, content: text, contentHash: `t${i}`, metadata: {} },
        chunks: [{ id: `t${i}-0`, idx: 0, text, start: 0, end: text.length }],
      },
    ]);
    if (i % 5 === 2) await store.deleteDocuments([`d21-${i}`]);
    await store.keywordSearch(Q, { limit: 5 });
    if (wait) await store.keywords.settled();
    else await new Promise((resolve) => setImmediate(resolve));
  }
}

/** FTS5's answers, given by each store and, after all are closed, by the next open's keyword index. */
async function answerAsFts5(...live: SqliteStore[]): Promise<void> {
  const truth = await answers(await open(FTS_ONLY));
  for (const store of live) expect(await answers(store)).toEqual(truth);
  await closeAll();
  const reopened = await open(1);
  await ready(reopened);
  expect(await answers(reopened)).toEqual(truth);
}

/** Two stores on one database (as two processes would hold it): 150 documents written by the first, both indexes ready. */
async function twoStores(first: KeywordIndexOptions, second: KeywordIndexOptions): Promise<[SqliteStore, SqliteStore]> {
  const a = await open(1, first);
  await write(a, documents(150, 21));
  await ready(a);
  const b = await open(1, second);
  await ready(b);
  return [a, b];
}

/** Spill files (a compaction's positions and postings, removed from the folder at once) this process still holds open. */
function spillsOpen(): string[] {
  if (process.platform !== "linux") return [];
  return readdirSync("/proc/self/fd")
    .map((fd) => {
      try {
        return readlinkSync(`/proc/self/fd/${fd}`);
      } catch {
        return "";
      }
    })
    .filter((target) => target.startsWith(stores.dir) && (target.includes("-positions") || target.includes("-postings")));
}

/** The index file's header (format, log position, checksum). */
function header(file: string): { highWater: number; checksum: string } {
  const bytes = readFileSync(file);
  const length = bytes.readUInt32LE(16);
  return JSON.parse(bytes.subarray(20, 20 + length).toString("utf8"));
}

describe("the keyword index's delta file", () => {
  it("holds the changes after the file: saves leave the file as it is, and the next open loads both", async () => {
    const store = await open(1, { saveAfterChanges: 3, compactAfterChanges: 1_000_000 });
    await write(store, documents(200, 21));
    await ready(store);
    const file = store.keywords.file;
    const delta = `${file}.delta`;
    const base = header(file);
    const size = statSync(file).size;
    expect(existsSync(delta)).toBe(false);
    await trickle(store, 30);
    // The file is the one written after the build; the changes went to the delta.
    expect(header(file)).toEqual(base);
    expect(existsSync(delta)).toBe(true);
    const status = store.keywords.status();
    expect(status.bytes).toBe(size + statSync(delta).size);
    await closeAll();
    // Another process's status (the index not loaded) counts the delta's records: nothing is behind.
    const idle = await open(1);
    expect(idle.keywords.status()).toMatchObject({ state: "ready", backlog: 0 });
    await closeAll();

    const reopened = await open(1);
    await ready(reopened);
    // Every change came from the delta: no row was analysed again from its text.
    expect(reopened.keywords.rowCounts().derived).toBe(0);
    expect(await answers(reopened)).toEqual(await answers(await open(FTS_ONLY)));
    // Dropping the database removes its delta too.
    await closeAll();
    const engine = stores.engine();
    expect(await engine.dropDatabase("k")).toBe(true);
    expect(existsSync(delta)).toBe(false);
  });

  it("is compacted into a new file once it holds compactAfterChanges rows, then starts again", async () => {
    const store = await open(1, { saveAfterChanges: 3, compactAfterChanges: 20 });
    await write(store, documents(200, 21));
    await ready(store);
    const file = store.keywords.file;
    const first = header(file);
    await trickle(store, 12);
    expect(header(file)).toEqual(first);
    await trickle(store, 30, 12);
    const second = header(file);
    expect(second.highWater).toBeGreaterThan(first.highWater);
    expect(second.checksum).not.toBe(first.checksum);
    // The answers are FTS5's before and after another open (file and delta alike).
    await answerAsFts5(store);
  });

  it("torn, damaged or of another file: the next open answers as FTS5 does, replaying the log", async () => {
    const store = await open(1, { saveAfterChanges: 3, compactAfterChanges: 1_000_000 });
    await write(store, documents(200, 21));
    await ready(store);
    await trickle(store, 30);
    await closeAll();
    const delta = join(stores.dir, "k.db.keywords.delta");
    const original = readFileSync(delta);
    const truth = await answers(await open(FTS_ONLY));
    await closeAll();

    const cases: [string, () => void, RegExp | undefined][] = [
      ["torn", () => truncateSync(delta, original.length - 7), undefined],
      [
        "damaged",
        () => {
          // Still valid JSON, another word: only the record's checksum tells.
          const bytes = Buffer.from(original);
          const at = bytes.lastIndexOf("river");
          bytes[at + 2] = "x".charCodeAt(0);
          writeFileSync(delta, bytes);
        },
        /delta .*k\.db\.keywords\.delta has a damaged record/,
      ],
      [
        "of another file",
        () => writeFileSync(delta, Buffer.from(original.toString("latin1").replace(/"base":"sha256:./, '"base":"sha256:x'), "latin1")),
        undefined,
      ],
    ];
    for (const [, spoil, warning] of cases) {
      spoil();
      const warnings: string[] = [];
      const reopened = await open(1, { warn: (m) => warnings.push(m) });
      await ready(reopened);
      // Some rows (at least the last record's) came from the log, analysed again.
      expect(reopened.keywords.rowCounts().derived).toBeGreaterThan(0);
      expect(await answers(reopened)).toEqual(truth);
      if (warning) expect(warnings.join("\n")).toMatch(warning);
      await closeAll();
      writeFileSync(delta, original);
    }
  });
});

describe("saves while finds and writes go on", () => {
  it.each([
    ["in memory", {}],
    // Positions left in the file: read from there a term at a time, the new ones spilled to a temporary file.
    ["in the file", { positionsInFileFrom: 0 }],
  ])(
    "a compaction in steps (positions %s) takes the rows written while it ran, and answers as FTS5 does",
    {
      timeout: 120_000,
    },
    async (_, positions: KeywordIndexOptions) => {
      // Every save compacts, a step of 50 postings at a time, yielding after each.
      const store = await open(1, { saveAfterChanges: 3, compactAfterChanges: 1, compactStep: 50, ...positions });
      await write(store, documents(200, 21));
      await ready(store);
      const file = store.keywords.file;
      const first = header(file);
      // Writes and finds without waiting for the saves the finds start in the background.
      await trickle(store, 40, 0, false);
      await store.keywords.settled();
      expect(header(file).highWater).toBeGreaterThan(first.highWater);
      // The index in memory (no catch-up left to do) holds every row: the compaction's and those after.
      await store.keywordSearch(Q, { limit: 1 });
      expect(store.keywords.status().backlog).toBe(0);
      const truth = await answers(await open(FTS_ONLY));
      expect(await answers(store)).toEqual(truth);
      // No spill file is left open once its positions are in the new index file.
      await store.keywords.settled();
      expect(spillsOpen(), "spill files still open").toEqual([]);
      await closeAll();
      const reopened = await open(1, positions);
      await ready(reopened);
      expect(await answers(reopened)).toEqual(truth);
    },
  );

  it("an index a compaction's result could not be read back into is not used: FTS5 answers, then the file is read again", {
    timeout: 120_000,
  }, async () => {
    // Positions left in the file: each compaction's result is read back from the new file into the index's buffer.
    const store = await open(1, { saveAfterChanges: 3, compactAfterChanges: 1, positionsInFileFrom: 0 });
    await write(store, documents(200, 21));
    await ready(store);
    await trickle(store, 8);
    const index = (store.keywords as unknown as { live: { index: KeywordIndex } }).live.index;
    expect(index.buffer, "the index is read from its file into a buffer of its own").not.toBeNull();
    // A read back that fails part-way (the file cut short under it) after the index's buffer was overwritten.
    const bytes = readFileSync(store.keywords.file);
    const bodyAt = 20 + bytes.readUInt32LE(16);
    const torn = join(stores.dir, "torn.keywords");
    writeFileSync(torn, bytes.subarray(0, bodyAt + 100));
    expect(() => index.install(openSync(torn, "r"), bodyAt)).toThrow(/ended at/);
    expect(index.broken).toBe(true);
    const truth = await answers(await open(FTS_ONLY));
    expect(await answers(store), "answers while the broken index is dropped").toEqual(truth);
    await store.keywords.settled();
    expect(store.keywords.search(Q, 1, undefined), "the index is read from its file again").toBeDefined();
    expect(await answers(store)).toEqual(truth);
    // Saves and compactions go on, and the next open answers as FTS5 does.
    await trickle(store, 8, 100);
    await answerAsFts5(store);
  });

  it("two stores saving in turn append to one delta file after each other's records (neither rewrites it)", {
    timeout: 120_000,
  }, async () => {
    const [a, b] = await twoStores(
      { saveAfterChanges: 2, compactAfterChanges: 1_000_000 },
      { saveAfterChanges: 2, compactAfterChanges: 1_000_000 },
    );
    const file = a.keywords.file;
    const base = header(file).checksum;
    await trickle(a, 3, 0);
    const first = readFileSync(`${file}.delta`);
    const { ino } = statSync(`${file}.delta`);
    for (let round = 0; round < 4; round++) {
      await trickle(b, 3, 100 + 10 * round);
      await trickle(a, 3, 200 + 10 * round);
    }
    // Appended in place (a rewrite is a new file, renamed over it), the first records as they were.
    const after = readFileSync(`${file}.delta`);
    expect(statSync(`${file}.delta`).ino).toBe(ino);
    expect(after.length).toBeGreaterThan(first.length);
    expect(after.subarray(0, first.length).equals(first)).toBe(true);
    expect(header(file).checksum, "no compacted file was written").toBe(base);
    await answerAsFts5(a, b);
  });

  it("a delta file removed under a store that saved to it: the next save writes a compacted file", async () => {
    const store = await open(1, { saveAfterChanges: 2, compactAfterChanges: 1_000_000 });
    await write(store, documents(150, 21));
    await ready(store);
    const file = store.keywords.file;
    const base = header(file).checksum;
    await trickle(store, 4);
    expect(existsSync(`${file}.delta`)).toBe(true);
    writeFileSync(`${file}.delta`, "");
    await trickle(store, 4, 50);
    // The rows saved before are held by no delta any more: the index is written whole instead.
    expect(header(file).checksum).not.toBe(base);
    await answerAsFts5(store);
  });

  it("two processes' stores writing and saving in turn: each answers as FTS5 does, and so does the next open", {
    timeout: 120_000,
  }, async () => {
    const [a, b] = await twoStores({ saveAfterChanges: 2, compactAfterChanges: 9 }, { saveAfterChanges: 2 });
    for (let round = 0; round < 6; round++) {
      for (const [store, name] of [
        [a, "a"],
        [b, "b"],
      ] as const) {
        const id = `${name}${round}`;
        const text = `apple river ${name} ${round}`;
        await store.writeDocuments([
          {
            document: { id, content: text, contentHash: id, metadata: {} },
            chunks: [{ id: `${id}-0`, idx: 0, text, start: 0, end: text.length }],
          },
        ]);
        await store.keywordSearch(Q, { limit: 5 });
        await store.keywords.settled();
      }
    }
    await ready(a);
    await ready(b);
    await answerAsFts5(a, b);
  });
});

describe("compaction in steps", () => {
  it("takes the rows added and removed while it ran, applied again to its result", () => {
    const row = (seq: number, round: number): IndexedRow => ({
      seq,
      title: seq % 4 === 0 ? `title ${seq % 7}` : "",
      body: `apple ${seq % 5 === 0 ? "river" : "stone"} word${(seq * round) % 13} light ${seq % 3 === 0 ? "quantum" : ""}`,
    });
    const live = KeywordIndex.empty();
    for (let seq = 1; seq <= 3000; seq++) live.add(row(seq, 1));
    live.compact();
    for (let seq = 3001; seq <= 3400; seq++) live.add(row(seq, 1));
    for (let seq = 1; seq <= 300; seq += 3) live.remove(seq);
    // A snapshot is compacted a step at a time while rows are added, replaced and removed.
    const steps = compactSteps(live.snapshot(), 500);
    const after = new Map<number, IndexedRow | null>();
    let next = steps.next();
    let seq = 0;
    let stepsTaken = 0;
    while (!next.done) {
      for (let i = 0; i < 5; i++) {
        seq = (seq * 7919 + 17) % 3600;
        const changed = seq % 3 === 0 ? null : row(seq + 1, 2);
        if (changed) live.add(changed);
        else live.remove(seq + 1);
        after.set(seq + 1, changed);
      }
      stepsTaken++;
      next = steps.next();
    }
    expect(stepsTaken).toBeGreaterThan(1);
    live.adopt(next.value);
    for (const [s, r] of after) {
      if (r) live.add(r);
      else live.remove(s);
    }
    // The same rows as an index built from scratch: the same answers.
    const truth = KeywordIndex.empty();
    for (let s = 1; s <= 3600; s++) {
      const changed = after.get(s);
      if (changed === null || (changed === undefined && (s > 3400 || (s <= 300 && s % 3 === 1)))) continue;
      truth.add(changed ?? row(s, 1));
    }
    expect(live.rows).toBe(truth.rows);
    for (const text of ["apple", "river stone", "quantum light", "title", "word3 apple"]) {
      const query = buildKeywordQuery(text) as NonNullable<ReturnType<typeof buildKeywordQuery>>;
      const options = { ln: Math.log, totals: { rows: truth.rows, tokens: truth.tokens } };
      expect(live.search(query, 50, options)).toEqual(truth.search(query, 50, options));
    }
  });
});
