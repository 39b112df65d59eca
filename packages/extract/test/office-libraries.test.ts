// Files written by the common generator libraries (docx, pptxgenjs, exceljs) rather than by our own
// fixtures, so the readers are checked against OOXML as other tools really write it.
import { extract } from "@docdb/extract";
import { Document, HeadingLevel, Packer, Paragraph, Table, TableCell, TableRow } from "docx";
import ExcelJS from "exceljs";
import PptxGenJS from "pptxgenjs";
import { describe, expect, it } from "vitest";

function inOrder(text: string, parts: string[]): void {
  let at = -1;
  for (const part of parts) {
    const found = text.indexOf(part, at + 1);
    expect(found, `${JSON.stringify(part)} after offset ${at} in:\n${text}`).toBeGreaterThan(at);
    at = found;
  }
}

describe("files from generator libraries", () => {
  it("reads a DOCX written by the docx package", async () => {
    const cell = (text: string) => new TableCell({ children: [new Paragraph(text)] });
    const document = new Document({
      title: "設計書",
      creator: "田中",
      sections: [
        {
          children: [
            new Paragraph({ text: "概要", heading: HeadingLevel.HEADING_1 }),
            new Paragraph("このシステムは文書を検索します。"),
            new Paragraph({ text: "要件", heading: HeadingLevel.HEADING_2 }),
            new Paragraph({ text: "高速であること", bullet: { level: 0 } }),
            new Paragraph({ text: "日本語に対応すること", bullet: { level: 1 } }),
            new Table({
              rows: [new TableRow({ children: [cell("項目"), cell("値")] }), new TableRow({ children: [cell("速度"), cell("速い")] })],
            }),
          ],
        },
      ],
    });
    const bytes = new Uint8Array(await Packer.toBuffer(document));
    const result = await extract({ bytes, name: "design.docx" });
    inOrder(result.text, [
      "# 概要\n",
      "このシステムは文書を検索します。",
      "## 要件\n",
      "- 高速であること\n  - 日本語に対応すること\n",
      "| 項目 | 値 |\n| --- | --- |\n| 速度 | 速い |",
    ]);
    expect(result.title).toBe("設計書");
    expect(result.metadata.author).toBe("田中");
  });

  it("reads a PPTX written by pptxgenjs", async () => {
    const pptx = new PptxGenJS();
    pptx.title = "発表";
    pptx.author = "高橋";
    pptx.defineSlideMaster({
      title: "MASTER",
      objects: [{ placeholder: { options: { name: "title", type: "title", x: 0.5, y: 0.2, w: 9, h: 1 }, text: "" } }],
    });
    const first = pptx.addSlide({ masterName: "MASTER" });
    first.addText("はじめに", { placeholder: "title" });
    first.addText(
      [
        { text: "背景", options: { bullet: true, breakLine: true } },
        { text: "目的", options: { bullet: true } },
      ],
      { x: 1, y: 2, w: 8, h: 2 },
    );
    first.addNotes("時間は五分");
    const second = pptx.addSlide({ masterName: "MASTER" });
    second.addText("結果", { placeholder: "title" });
    second.addTable(
      [
        [{ text: "指標" }, { text: "値" }],
        [{ text: "精度" }, { text: "0.9" }],
      ],
      { x: 1, y: 2, w: 8 },
    );
    const bytes = (await pptx.write({ outputType: "uint8array" })) as Uint8Array;
    const result = await extract({ bytes, name: "talk.pptx" });
    inOrder(result.text, [
      "## Slide 1: はじめに",
      "- 背景",
      "- 目的",
      "Notes: 時間は五分",
      "## Slide 2: 結果",
      "| 指標 | 値 |",
      "| 精度 | 0.9 |",
    ]);
    expect(result.segments.map((segment) => segment.locator)).toEqual([{ slide: 1 }, { slide: 2 }]);
    expect(result.title).toBe("発表");
  });

  it("reads an XLSX written by exceljs", async () => {
    const workbook = new ExcelJS.Workbook();
    workbook.creator = "伊藤";
    workbook.title = "売上";
    const sheet = workbook.addWorksheet("四月");
    sheet.addRow(["日付", "店舗", "売上", "達成"]);
    sheet.addRow([new Date(Date.UTC(2024, 3, 1)), "新宿", 1200.5, true]);
    sheet.addRow([new Date(Date.UTC(2024, 3, 2)), "渋谷", { formula: "C2*2", result: 2401 }, false]);
    sheet.getCell("E1").value = 0.25;
    sheet.getCell("E1").numFmt = "0%";
    workbook.addWorksheet("空");
    const bytes = new Uint8Array(await workbook.xlsx.writeBuffer());
    const result = await extract({ bytes, name: "sales.xlsx" });
    inOrder(result.text, [
      "## 四月\n",
      "| 日付 | 店舗 | 売上 | 達成 | 25% |",
      "| 2024-04-01 | 新宿 | 1200.5 | TRUE |",
      "| 2024-04-02 | 渋谷 | 2401 | FALSE |",
    ]);
    expect(result.segments[0]?.locator).toEqual({ sheet: "四月", row: 1 });
    expect(result.title).toBe("売上");
    expect(result.metadata.author).toBe("伊藤");
  });
});
