// XLSX, ODS, CSV and TSV extraction on generated files: a `## sheet` section per sheet, rows as
// table rows with displayed values, row-block segments whose locators name the right rows.
import { extract } from "@docdb/extract";
import { unzipSync } from "fflate";
import { describe, expect, it } from "vitest";
import { type Cell, makeOds, makeXlsx, zipParts } from "./fixtures/office.js";

const rows: Cell[][] = [
  ["商品", "数量", "単価", "発売日", "在庫あり"],
  ["りんご", 12, 0.1 + 0.2, new Date(Date.UTC(2024, 0, 15)), true],
  ["みかん", 3, { formula: "B3*2", value: 6 }, new Date(Date.UTC(1999, 11, 31)), false],
];
const big: Cell[][] = [["番号", "名前"], ...Array.from({ length: 300 }, (_, i): Cell[] => [i + 1, `項目${i + 1}`])];
const spec = {
  title: "在庫表",
  author: "鈴木",
  created: "2024-05-01T00:00:00Z",
  sheets: [
    { name: "在庫", rows },
    { name: "一覧", rows: big },
  ],
};

function segmentText(text: string, segment: { start: number; end: number } | undefined): string {
  return segment ? text.slice(segment.start, segment.end) : "";
}

for (const format of ["xlsx", "ods"] as const) {
  describe(format, () => {
    const bytes = format === "xlsx" ? makeXlsx(spec) : makeOds(spec);

    it("writes each sheet as a section with its rows as table rows, values as displayed", async () => {
      const result = await extract({ bytes, name: `stock.${format}` });
      expect(result.format).toBe(format);
      expect(result.text).toContain(
        "## 在庫\n\n| 商品 | 数量 | 単価 | 発売日 | 在庫あり |\n| --- | --- | --- | --- | --- |\n| りんご | 12 | 0.3 | 2024-01-15 | TRUE |\n| みかん | 3 | 6 | 1999-12-31 | FALSE |\n",
      );
      expect(result.text.indexOf("## 一覧")).toBeGreaterThan(result.text.indexOf("## 在庫"));
      expect(result.text).toContain("| 300 | 項目300 |");
      expect(result.title).toBe("在庫表");
      expect(result.metadata).toMatchObject({ author: "鈴木", created: "2024-05-01T00:00:00.000Z", sheets: 2 });
    });

    it("gives row-block segments whose sheet and row locate their text", async () => {
      const result = await extract({ bytes, name: `stock.${format}` });
      const first = result.segments[0];
      expect(first?.locator).toEqual({ sheet: "在庫", row: 1 });
      expect(segmentText(result.text, first)).toMatch(/^## 在庫\n/);
      const listSegments = result.segments.filter((segment) => segment.locator.sheet === "一覧");
      expect(listSegments.length).toBeGreaterThan(3);
      for (const segment of listSegments) {
        const row = segment.locator.row ?? 0;
        const firstLine = segmentText(result.text, segment)
          .split("\n")
          .find((line) => line.startsWith("| "));
        expect(firstLine, `segment at row ${row}`).toBe(row === 1 ? "| 番号 | 名前 |" : `| ${row - 1} | 項目${row - 1} |`);
      }
      for (let i = 1; i < result.segments.length; i++) {
        expect(result.segments[i]?.start).toBeGreaterThanOrEqual(result.segments[i - 1]?.end ?? 0);
      }
    });
  });
}

describe("a 100,000-row sheet", () => {
  it("streams through with row segments and bounded memory", { timeout: 120_000 }, async () => {
    const parts = unzipSync(makeXlsx({ sheets: [{ name: "大きい", rows: [["id", "text"]] }] }));
    const rows: string[] = [];
    for (let r = 1; r <= 100_000; r++)
      rows.push(`<row r="${r}"><c r="A${r}"><v>${r}</v></c><c r="B${r}" t="inlineStr"><is><t>行${r}</t></is></c></row>`);
    parts["xl/worksheets/sheet1.xml"] = new TextEncoder().encode(
      `<worksheet xmlns="urn:s"><sheetData>${rows.join("")}</sheetData></worksheet>`,
    );
    rows.length = 0;
    const bytes = zipParts(parts);
    const before = process.memoryUsage().heapUsed;
    const result = await extract({ bytes, name: "big.xlsx" });
    expect(process.memoryUsage().heapUsed - before).toBeLessThan(400 * 1024 * 1024);
    expect(result.text).toContain("| 100000 | 行100000 |");
    expect(result.segments.length).toBeGreaterThanOrEqual(2_000);
    const last = result.segments[result.segments.length - 1];
    expect(last?.locator.sheet).toBe("大きい");
    expect(segmentText(result.text, last).startsWith(`| ${last?.locator.row} | 行${last?.locator.row} |`)).toBe(true);
  });
});

describe("csv and tsv", () => {
  it("reads UTF-8 with a BOM, quoted fields with commas and line breaks, and row segments", async () => {
    const lines = [
      "名前,説明",
      '"東京","首都, 日本"',
      '"改行","一行目\n二行目"',
      ...Array.from({ length: 120 }, (_, i) => `r${i + 4},v${i + 4}`),
    ];
    const bytes = new Uint8Array([0xef, 0xbb, 0xbf, ...new TextEncoder().encode(lines.join("\r\n"))]);
    const result = await extract({ bytes, name: "data.csv" });
    expect(result.text.startsWith("| 名前 | 説明 |\n| --- | --- |\n| 東京 | 首都, 日本 |\n| 改行 | 一行目 二行目 |\n")).toBe(true);
    expect(result.metadata).toMatchObject({ encoding: "utf-8", rows: 123 });
    expect(result.segments[0]?.locator).toEqual({ row: 1 });
    const later = result.segments[1];
    expect(later?.locator.row).toBeGreaterThan(1);
    expect(segmentText(result.text, later).startsWith(`| r${later?.locator.row} | v${later?.locator.row} |`)).toBe(true);
  });

  it("decodes Shift_JIS when the bytes are not UTF-8", async () => {
    // 「日本語,テスト\r\n東京都,渋谷区」 in Shift_JIS.
    const hex = "93fa967b8cea2c8365835883670d0a938c8b9e93732c8f61924a8be6";
    const bytes = new Uint8Array(hex.match(/../g)?.map((byte) => Number.parseInt(byte, 16)) ?? []);
    expect(new TextDecoder("shift_jis").decode(bytes)).toBe("日本語,テスト\r\n東京都,渋谷区");
    const result = await extract({ bytes, name: "sjis.csv" });
    expect(result.text).toBe("| 日本語 | テスト |\n| --- | --- |\n| 東京都 | 渋谷区 |\n");
    expect(result.metadata.encoding).toBe("shift_jis");
  });

  it("splits TSV on tabs and reads UTF-16 with a BOM (Excel's Unicode text)", async () => {
    const text = "\ufeffa\tb, c\n1\t2\n";
    const bytes = new Uint8Array(text.length * 2);
    for (let i = 0; i < text.length; i++) (bytes[i * 2] = text.charCodeAt(i) & 0xff), (bytes[i * 2 + 1] = text.charCodeAt(i) >> 8);
    const result = await extract({ bytes, name: "sheet.tsv" });
    expect(result.text).toBe("| a | b, c |\n| --- | --- |\n| 1 | 2 |\n");
    expect(result.metadata.encoding).toBe("utf-16le");
  });
});
