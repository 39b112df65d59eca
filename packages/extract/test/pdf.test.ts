// PDF extraction on PDFs the tests write themselves (test/fixtures/pdf.ts): text in order, page
// segments, Japanese through the CMaps, two columns, metadata, headings, and each error code.
import { describe, expect, it } from "vitest";
import { type Extracted, extract } from "../src/index.js";
import { failure } from "./fixtures/failure.js";
import { makePdf } from "./fixtures/pdf.js";

const pdf = (bytes: Uint8Array) => extract({ bytes, name: "doc.pdf" });

/** The text of each segment, by page number. */
function pageTexts(result: Extracted): Record<number, string> {
  return Object.fromEntries(result.segments.map((s) => [s.locator.page as number, result.text.slice(s.start, s.end)]));
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

  it("keeps a heading that wraps as one heading, and headings apart from each other as two", async () => {
    const big = (text: string) => ({ text, size: 18 });
    const result = await pdf(
      makePdf({
        pages: [
          {
            lines: [
              big("A long title that needs"),
              big("two lines"),
              "body text under it, long enough to be most of the page",
              "",
              "",
              big("Contents"),
              "",
              "",
              big("Chapter one"),
            ],
          },
        ],
      }),
    );
    expect(result.text).toBe(
      "# A long title that needs two lines\n\nbody text under it, long enough to be most of the page\n\n# Contents\n\n# Chapter one",
    );
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

  it("joins letter-spaced Japanese without the spaces the PDF library guesses between glyphs", async () => {
    const lines = ["東京は日本の首都です。", "第一章：総則と「定義」"];
    const result = await pdf(makePdf({ pages: [{ charSpacing: 4, lines }] }));
    expect(result.text).toBe(lines.join("\n"));
  });

  it("joins Japanese lines wrapped mid-word, so the word is whole for search, and keeps breaks after a sentence", async () => {
    const lines = ["東京は日本の首", "都であり、人口は約千四百万人です。", "分", "類の規則。"];
    const result = await pdf(makePdf({ pages: [{ lines }] }));
    expect(result.text).toBe("東京は日本の首都であり、人口は約千四百万人です。\n分類の規則。");
  });

  it("gives back every word of long wrapped text that flows over several pages, typographic marks included", async () => {
    const first =
      "Étude of TNF-α levels ≥ 5 mg — results (p < 0.05) in 2,000 patients; café “quoted” ‘single’ … β-catenin ± 3 °C, ligand–receptor.";
    const long = Array.from(
      { length: 150 },
      (_, i) => `Sentence ${i} reports cohort outcomes with hazard ratios and confidence intervals.`,
    ).join(" ");
    const result = await pdf(makePdf({ pages: [{ lines: [first, "", long] }] }));
    const words = (text: string) => text.split(/\s+/).filter(Boolean);
    expect(words(result.text)).toEqual(words(`${first} ${long}`));
    expect(result.segments.length).toBeGreaterThan(2);
    expect(result.segments.map((s) => s.locator.page)).toEqual(result.segments.map((_, i) => i + 1));
  });

  it("reads a two-column page column by column, below its full-width title", async () => {
    const left = ["Alpha one begins here", "alpha two continues", "alpha three ends it."];
    const right = ["Beta one starts anew", "beta two goes on", "beta three is last."];
    const result = await pdf(makePdf({ pages: [{ lines: [{ text: "A Study in Two Columns", size: 20 }], columns: [left, right] }] }));
    expect(result.text).toBe(`# A Study in Two Columns\n\n${left.join("\n")}\n\n${right.join("\n")}`);
  });

  it("reads vertical Japanese (tategaki) column by column, right to left", async () => {
    const lines = ["縦書きの一行目です。", "二行目は「かぎ括弧」を含みます、ね。", "", "三行目で終わります。"];
    const result = await pdf(makePdf({ pages: [{ vertical: true, lines }] }));
    expect(result.text).toBe("縦書きの一行目です。\n二行目は「かぎ括弧」を含みます、ね。\n\n三行目で終わります。");
  });

  it("reads a Japanese two-column page column by column, without spaces", async () => {
    const left = ["左の段の一行目です。", "左の段の二行目です。", "左の段の三行目です。"];
    const right = ["右の段の一行目です。", "右の段の二行目です。", "右の段の三行目です。"];
    const result = await pdf(makePdf({ pages: [{ lines: [{ text: "二段組の頁", size: 20 }], columns: [left, right] }] }));
    expect(result.text).toBe(`# 二段組の頁\n\n${left.join("\n")}\n\n${right.join("\n")}`);
  });

  it("reads a paper-like page: title, abstract across the page, then two columns with their own headings", async () => {
    const sentences = (topic: string, n: number) => Array.from({ length: n }, (_, i) => `${topic} sentence ${i + 1} goes here.`).join(" ");
    const abstract = `${sentences("Abstract", 5)} It ends short.`;
    const intro = sentences("Intro", 12);
    const methods = sentences("Methods", 10);
    const result = await pdf(
      makePdf({
        pages: [
          {
            lines: [{ text: "Tides and Moons", size: 20 }, abstract],
            columns: [
              [{ text: "1 Introduction", size: 14 }, intro],
              [{ text: "2 Methods", size: 14 }, methods],
            ],
          },
        ],
      }),
    );
    const sections = result.text.split(/\n(?=#)/);
    expect(sections.map((s) => s.split("\n")[0])).toEqual(["# Tides and Moons", "## 1 Introduction", "## 2 Methods"]);
    const words = (text: string) =>
      text
        .replace(/^#+ .*\n/, "")
        .split(/\s+/)
        .filter(Boolean)
        .join(" ");
    expect(words(sections[0] as string)).toBe(abstract);
    expect(words(sections[1] as string)).toBe(intro);
    expect(words(sections[2] as string)).toBe(methods);
  });

  it("finds the columns even when a page number sits in the gap between them, and reads it last", async () => {
    // Lines that fill their column (digits are as wide as the fixture's estimate), and a footer across the gap.
    const left = Array.from({ length: 12 }, (_, i) => `A${String(i + 1).padStart(3, "0")} ${"1234567890".repeat(3)}`);
    const right = Array.from({ length: 12 }, (_, i) => `B${String(i + 1).padStart(3, "0")} ${"0987654321".repeat(3)}`);
    const opening = "An opening line that runs across the page from one margin to the other.";
    const result = await pdf(makePdf({ pages: [{ lines: [opening], columns: [left, right], footer: "Page 7" }] }));
    expect(result.text.split("\n").filter(Boolean)).toEqual([opening, ...left, ...right, "Page 7"]);
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

  it("writes real encryption: with the password, pdfjs reads the text back", async () => {
    const { getDocument } = await import("pdfjs-dist/legacy/build/pdf.mjs");
    const doc = await getDocument({
      data: makePdf({ userPassword: "secret", pages: [{ lines: ["hidden words"] }] }),
      password: "secret",
      verbosity: 0,
    }).promise;
    const content = await (await doc.getPage(1)).getTextContent();
    expect(content.items.map((item) => ("str" in item ? item.str : "")).join("")).toBe("hidden words");
    await doc.destroy();
  });

  it("reads a PDF encrypted with an empty user password (owner restrictions only), as viewers do", async () => {
    const result = await pdf(makePdf({ userPassword: "", title: "Restricted", pages: [{ lines: ["open words", "東京の地図"] }] }));
    expect(result.text).toBe("open words\n東京の地図");
    expect(result.title).toBe("Restricted");
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

  it("refuses a PDF without pages with code corrupt", async () => {
    const error = await failure(pdf(makePdf({ pages: [] })));
    expect(error.code).toBe("corrupt");
    expect(error.message).toContain("no pages");
  });

  it("enforces maxTextChars", async () => {
    const bytes = makePdf({ pages: [{ lines: ["a fairly long line of words"] }, { lines: ["another long line of words"] }] });
    const error = await failure(extract({ bytes, name: "x.pdf", limits: { maxTextChars: 40 } }));
    expect(error.code).toBe("limit_exceeded");
  });

  it("reads a 300-page PDF page by page", { timeout: 300_000 }, async () => {
    const filler = Array.from({ length: 36 }, (_, n) => `Line ${n + 1} of a full page about tides, moons, harbours and charts.`);
    const bytes = makePdf({
      pages: Array.from({ length: 300 }, (_, i) => ({
        lines: [`Page ${i + 1} heading words`, `Body of page ${i + 1} about tides and moons.`, ...filler],
      })),
    });
    const started = performance.now();
    const before = process.memoryUsage().rss;
    let peak = before;
    const sampler = setInterval(() => {
      peak = Math.max(peak, process.memoryUsage().rss);
    }, 20);
    const result = await pdf(bytes).finally(() => clearInterval(sampler));
    const seconds = (performance.now() - started) / 1000;
    const mib = (n: number) => (n / 2 ** 20).toFixed(0);
    console.log(
      `300-page PDF (${mib(bytes.length)} MiB, ${result.text.length} characters): ${seconds.toFixed(2)} s, ${(300 / seconds).toFixed(0)} pages/s, RSS ${mib(before)} → peak ${mib(peak)} MiB`,
    );
    expect(result.segments).toHaveLength(300);
    expect(result.metadata.pages).toBe(300);
    const pages = pageTexts(result);
    expect(pages[1]).toBe(["Page 1 heading words", "Body of page 1 about tides and moons.", ...filler].join("\n"));
    expect(pages[300]).toBe(["Page 300 heading words", "Body of page 300 about tides and moons.", ...filler].join("\n"));
  });
});
