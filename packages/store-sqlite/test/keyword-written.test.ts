// The keyword index takes the rows this process's committed writes gave FTS5 instead of analysing
// the chunk text again; rows of rolled-back writes and of other connections' writes are derived anew.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { buildKeywordQuery } from "@docdb/analyzer";
import type { DocumentWrite, KeywordHit } from "@docdb/store";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createSqliteEngine, type SqliteStore } from "../src/index.js";
import { WrittenRows } from "../src/keyword-live/written.js";

const WORDS = "apple river stone light quantum protein cell membrane signal garden winter market engine cloud forest".split(" ");
const QUERIES = ["apple", "quantum protein", "river stone light", "東京 大学", "zebra", "yak", "zebra yak garden"];

let dir: string;
const engines: { close(): Promise<void> }[] = [];
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "docdb-kwwritten-"));
});
afterEach(async () => {
  for (const e of engines.splice(0)) await e.close();
  rmSync(dir, { recursive: true, force: true });
});

async function open(threshold: number): Promise<SqliteStore> {
  const engine = createSqliteEngine({ dataDir: dir, keywordIndex: { threshold } });
  engines.push(engine);
  return (await engine.openDatabase("k", { create: true })) as SqliteStore;
}

/** Documents of 1–3 chunks of words from WORDS (and `extra`), some with a title, some with Japanese. */
function documents(count: number, prefix: string, extra = ""): DocumentWrite[] {
  return Array.from({ length: count }, (_, i) => {
    const chunks = Array.from({ length: 1 + (i % 3) }, (_, c) => {
      const words = Array.from({ length: 6 + ((i * 7 + c) % 20) }, (_, w) => WORDS[(i * 5 + c * 3 + w * 11) % WORDS.length]);
      const text = `${words.join(" ")} ${extra} ${i % 4 === 0 ? "東京の大学で研究する" : ""}`.trim();
      return { id: `${prefix}${i}-${c}`, idx: c, text, start: 0, end: text.length };
    });
    const title = i % 2 === 0 ? `${WORDS[i % WORDS.length]} ${extra}`.trim() : undefined;
    const id = `${prefix}${i}`;
    return {
      upsertByKey: true,
      document: { id, key: id, title, content: chunks.map((c) => c.text).join("\n"), contentHash: id, metadata: {} },
      chunks,
    };
  });
}

function chunksOf(docs: DocumentWrite[]): number {
  return docs.reduce((n, d) => n + d.chunks.length, 0);
}

/** What the index answers for each query (undefined when it cannot: the test fails then). */
function indexAnswers(store: SqliteStore): unknown[][] {
  return QUERIES.map((text) => {
    const hits = store.keywords.search(buildKeywordQuery(text) as never, 20, undefined);
    if (!hits) throw new Error(`the keyword index did not answer "${text}"`);
    return hits;
  });
}

/** FTS5's answers through a store that keeps no index. */
async function ftsAnswers(store: SqliteStore): Promise<KeywordHit[][]> {
  const out: KeywordHit[][] = [];
  for (const text of QUERIES) {
    const hits = store.keywords.search(buildKeywordQuery(text) as never, 20, undefined);
    expect(hits, "a store below its threshold answers with FTS5").toBeUndefined();
    out.push(await store.keywordSearch(buildKeywordQuery(text) as never, { limit: 20 }));
  }
  return out;
}

/** A find brings the index up to date (in the background when far behind); waits for it. */
async function catchUp(store: SqliteStore): Promise<void> {
  await store.keywordSearch(buildKeywordQuery("apple") as never, { limit: 1 });
  await store.keywords.settled();
  await store.keywordSearch(buildKeywordQuery("apple") as never, { limit: 1 });
}

/** The index's hits as FTS5's hits are compared: chunk ids in order, scores. */
async function sameAsFts(indexed: SqliteStore, fts: SqliteStore): Promise<void> {
  const viaIndex: { id: string; score: number }[][] = [];
  for (const text of QUERIES) {
    const hits = await indexed.keywordSearch(buildKeywordQuery(text) as never, { limit: 20 });
    viaIndex.push(hits.map((h) => ({ id: h.chunkId, score: h.score })));
  }
  const viaFts = (await ftsAnswers(fts)).map((hits) => hits.map((h) => ({ id: h.chunkId, score: h.score })));
  expect(viaIndex).toEqual(viaFts);
  indexAnswers(indexed); // and it was the index that answered
}

