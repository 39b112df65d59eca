// PDF extraction on PDFs the tests write themselves (test/fixtures/pdf.ts): text in order, page
// segments, Japanese through the CMaps, two columns, metadata, headings, and each error code.
import { describe, expect, it } from "vitest";
import { ExtractError, type Extracted, extract } from "../src/index.js";
import { makePdf } from "./fixtures/pdf.js";

const pdf = (bytes: Uint8Array) => extract({ bytes, name: "doc.pdf" });

/** The text of each segment, by page number. */
function pageTexts(result: Extracted): Record<number, string> {
  return Object.fromEntries(result.segments.map((s) => [s.locator.page as number, result.text.slice(s.start, s.end)]));
}

async function failure(promise: Promise<unknown>): Promise<ExtractError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ExtractError);
  return error as ExtractError;
}

describe("PDF extraction", () => {
  it("reads English pages in order, one segment per page, with headings and metadata", async () => {
    const bytes = makePdf({
      title: "Field Notes on Tides",
      author: "Ada Lovelace",
      created: new Date("2024-03-05T10:20:30Z"),
      modified: new Date("2025-01-02T03:04:05Z"),
      pages: [
        {
          lines: [
            { text: "Field Notes on Tides", size: 24 },
            "The moon pulls the sea twice a day.",
            "High water follows the moon.",
            "",
            { text: "Spring tides", size: 15 },
            "Spring tides come at new and full moon.",
          ],
        },
        { lines: ["Page two speaks of neap tides, which are small.", "They come at the quarter moons."] },
        { lines: ["Third page: harbour (depth) \\ charts."] },
      ],
    });
    const result = await pdf(bytes);
    expect(result.format).toBe("pdf");
    expect(result.text).toBe(
      [
        "# Field Notes on Tides",
        "",
        "The moon pulls the sea twice a day.",
        "High water follows the moon.",
        "",
        "## Spring tides",
        "",
        "Spring tides come at new and full moon.",
        "",
        "Page two speaks of neap tides, which are small.",
        "They come at the quarter moons.",
        "",
        "Third page: harbour (depth) \\ charts.",
      ].join("\n"),
    );
    expect(result.segments.map((s) => s.locator)).toEqual([{ page: 1 }, { page: 2 }, { page: 3 }]);
    const pages = pageTexts(result);
    expect(pages[1]).toMatch(/^# Field Notes on Tides[\s\S]*full moon\.$/);
    expect(pages[2]).toBe("Page two speaks of neap tides, which are small.\nThey come at the quarter moons.");
    expect(pages[3]).toBe("Third page: harbour (depth) \\ charts.");
    expect(result.title).toBe("Field Notes on Tides");
    expect(result.metadata).toEqual({
      author: "Ada Lovelace",
      created: "2024-03-05T10:20:30.000Z",
      modified: "2025-01-02T03:04:05.000Z",
      pages: 3,
    });
    expect(result.warnings).toEqual([]);
    expect(bytes.length).toBeGreaterThan(0); // the caller's bytes are left alone
  });

  it("reads Japanese text through the CMaps exactly, without spaces between CJK glyphs", async () => {
    const lines = [
      "東京は日本の首都であり、人口は約千四百万人です。",
      "江戸時代には「江戸」と呼ばれていました。",
      "Tokyo は 2020 年にオリンピックを開催しました。",
    ];
    const result = await pdf(
      makePdf({
        title: "東京の歴史",
        author: "山田太郎",
        pages: [{ lines: [{ text: "東京の歴史", size: 22 }, ...lines] }, { lines: ["第二頁：まとめ。"] }],
      }),
    );
    expect(result.text).toBe(`# 東京の歴史\n\n${lines.join("\n")}\n\n第二頁：まとめ。`);
    expect(result.title).toBe("東京の歴史");
    expect(result.metadata.author).toBe("山田太郎");
    expect(pageTexts(result)[2]).toBe("第二頁：まとめ。");
  });

  it("reads a two-column page column by column, below its full-width title", async () => {
    const left = ["Alpha one begins here", "alpha two continues", "alpha three ends it."];
    const right = ["Beta one starts anew", "beta two goes on", "beta three is last."];
    const result = await pdf(makePdf({ pages: [{ lines: [{ text: "A Study in Two Columns", size: 20 }], columns: [left, right] }] }));
    expect(result.text).toBe(`# A Study in Two Columns\n\n${left.join("\n")}\n\n${right.join("\n")}`);
  });

  it("keeps a single-column page with short lines in line order", async () => {
    const lines = ["Name: Ada", "Role: engineer", "Team: tides", "Site: harbour"];
    const result = await pdf(makePdf({ pages: [{ lines }] }));
    expect(result.text).toBe(lines.join("\n"));
  });

  it("skips a page without text with a warning, and keeps the other pages' locators right", async () => {
    const result = await pdf(makePdf({ pages: [{ lines: ["first page words"] }, { image: true }, { lines: ["third page words"] }] }));
    expect(result.text).toBe("first page words\n\nthird page words");
    expect(result.segments).toEqual([
      { start: 0, end: 16, locator: { page: 1 } },
      { start: 18, end: 34, locator: { page: 3 } },
    ]);
    expect(result.warnings).toEqual(["page 2 has no text layer (images or scans?) and was left out; OCR them to include their text"]);
    expect(result.metadata.pages).toBe(3);
  });

  it("refuses a password-protected PDF with code encrypted", async () => {
    const error = await failure(pdf(makePdf({ userPassword: "secret", title: "Locked", pages: [{ lines: ["hidden words"] }] })));
    expect(error.code).toBe("encrypted");
    expect(error.message).toBe("the PDF is password-protected; remove the password and import it again");
  });

  it("refuses a PDF of images only with code no_text_layer and says to OCR it", async () => {
    const error = await failure(pdf(makePdf({ pages: [{ image: true }, { image: true }] })));
    expect(error.code).toBe("no_text_layer");
    expect(error.message).toContain("no text layer — OCR it first");
  });

  it("refuses truncated, garbage and empty files with code corrupt", async () => {
    const whole = makePdf({ pages: [{ lines: ["some words"] }, { lines: ["more words"] }] });
    for (const bytes of [whole.slice(0, Math.floor(whole.length / 2)), new TextEncoder().encode("not a PDF at all"), new Uint8Array()]) {
      const error = await failure(pdf(bytes));
      expect(error.code).toBe("corrupt");
      expect(error.message).toMatch(/damaged|truncated|empty/);
    }
  });

  it("enforces maxTextChars", async () => {
    const bytes = makePdf({ pages: [{ lines: ["a fairly long line of words"] }, { lines: ["another long line of words"] }] });
    const error = await failure(extract({ bytes, name: "x.pdf", limits: { maxTextChars: 40 } }));
    expect(error.code).toBe("limit_exceeded");
  });

  it("reads a 300-page PDF page by page", { timeout: 300_000 }, async () => {
    const bytes = makePdf({
      pages: Array.from({ length: 300 }, (_, i) => ({
        lines: [`Page ${i + 1} heading words`, `Body of page ${i + 1} about tides and moons.`],
      })),
    });
    const started = performance.now();
    const before = process.memoryUsage().rss;
    const result = await pdf(bytes);
    const seconds = (performance.now() - started) / 1000;
    console.log(
      `300-page PDF (${(bytes.length / 1024).toFixed(0)} KiB): ${seconds.toFixed(2)} s, ${(300 / seconds).toFixed(0)} pages/s, RSS +${((process.memoryUsage().rss - before) / 2 ** 20).toFixed(0)} MiB`,
    );
    expect(result.segments).toHaveLength(300);
    expect(result.metadata.pages).toBe(300);
    const pages = pageTexts(result);
    expect(pages[1]).toBe("Page 1 heading words\nBody of page 1 about tides and moons.");
    expect(pages[300]).toBe("Page 300 heading words\nBody of page 300 about tides and moons.");
  });
});
