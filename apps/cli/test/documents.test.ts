// Documents through the built `docdb` binary: insert FILE (a PDF by its extension), stdin with
// --type, a web page by URL from a local server, import of a folder with good and bad files
// (--strict), find showing pages, get --page.
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { tinyPdf } from "../../../test/support/tiny-pdf.js";
import { CLI, cliAt, runCli } from "./run-cli.js";

let dataDir: string;
let folder: string;
beforeAll(() => {
  if (!existsSync(CLI)) throw new Error(`build the CLI first (pnpm build): ${CLI} is missing`);
});
beforeEach(() => {
  dataDir = mkdtempSync(join(tmpdir(), "docdb-cli-docs-"));
  folder = mkdtempSync(join(tmpdir(), "docdb-cli-docs-src-"));
});
afterEach(() => {
  rmSync(dataDir, { recursive: true, force: true });
  rmSync(folder, { recursive: true, force: true });
});

const { docdb, json } = cliAt(() => dataDir);

const lines = (word: string) =>
  Array.from({ length: 12 }, (_, i) => (i === 6 ? `The ${word} is described here.` : `Filler line ${i + 1} of the manual.`));
const manual = () => tinyPdf([lines("gyroscope"), lines("flywheel"), lines("escapement")], { title: "Clock Manual" });

interface Passage {
  doc_id: string;
  locator?: { page?: number };
  source?: string;
}

describe("docdb insert / find / get with a PDF", () => {
  it("extracts a PDF by its extension, shows the page of each passage and returns one page", async () => {
    const file = join(folder, "manual.pdf");
    writeFileSync(file, manual());
    const inserted = await json<{ doc_id: string; format: string; chunk_count: number }>("insert", file);
    expect(inserted.format).toBe("pdf");
    const found = await json<Passage[]>("find", "flywheel", "--mode", "keyword");
    expect(found[0]).toMatchObject({ doc_id: inserted.doc_id, locator: { page: 2 }, source: file });
    const text = await docdb("find", "flywheel", "--mode", "keyword");
    expect(text.stdout).toContain(`${file} p. 2`);
    const filtered = await json<Passage[]>("find", "filler", "--mode", "keyword", "--filter", '{"locator.page":3}');
    expect(filtered.length).toBeGreaterThan(0);
    expect(filtered.every((r) => r.locator?.page === 3)).toBe(true);

    const page = await json<{ text: string; page: { number: number; of: number }; title: string }>("get", inserted.doc_id, "--page", "2");
    expect(page).toMatchObject({ page: { number: 2, of: 3 }, title: "Clock Manual" });
    expect(page.text).toContain("flywheel");
    const shown = await docdb("get", inserted.doc_id, "--page", "2");
    expect(shown.stdout).toContain("showing:   page 2 of 3");
    const missing = await docdb("get", inserted.doc_id, "--page", "7");
    expect(missing.code).not.toBe(0);
    expect(missing.stderr).toMatch(/has 3 pages; there is no page 7/);
  });

  it("reads a document from stdin with --type", async () => {
    const result = await runCli(["--data-dir", dataDir, "insert", "-", "--type", "pdf", "--json"], { input: manual().toString("latin1") });
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ format: "pdf" });
    const bad = await runCli(["--data-dir", dataDir, "insert", "-", "--type", "doc"], { input: "x" });
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toMatch(/unknown document type "doc": use one of pdf, docx/);
  });
});

describe("docdb import of a folder with bad files", () => {
  it("imports the good files, reports each bad one with its reason, and exits 1 only with --strict", async () => {
    mkdirSync(join(folder, "sub"));
    writeFileSync(join(folder, "notes.md"), "# Notes\n\nThe tortoise note.\n");
    writeFileSync(join(folder, "sub", "manual.pdf"), manual());
    writeFileSync(join(folder, "broken.pdf"), "%PDF-1.4\nnot really\n");
    writeFileSync(join(folder, "scan.pdf"), tinyPdf([null]));
    expect((await docdb("collection", "add", "-n", "docs", "-d", "manuals and notes for the tests", "-s", folder)).code).toBe(0);
    const plain = await docdb("import", "-n", "docs");
    expect(plain.code, plain.stderr).toBe(0);
    expect(plain.stdout).toMatch(/2 added.*2 file\(s\) failed/s);
    expect(plain.stdout).toMatch(/failed: scan\.pdf: .*no text layer — OCR it first/);
    expect(plain.stderr).toMatch(/docdb: failed: broken\.pdf: /);
    const strict = await docdb("import", "-n", "docs", "--strict", "--json");
    expect(strict.code).toBe(1);
    const summary = JSON.parse(strict.stdout) as { unchanged: number; failed: { path: string; reason: string; message: string }[] };
    expect(summary.unchanged).toBe(2);
    expect(summary.failed.map((f) => [f.path, f.reason]).sort()).toEqual([
      ["broken.pdf", expect.any(String)],
      ["scan.pdf", "no_text_layer"],
    ]);
    const found = await json<Passage[]>("find", "gyroscope", "--mode", "keyword");
    expect(found[0]?.locator).toEqual({ page: 1 });
  });
});

describe("docdb insert URL", () => {
  let server: Server;
  let base: string;
  let version = 1;
  beforeAll(async () => {
    server = createServer((req, res) => {
      if (req.url === "/page.html") {
        res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
        res.end(
          `<!doctype html><html><head><title>Tide Tables</title></head><body>` +
            `<nav><a href="/">Home</a> <a href="/about">About us</a> <a href="/contact">Contact the harbour office</a></nav>` +
            `<main><article><h1>Tide tables</h1><p>High water at the harbour mouth comes at 06:12, version ${version}.</p>` +
            `<p>The spring tides of the equinox run a metre higher than the neaps, and the pilot boats wait for slack water.</p></article></main>` +
            `<footer>Copyright the harbour office</footer></body></html>`,
        );
      } else if (req.url === "/manual.pdf") {
        res.writeHead(200, { "content-type": "application/pdf" });
        res.end(manual());
      } else {
        res.writeHead(404);
        res.end();
      }
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it("stores a page's main text under its URL as source and key, and inserting it again updates it", async () => {
    const url = `${base}/page.html`;
    const first = await json<{ doc_id: string; format: string; replaced: boolean }>("insert", url);
    expect(first).toMatchObject({ format: "html", replaced: false });
    const doc = await json<{ text: string; source: string; key: string; title: string }>("get", first.doc_id);
    expect(doc).toMatchObject({ source: url, key: url, title: "Tide Tables" });
    expect(doc.text).toContain("High water at the harbour mouth");
    expect(doc.text).not.toContain("About us");
    version = 2;
    const again = await json<{ doc_id: string; replaced: boolean }>("insert", url);
    expect(again).toEqual(expect.objectContaining({ doc_id: first.doc_id, replaced: true }));
    expect((await json<{ text: string }>("get", first.doc_id)).text).toContain("version 2");
    const pdf = await json<{ format: string }>("insert", `${base}/manual.pdf`);
    expect(pdf.format).toBe("pdf");
    const missing = await docdb("insert", `${base}/gone.html`);
    expect(missing.stderr).toMatch(/answered 404/);
  });
});
