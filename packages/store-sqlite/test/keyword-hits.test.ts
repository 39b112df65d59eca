// Keyword hits with their chunks (`withChunks`): SQLite reads the first hits' rows by seq in the
// statement that gives their ids, below the keyword index's threshold (FTS5) and above it.
import { buildKeywordQuery } from "@docdb/analyzer";
import { describe, expect, it } from "vitest";
import type { SqliteStore } from "../src/index.js";
import { documents, keywordStores, write } from "./helpers/keyword-docs.js";

const ftsStores = keywordStores("docdb-kwhits-fts-");
const indexStores = keywordStores("docdb-kwhits-index-");

const QUERIES = ["apple", "river stone light", "奈良の仏像"];

async function check(store: SqliteStore): Promise<number> {
  let attachedInAll = 0;
  for (const text of QUERIES) {
    const query = buildKeywordQuery(text) as NonNullable<ReturnType<typeof buildKeywordQuery>>;
    const plain = await store.keywordSearch(query, { limit: 12 });
    expect(plain.some((h) => h.chunk !== undefined)).toBe(false);
    for (const withChunks of [true, 3, 0] as const) {
      const hits = await store.keywordSearch(query, { limit: 12, withChunks });
      expect(hits.map(({ chunk: _chunk, ...h }) => h)).toEqual(plain);
      // Exactly the first ones asked for come with their chunk, as chunkHits reads it.
      const asked = withChunks === true ? hits.length : withChunks;
      expect(hits.map((h) => h.chunk !== undefined)).toEqual(hits.map((_, i) => i < asked));
      const attached = hits.filter((h) => h.chunk !== undefined);
      expect(attached.map((h) => h.chunk)).toEqual(await store.chunkHits(attached.map((h) => h.chunkId)));
      attachedInAll += attached.length;
    }
  }
  return attachedInAll;
}

describe("keyword hits with their chunks", () => {
  it("attaches the first hits' chunks, from FTS5 and from the keyword index", async () => {
    const docs = documents(200, 11);
    const fts = await ftsStores.open(Number.MAX_SAFE_INTEGER);
    await write(fts, docs);
    expect(await check(fts)).toBeGreaterThan(10);

    const indexed = await indexStores.open(1);
    await write(indexed, docs);
    const probe = buildKeywordQuery("apple") as NonNullable<ReturnType<typeof buildKeywordQuery>>;
    await indexed.keywordSearch(probe, { limit: 1 });
    await indexed.keywords.settled();
    expect(indexed.keywords.search(probe, 1, undefined), "the keyword index answers").toBeDefined();
    expect(await check(indexed)).toBeGreaterThan(10);
  });
});
