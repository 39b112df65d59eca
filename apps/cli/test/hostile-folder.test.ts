// A folder of 20 good files and one of each hostile kind, imported by the built `docdb`: the 20
// are imported, each bad one is reported with its reason, the exit code is non-zero only with
// --strict, and the process's memory stays bounded (peak RSS measured while it runs).
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makePdf } from "../../../packages/extract/test/fixtures/pdf.js";
import { entityBombDocx, manyEntriesDocx, simpleDocx, sparseFile, zipBombDocx } from "../../../test/support/hostile-files.js";
import { startNode } from "../../../test/support/node-process.js";
import { CAN_MEASURE_RSS, watchPeakRss } from "../../../test/support/peak-rss.js";
import { tinyPdf } from "../../../test/support/tiny-pdf.js";
import { CLI, runCli } from "./run-cli.js";

let root: string;
let dataDir: string;
let folder: string;
beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), "docdb-hostile-"));
  dataDir = join(root, "data");
  folder = join(root, "files");
  mkdirSync(join(folder, "good"), { recursive: true });
  mkdirSync(join(folder, "bad"), { recursive: true });
  const line = (i: number, p: number) => `Page ${p} of document ${i}: the lighthouse keeper logs the weather at dawn.`;
  for (let i = 0; i < 8; i++)
    writeFileSync(join(folder, "good", `note-${i}.md`), `# Note ${i}\n\nThe heron number ${i} waits by the river.\n`);
  for (let i = 0; i < 8; i++) writeFileSync(join(folder, "good", `report-${i}.pdf`), tinyPdf([[line(i, 1)], [line(i, 2)]]));
  for (let i = 0; i < 3; i++) writeFileSync(join(folder, "good", `letter-${i}.docx`), simpleDocx([`Letter ${i} about the harbour dues.`]));
  // A 300-page PDF is a good file too: it must import, page by page, in bounded memory.
  writeFileSync(
    join(folder, "good", "long.pdf"),
    tinyPdf(Array.from({ length: 300 }, (_, p) => Array.from({ length: 40 }, (_, l) => `Page ${p + 1} line ${l + 1}: tidal records.`))),
  );
  writeFileSync(join(folder, "bad", "scanned.pdf"), tinyPdf([null, null]));
  writeFileSync(join(folder, "bad", "locked.pdf"), makePdf({ pages: [{ lines: ["Minutes of the board."] }], userPassword: "s3cret" }));
  writeFileSync(join(folder, "bad", "corrupt.pdf"), "%PDF-1.7\n1 0 obj << /Type /Catalog >> garbage without xref\n");
  writeFileSync(join(folder, "bad", "corrupt.docx"), Buffer.concat([Buffer.from("PK\x03\x04"), Buffer.alloc(200, 7)]));
  writeFileSync(join(folder, "bad", "bomb.docx"), zipBombDocx(600));
  writeFileSync(join(folder, "bad", "entries.docx"), manyEntriesDocx(20_000));
  writeFileSync(join(folder, "bad", "entities.docx"), entityBombDocx());
  sparseFile(join(folder, "bad", "huge.pdf"), 200 * 1024 * 1024);
}, 120_000);
afterAll(() => rmSync(root, { recursive: true, force: true }));

const env = { ...process.env, DOCDB_EMBEDDING: "none", OPENAI_API_KEY: "", DOCDB_LOG_LEVEL: "warn" };

describe("docdb import of a folder with hostile files", () => {
  it("imports the 20 good files, names each bad one with its reason, and stays under 500 MB", async () => {
    expect(
      (await runCli(["--data-dir", dataDir, "collection", "add", "-n", "hostile", "-d", "good and hostile documents", "-s", folder])).code,
    ).toBe(0);
    const run = startNode(CLI, ["--data-dir", dataDir, "import", "-n", "hostile", "--json"], { env });
    const rss = watchPeakRss(run.child.pid as number);
    const result = await run.done;
    const peakMb = rss.stop();
    expect(result.code, result.stderr).toBe(0);
    const summary = JSON.parse(result.stdout) as { added: number; failed: { path: string; reason: string; message: string }[] };
    expect(summary.added).toBe(20);
    const reasons = Object.fromEntries(summary.failed.map((f) => [f.path, f.reason]));
    expect(Object.keys(reasons).sort()).toEqual(
      ["bomb.docx", "corrupt.docx", "corrupt.pdf", "entities.docx", "entries.docx", "huge.pdf", "locked.pdf", "scanned.pdf"].map(
        (f) => `bad/${f}`,
      ),
    );
    expect(reasons["bad/scanned.pdf"]).toBe("no_text_layer");
    expect(reasons["bad/locked.pdf"]).toBe("encrypted");
    expect(summary.failed.find((f) => f.path === "bad/locked.pdf")?.message).toMatch(/password/);
    expect(reasons["bad/huge.pdf"]).toBe("too_large");
    expect(reasons["bad/corrupt.pdf"]).toBe("corrupt");
    expect(reasons["bad/corrupt.docx"]).toBe("corrupt");
    expect(["limit_exceeded", "too_large"]).toContain(reasons["bad/bomb.docx"]);
    expect(reasons["bad/entries.docx"]).toBe("limit_exceeded");
    expect(["limit_exceeded", "corrupt"]).toContain(reasons["bad/entities.docx"]);
    for (const f of summary.failed) expect(f.message.length, f.path).toBeGreaterThan(10);
    expect(summary.failed.find((f) => f.path === "bad/scanned.pdf")?.message).toMatch(/no text layer — OCR it first/);
    // Each failure was also named on stderr as it happened.
    for (const path of Object.keys(reasons)) expect(result.stderr).toContain(`failed: ${path}`);
    if (CAN_MEASURE_RSS) {
      console.info(`docdb import of the hostile folder: peak RSS ${Math.round(peakMb)} MB`);
      expect(peakMb).toBeLessThan(500);
    }

    const page = await runCli([
      "--data-dir",
      dataDir,
      "find",
      "tidal records",
      "--mode",
      "keyword",
      "--filter",
      '{"locator.page":250}',
      "--json",
    ]);
    expect(JSON.parse(page.stdout)[0]?.locator).toEqual({ page: 250 });

    const strict = await runCli(["--data-dir", dataDir, "import", "-n", "hostile", "--strict"]);
    expect(strict.code).toBe(1);
    expect(strict.stdout).toMatch(/8 file\(s\) failed/);
  }, 600_000);
});
