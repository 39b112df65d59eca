import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type Database, type DocDB, DocDBError, openDocDB, silentLogger } from "../src/index.js";

// One text model on every engine, at core's input: NUL and lone surrogates are refused once, by
// core, as INVALID_REQUEST naming the field (as the caller knows it) and the position.

let dataDir: string;
let docdb: DocDB;
let db: Database;

beforeEach(async () => {
  dataDir = mkdtempSync(join(tmpdir(), "docdb-text-"));
  docdb = openDocDB({ dataDir, embedding: null, logger: silentLogger() });
  db = await docdb.database("vectors", { create: true });
});
afterEach(async () => {
  await docdb.close();
  rmSync(dataDir, { recursive: true, force: true });
});

async function refusal(work: Promise<unknown>): Promise<string> {
  const error = await work.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(DocDBError.isInstance(error), `expected a DocDBError, got ${String(error)}`).toBe(true);
  expect((error as DocDBError).code).toBe("INVALID_REQUEST");
  return (error as DocDBError).message;
}

describe("text no engine stores, refused at core's input", () => {
  it("names the field and the position of a NUL or lone surrogate in an insert", async () => {
    const cases: [Parameters<Database["insertDocument"]>[0], RegExp][] = [
      [{ text: "前\ud800後 abc \udfff end" }, /^text contains a lone surrogate \(U\+D800, .*\) at position 1: .*not valid Unicode/],
      [{ text: "abc\u0000" }, /^text contains a NUL character \(U\+0000\) at position 3: NUL is not text/],
      [{ text: "ok", title: "a\u0000b" }, /^title contains a NUL character \(U\+0000\) at position 1/],
      [{ text: "ok", title: "x\udfff" }, /^title contains a lone surrogate \(U\+DFFF, .*\) at position 1/],
      [{ text: "ok", key: "notes/\ud83d" }, /^key contains a lone surrogate \(U\+D83D, .*\) at position 6/],
      [{ text: "ok", source: "a.md\u0000" }, /^source contains a NUL character \(U\+0000\) at position 4/],
      [{ text: "ok", collection: "c\ud800" }, /^collection contains a lone surrogate/],
      [{ text: "ok", metadata: { tags: ["fine", "b\u0000"] } }, /^metadata\.tags\[1\] contains a NUL character \(U\+0000\) at position 1/],
      [{ text: "ok", metadata: { a: { b: "\udc00" } } }, /^metadata\.a\.b contains a lone surrogate \(U\+DC00, .*\) at position 0/],
      [{ text: "ok", metadata: { "k\u0000": 1 } }, /^the key "k\\u0000" in metadata contains a NUL character \(U\+0000\) at position 1/],
      [{ text: "ok", metadata: { a: { "\ud800": 1 } } }, /^the key "\\ud800" in metadata\.a contains a lone surrogate/],
    ];
    for (const [input, message] of cases) expect(await refusal(db.insertDocument(input)), JSON.stringify(input)).toMatch(message);
    expect((await db.status()).documents).toBe(0);
    // Whole pairs (emoji, 𠮷) and U+FFFD are text.
    const stored = await db.insertDocument({ text: "前😀後 𠮷 \uFFFD", title: "𠮷", metadata: { "😀": "𠮷" } });
    expect((await db.getDocument(stored.doc_id)).text).toBe("前😀後 𠮷 \uFFFD");
  });

  it("refuses them in a batch entry by entry, and in queries, QA and collections", async () => {
    const batch = await db.insertDocuments([{ text: "good" }, { text: "ok", title: "t\u0000" }]);
    expect(batch).toMatchObject({ inserted: 1, failed: 1 });
    expect(JSON.stringify(batch.results[1])).toMatch(/title contains a NUL character/);

    expect(await refusal(db.findSimilar({ query: "a\u0000", mode: "keyword" }))).toMatch(/^query contains a NUL character/);
    expect(await refusal(db.findSimilar({ query: "a", mode: "keyword", filter: { tag: { $in: ["x", "y\ud800"] } } }))).toMatch(
      /^filter\.tag\.\$in\[1\] contains a lone surrogate/,
    );
    expect(await refusal(db.listDocuments({ filter: { "k\u0000": 1 } }))).toMatch(/^the key "k\\u0000" in filter contains a NUL/);
    expect(await refusal(db.memory.storeQa({ question: "q\ud800", answer: "a", topic: "t" }))).toMatch(
      /^question contains a lone surrogate .* at position 1/,
    );
    expect(await refusal(db.memory.storeQa({ question: "q", answer: "a\u0000", topic: "t" }))).toMatch(/^answer contains a NUL character/);
    expect(await refusal(db.memory.storeKnowledge({ text: "k", topic: "t\udfff" }))).toMatch(/^topic contains a lone surrogate/);

    const folder = join(dataDir, "docs");
    mkdirSync(folder);
    expect(await refusal(db.collections.add({ name: "docs", description: "d\u0000", source: folder }))).toMatch(
      /^description contains a NUL character/,
    );
    expect(await refusal(db.collections.add({ name: "docs", description: "docs", source: `${folder}\ud800` }))).toMatch(
      /^source folder contains a lone surrogate/,
    );
  });

  it("imports a folder whose file holds a NUL past its first 8 KB: that file skipped and named, the rest imported", async () => {
    const folder = join(dataDir, "docs");
    mkdirSync(folder);
    writeFileSync(join(folder, "good.md"), "# Good\n\nplain text\n");
    writeFileSync(join(folder, "log.txt"), `${"line of a log\n".repeat(1000)}\u0000after`);
    writeFileSync(join(folder, "image.txt"), Buffer.from([0x89, 0x50, 0x00, 0x01]));
    await db.collections.add({ name: "docs", description: "docs", source: folder });
    const summary = await db.collections.import("docs");
    expect(summary).toMatchObject({ added: 1, skipped: { binary: 2 } });
    expect(summary.warnings).toContain("log.txt: skipped, it holds a NUL byte at byte 14000, which no engine stores as text");
  });
});
