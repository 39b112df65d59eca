// Documents that are not text, through core: a PDF inserted with its pages as chunk locators
// (find shows them, filters use them, getDocument reads one page), its own title and metadata;
// a folder of good and bad files imported with each bad one named and the rest kept.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { tinyPdf } from "../../../test/support/tiny-pdf.js";
import { type Database, type DocDB, openDocDB, silentLogger } from "../src/index.js";

let dataDir: string;
let folder: string;
const open: DocDB[] = [];

beforeEach(() => {
  dataDir = mkdtempSync(join(tmpdir(), "docdb-docs-"));
  folder = mkdtempSync(join(tmpdir(), "docdb-docs-src-"));
});
afterEach(async () => {
  for (const d of open.splice(0)) await d.close();
  rmSync(dataDir, { recursive: true, force: true });
  rmSync(folder, { recursive: true, force: true });
});

async function database(): Promise<Database> {
  const docdb = openDocDB({ dataDir, embedding: null, logger: silentLogger() });
  open.push(docdb);
  return docdb.database("vectors", { create: true });
}

/** Lines of filler prose around one distinctive word, so that each page fills a chunk or more. */
function pageLines(word: string, n: number): string[] {
  return Array.from({ length: n }, (_, i) =>
    i === Math.floor(n / 2)
      ? `The ${word} appears on this page only, in line ${i + 1}.`
      : `Line ${i + 1} of ordinary filler text about nothing much.`,
  );
}

const THREE_PAGES = () =>
  tinyPdf([pageLines("aardvark", 14), pageLines("zeppelin", 14), pageLines("quasar", 14)], {
    title: "Field Guide",
    author: "Ada Example",
    created: "D:20240301120000Z",
  });

describe("a PDF inserted through core", () => {
  it("keeps each chunk's page, shows it on passages, filters by it, reads one page, and takes the file's title and metadata", async () => {
    const db = await database();
    const path = join(folder, "guide.pdf");
    writeFileSync(path, THREE_PAGES());
    const inserted = await db.insertFile(path, { metadata: { team: "docs" } });
    expect(inserted.format).toBe("pdf");
    const doc = await db.getDocument(inserted.doc_id);
    expect(doc.title).toBe("Field Guide");
    expect(doc.source).toBe(path);
    expect(doc.metadata).toMatchObject({ format: "pdf", author: "Ada Example", team: "docs" });
    // Text in page order, and every chunk has a page.
    expect(doc.text.indexOf("aardvark")).toBeLessThan(doc.text.indexOf("zeppelin"));
    expect(doc.text.indexOf("zeppelin")).toBeLessThan(doc.text.indexOf("quasar"));
    expect(doc.chunks.every((c) => typeof c.locator?.page === "number")).toBe(true);

    const found = await db.findSimilar({ query: "zeppelin", mode: "keyword" });
    expect(found.results[0]?.locator).toEqual({ page: 2 });
    const onPage3 = await db.findSimilar({ query: "filler", mode: "keyword", top_k: 100, filter: { "locator.page": { $gte: 3 } } });
    expect(onPage3.results.length).toBeGreaterThan(0);
    expect(onPage3.results.every((r) => (r.locator?.page ?? 0) >= 3)).toBe(true);
    expect((await db.findSimilar({ query: "aardvark", mode: "keyword", filter: { "locator.page": 3 } })).results).toEqual([]);

    const page2 = await db.getDocument(inserted.doc_id, { page: 2 });
    expect(page2.page).toEqual({ number: 2, of: 3 });
    expect(page2.text).toContain("zeppelin");
    expect(page2.text).not.toContain("aardvark appears");
    expect(page2.chunks.length).toBeGreaterThan(0);
    await expect(db.getDocument(inserted.doc_id, { page: 9 })).rejects.toThrow(/has 3 pages; there is no page 9/);

    // The caller's title wins over the file's.
    const titled = await db.insertBytes({ bytes: THREE_PAGES(), type: "pdf", title: "Mine", key: "guide" });
    expect((await db.getDocument(titled.doc_id)).title).toBe("Mine");
  });

  it("refuses a text document asked for by page, naming why", async () => {
    const db = await database();
    const { doc_id } = await db.insertDocument({ text: "plain words" });
    await expect(db.getDocument(doc_id, { page: 1 })).rejects.toThrow(/has no pages/);
  });
});

