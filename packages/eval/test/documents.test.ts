// evaluateRetrieval with `documents`: a folder of rendered files (PDF, DOCX, HTML) stands in for
// corpus.jsonl, each file's name giving its corpus id; files that cannot be extracted are reported.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { makeDocx } from "../../extract/test/fixtures/office.js";
import { makePdf } from "../../extract/test/fixtures/pdf.js";
import { makeHtmlPage } from "../../extract/test/fixtures/web.js";
import { corpusIdOfFile, evaluateRetrieval } from "../src/index.js";

let dir: string;
let scratch: string;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "docdb-evaldocs-"));
  scratch = mkdtempSync(join(tmpdir(), "docdb-evaltmp-"));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
  rmSync(scratch, { recursive: true, force: true });
});

const lines = (rows: unknown[]) => `${rows.map((r) => JSON.stringify(r)).join("\n")}\n`;

/**
 * corpus.jsonl holds placeholders that share no word with the queries: only the rendered files
 * carry the text, so the queries are answered only when the files are what gets loaded.
 */
function writeSet(): string {
  const ids = ["paper-1", "memo-2", "page-3", ...Array.from({ length: 8 }, (_, i) => `filler-${i}`)];
  writeFileSync(join(dir, "corpus.jsonl"), lines(ids.map((id) => ({ id, title: "", text: `placeholder ${id}` }))));
  writeFileSync(
    join(dir, "queries.jsonl"),
    lines([
      { id: "q1", text: "magnetic nanoparticles tracking stem cells" },
      { id: "q2", text: "請求書の発行日" },
      { id: "q3", text: "金閣寺の庭園" },
    ]),
  );
  writeFileSync(join(dir, "qrels.tsv"), "query_id\tdoc_id\tscore\nq1\tpaper-1\t1\nq2\tmemo-2\t1\nq3\tpage-3\t1\n");
  const docs = join(dir, "rendered");
  mkdirSync(docs);
  writeFileSync(
    join(docs, "paper-1.pdf"),
    makePdf({
      title: "Stem cells",
      pages: [{ lines: [{ text: "Stem cells", size: 18 }, "", "Magnetic nanoparticles label stem cells for tracking in vivo."] }],
    }),
  );
  writeFileSync(
    join(docs, "memo-2.docx"),
    makeDocx({ title: "請求", sections: [{ heading: "請求", paragraphs: ["請求書は毎月一日に発行されます。"] }] }),
  );
  writeFileSync(
    join(docs, "page-3.html"),
    makeHtmlPage({ title: "京都", sections: [{ heading: "寺院", paragraphs: ["金閣寺の庭園は池を中心に造られています。"] }] }),
  );
  for (let i = 0; i < 8; i++)
    writeFileSync(
      join(docs, `filler-${i}.html`),
      makeHtmlPage({ title: `filler ${i}`, sections: [{ heading: "天気", paragraphs: [`weather report ${i}`] }] }),
    );
  writeFileSync(join(docs, "broken.pdf"), "%PDF-1.4\nthis is not a PDF body\n");
  writeFileSync(join(docs, ".hidden.html"), "<p>金閣寺 請求書 nanoparticles</p>");
  return docs;
}

describe("evaluateRetrieval with a folder of documents", () => {
  it("names corpus ids after files", () => {
    expect(corpusIdOfFile("4983.pdf")).toBe("4983");
    expect(corpusIdOfFile("jaquad-p000001.docx")).toBe("jaquad-p000001");
    expect(corpusIdOfFile("a.b.html")).toBe("a.b");
  });

  it("extracts each file, maps it to its corpus id and reports the files it could not read", async () => {
    const docs = writeSet();
    const failures: string[] = [];
    const [report] = await evaluateRetrieval({
      dataset: dir,
      documents: docs,
      modes: ["keyword"],
      embedding: null,
      tempDir: scratch,
      onFailure: (file, message) => failures.push(`${file}: ${message}`),
    });
    expect(report?.documents).toBe(docs);
    expect(report?.corpus.documents).toBe(11);
    expect(report?.corpus.skipped).toBe(1);
    expect(failures).toHaveLength(1);
    expect(failures[0]).toMatch(/^broken\.pdf: /);
    expect(report?.metrics?.ndcg_at_10).toBe(1);
  }, 120_000);

  it("says what to do when the folder is missing or empty", async () => {
    writeSet();
    await expect(
      evaluateRetrieval({ dataset: dir, documents: join(dir, "nope"), modes: ["keyword"], embedding: null, tempDir: scratch }),
    ).rejects.toThrow(/no such folder/);
    mkdirSync(join(dir, "empty"));
    await expect(
      evaluateRetrieval({ dataset: dir, documents: join(dir, "empty"), modes: ["keyword"], embedding: null, tempDir: scratch }),
    ).rejects.toThrow(/render-eval-files/);
  }, 60_000);
});