describe("keyword rows handed from this process's writes to the keyword index", () => {
  it("a catch-up after this store's own writes analyses nothing again, and answers as FTS5 does", { timeout: 60_000 }, async () => {
    const indexed = await open(1);
    await indexed.writeDocuments(documents(200, "a"));
    await catchUp(indexed);
    const before = indexed.keywords.rowCounts();

    // More than a find replays itself (a background catch-up), then a few (the find's own catch-up).
    const more = documents(300, "b");
    for (let i = 0; i < more.length; i += 100) await indexed.writeDocuments(more.slice(i, i + 100));
    await catchUp(indexed);
    const few = documents(5, "c", "zebra");
    await indexed.writeDocuments(few);
    await catchUp(indexed);

    const after = indexed.keywords.rowCounts();
    expect(after.derived - before.derived, "rows analysed again").toBe(0);
    expect(after.fromWrites - before.fromWrites, "rows taken from the writes").toBe(chunksOf(more) + chunksOf(few));
    await sameAsFts(indexed, await open(Number.MAX_SAFE_INTEGER));
  });

  it("a build after this store's own writes (the index not yet in memory) analyses none of them again", { timeout: 60_000 }, async () => {
    const indexed = await open(1);
    const docs = documents(300, "a");
    for (let i = 0; i < docs.length; i += 100) await indexed.writeDocuments(docs.slice(i, i + 100));
    expect(indexed.keywords.rowCounts()).toEqual({ derived: 0, fromWrites: 0 });
    await catchUp(indexed);
    expect(indexed.keywords.rowCounts()).toEqual({ derived: 0, fromWrites: chunksOf(docs) });
    await sameAsFts(indexed, await open(Number.MAX_SAFE_INTEGER));
  });

  it("never takes rows of a write that rolled back (its seqs and log ids go to the next writes)", { timeout: 60_000 }, async () => {
    const indexed = await open(1);
    const other = await open(Number.MAX_SAFE_INTEGER);
    await indexed.writeDocuments(documents(50, "a"));
    await catchUp(indexed);

    // Three zebra chunks are written (and their keyword rows), then the second document fails: rolled back.
    const [kept] = documents(1, "a");
    const failing: DocumentWrite[] = [
      {
        document: { id: "z", content: "zebra", contentHash: "z", metadata: {} },
        chunks: ["zebra one", "zebra two", "zebra three"].map((text, idx) => ({ id: `z-${idx}`, idx, text, start: 0, end: 9 })),
      },
      { ...(kept as DocumentWrite), chunks: [{ ...(kept as DocumentWrite).chunks[0], vector: [1, 2, 3] } as never] },
    ];
    await expect(indexed.writeDocuments(failing)).rejects.toThrow(/embedding model/);

    // The same seqs (and keyword_log ids) go to one chunk of this store and two of another connection.
    await indexed.writeDocuments(documents(1, "y", "yak"));
    await other.writeDocuments(documents(2, "x", "yak").map((d) => ({ ...d, chunks: d.chunks.slice(0, 1) })));
    await catchUp(indexed);
    expect(indexAnswers(indexed)[QUERIES.indexOf("zebra")]).toEqual([]);
    await sameAsFts(indexed, other);
  });

  it("rows written by another connection are analysed again, and answer as FTS5 does", { timeout: 60_000 }, async () => {
    const indexed = await open(1);
    const other = await open(Number.MAX_SAFE_INTEGER);
    await indexed.writeDocuments(documents(100, "a"));
    await catchUp(indexed);
    const before = indexed.keywords.rowCounts();
    const theirs = documents(40, "o", "yak");
    await other.writeDocuments(theirs);
    await other.deleteDocuments(["a3", "a4"]);
    await catchUp(indexed);
    const after = indexed.keywords.rowCounts();
    expect(after.fromWrites - before.fromWrites).toBe(0);
    expect(after.derived - before.derived).toBe(chunksOf(theirs));
    await sameAsFts(indexed, other);
  });

  it("keeps rows within its bound, oldest dropped first, and only a row whose log entry is the chunk's last", () => {
    const rows = new WrittenRows(100);
    const row = (seq: number, logId: number) => ({ seq, logId, title: "", body: "x".repeat(30) });
    rows.add([row(1, 10), row(2, 11), row(3, 12)]);
    rows.add([row(4, 13)]); // 120 characters: the oldest goes
    expect(rows.size).toBe(3);
    expect(rows.take(1, 10)).toBeUndefined();
    expect(rows.take(2, 14), "logged again since (a title change, a delete)").toBeUndefined();
    expect(rows.take(2, 11), "taken or not, a row is used once").toBeUndefined();
    expect(rows.take(3, 12)).toEqual({ seq: 3, title: "", body: "x".repeat(30) });
    rows.dropThrough(13);
    expect(rows.size).toBe(0);
  });
});