describe("a folder of documents imported", () => {
  it("imports the good files, names each bad one with its reason, keeps unchanged ones and re-extracts changed ones", async () => {
    const db = await database();
    writeFileSync(join(folder, "notes.md"), "# Notes\n\nThe pangolin note.\n");
    writeFileSync(join(folder, "guide.pdf"), THREE_PAGES());
    writeFileSync(join(folder, "broken.pdf"), "%PDF-1.4\nthis is not a PDF body at all\n");
    writeFileSync(join(folder, "scan.pdf"), tinyPdf([null, null]));
    await db.collections.add({ name: "docs", description: "manuals and notes for the tests", source: folder });
    const reports: string[] = [];
    const first = await db.collections.import("docs", { onProgress: (p) => p.failure && reports.push(p.failure.path) });
    expect(first.added).toBe(2);
    expect(first.failed.map((f) => f.path).sort()).toEqual(["broken.pdf", "scan.pdf"]);
    expect(reports.sort()).toEqual(["broken.pdf", "scan.pdf"]);
    const scan = first.failed.find((f) => f.path === "scan.pdf");
    expect(scan?.reason).toBe("no_text_layer");
    expect(scan?.message).toMatch(/no text layer — OCR it first/);
    const found = await db.findSimilar({ query: "zeppelin", mode: "keyword" });
    expect(found.results[0]).toMatchObject({ source: "guide.pdf", locator: { page: 2 }, metadata: { path: "guide.pdf", format: "pdf" } });

    const again = await db.collections.import("docs", {});
    expect(again).toMatchObject({ added: 0, updated: 0, unchanged: 2 });
    writeFileSync(join(folder, "guide.pdf"), tinyPdf([pageLines("narwhal", 5)], { title: "Field Guide 2" }));
    const changed = await db.collections.import("docs", {});
    expect(changed).toMatchObject({ updated: 1, unchanged: 1 });
    expect((await db.findSimilar({ query: "narwhal", mode: "keyword" })).results[0]?.locator).toEqual({ page: 1 });
    expect((await db.findSimilar({ query: "zeppelin", mode: "keyword" })).results).toEqual([]);
  });
});

describe("the watcher", () => {
  it("extracts a PDF dropped into a watched folder, and a changed one again", async () => {
    const db = await database();
    writeFileSync(join(folder, "notes.md"), "# Notes\n\nwatched\n");
    await db.collections.add({ name: "watched", description: "a watched folder of documents", source: folder });
    const events: string[] = [];
    const watcher = db.collections.watch({ debounceMs: 100, pollMs: 50, onEvent: (e) => events.push(e.type) });
    const until = async (check: () => Promise<boolean>, what: string) => {
      const deadline = Date.now() + 30_000;
      while (!(await check())) {
        if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}: ${events.join(",")}`);
        await new Promise((r) => setTimeout(r, 50));
      }
    };
    try {
      await watcher.start();
      writeFileSync(join(folder, "dropped.pdf"), tinyPdf([pageLines("okapi", 4), pageLines("ibex", 4)]));
      const hit = async (word: string) => (await db.findSimilar({ query: word, mode: "keyword" })).results[0];
      await until(async () => (await hit("ibex"))?.locator?.page === 2, "the dropped PDF");
      writeFileSync(join(folder, "dropped.pdf"), tinyPdf([pageLines("tapir", 4)]));
      await until(async () => (await hit("tapir"))?.locator?.page === 1, "the changed PDF");
      expect(await hit("ibex")).toBeUndefined();
    } finally {
      await watcher.close();
    }
  });
});
