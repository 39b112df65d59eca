// A document's fields (title, source, collection, metadata, dates) are read from the index that
// holds them (migration 0012), never from the row, whose large content would be walked page by
// page: counted in bytes this thread read from files (Linux's /proc/thread-self/io).
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { buildKeywordQuery } from "@docdb/analyzer";
import type { Store } from "@docdb/store";
import { makeDocument, random, randomUnit } from "@docdb/store/contract-suite";
import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { createSqliteEngine } from "../src/index.js";
import { storeFolder } from "./helpers/store-folder.js";

const migrationsDir = fileURLToPath(new URL("../migrations", import.meta.url));
const IO = "/proc/thread-self/io";
const DIMS = 8;
// Larger than the page cache (better-sqlite3 builds SQLite with 16 MB): a walk reads from the file.
const BOOK_BYTES = 24_000_000;
const folder = storeFolder("docdb-docfields-");

/** Bytes this thread has read from files so far (page cache included: SQLite reads with pread). */
const bytesRead = () => Number(/rchar:\s*(\d+)/.exec(readFileSync(IO, "utf8"))?.[1]);

async function measure<T>(read: () => Promise<T>): Promise<{ value: T; bytes: number }> {
  const before = bytesRead();
  const value = await read();
  return { value, bytes: bytesRead() - before };
}

/** A store holding one 24 MB book (three small chunks, with vectors) and a small note. */
async function library(migrations = migrationsDir): Promise<{ store: Store; book: ReturnType<typeof makeDocument> }> {
  const store = await createSqliteEngine({
    dataDir: folder.dir,
    migrationsDir: migrations,
    vectorIndex: { threshold: 100_000 },
  }).openDatabase("lib", { create: true });
  folder.track(store);
  await store.setEmbeddingInfo({ provider: "p", model: "m", dimensions: DIMS });
  const next = random(3);
  const vector = () => ({ vector: randomUnit(next, DIMS) });
  const book = makeDocument(
    ["whales of the northern sea", "the harpooner sleeps", "a long voyage ends"],
    { content: "x".repeat(BOOK_BYTES), collection: "books", source: "moby.txt", metadata: { author: "Melville" } },
    vector,
  );
  const note = makeDocument(["groceries: tea"], { collection: "notes", metadata: {} }, vector);
  await store.writeDocuments([book, note]);
  return { store, book };
}

describe.skipIf(!existsSync(IO))("reading a large document's fields", () => {
  it("hits, chunks by id, filtered finds and listings never read its content", async () => {
    const { store, book } = await library();
    const probe = randomUnit(random(9), DIMS);
    // The first search loads the vectors into memory: not what is measured.
    await store.vectorSearch(probe, { limit: 4 });
    const reads = {
      "vector hits with chunks": () => store.vectorSearch(probe, { limit: 4, withChunks: true }),
      "vector hits, filtered on collection": () =>
        store.vectorSearch(probe, { limit: 4, withChunks: true, filter: { op: "eq", field: { builtin: "collection" }, value: "books" } }),
      "vector hits, filtered on metadata": () =>
        store.vectorSearch(probe, { limit: 4, withChunks: true, filter: { op: "eq", field: { metadata: ["author"] }, value: "Melville" } }),
      "keyword hits, filtered on collection": () =>
        store.keywordSearch(buildKeywordQuery("harpooner")!, {
          limit: 4,
          filter: { op: "eq", field: { builtin: "collection" }, value: "books" },
        }),
      "chunks by id": () => store.chunkHits(book.chunks.map((c) => c.id)),
      "keyword hits, filtered on metadata": () =>
        store.keywordSearch(buildKeywordQuery("harpooner")!, {
          limit: 4,
          filter: { op: "eq", field: { metadata: ["author"] }, value: "Melville" },
        }),
      "a listing": () => store.listDocuments({ limit: 10 }),
    };
    // A read of the row walks the whole 24 MB; the fields alone are a few pages.
    const tooMuch: string[] = [];
    for (const [what, read] of Object.entries(reads)) {
      const { value, bytes } = await measure(read);
      expect(value.length, what).toBeGreaterThan(0);
      if (bytes >= BOOK_BYTES / 10) tooMuch.push(`${what}: ${bytes} bytes read`);
    }
    expect(tooMuch).toEqual([]);
    const [hit] = await store.chunkHits([book.chunks[1]!.id]);
    expect(hit).toMatchObject({ collection: "books", source: "moby.txt", metadata: { author: "Melville" }, title: book.document.title });
    const listed = (await store.listDocuments({ limit: 10 })).find((d) => d.id === book.document.id);
    expect(listed).toMatchObject({ length: BOOK_BYTES, chunkCount: 3, contentHash: book.document.contentHash, collection: "books" });
    // The content itself is still there for whoever asks for the document.
    expect((await store.getDocument(book.document.id))?.content.length).toBe(BOOK_BYTES);
  });

  it("a database made before migration 0012 gains the index on open, its rows unchanged", async () => {
    const before = join(folder.dir, "migrations-before-0012");
    mkdirSync(before);
    for (const f of readdirSync(migrationsDir)) if (f < "0012") copyFileSync(join(migrationsDir, f), join(before, f));
    // Written by today's code on the older schema (its reads of document fields need 0012).
    const { book } = await library(before);
    await folder.closeAll();
    const index = () => {
      const raw = new Database(join(folder.dir, "lib.db"), { readonly: true });
      try {
        return raw.prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND name = 'documents_fields'").pluck().get();
      } finally {
        raw.close();
      }
    };
    expect(index()).toBeUndefined();

    const upgraded = await createSqliteEngine({ dataDir: folder.dir }).openDatabase("lib");
    folder.track(upgraded);
    expect(index()).toBe("documents_fields");
    const listed = await upgraded.listDocuments({ limit: 10 });
    expect(listed.map((d) => [d.id, d.length, d.chunkCount, d.collection])).toEqual([
      [book.document.id, BOOK_BYTES, 3, "books"],
      [expect.any(String), "groceries: tea".length, 1, "notes"],
    ]);
    const { value, bytes } = await measure(() => upgraded.chunkHits(book.chunks.map((c) => c.id)));
    expect(value.map((c) => c.id)).toEqual(book.chunks.map((c) => c.id));
    expect(bytes).toBeLessThan(BOOK_BYTES / 10);
  });
});
