// DOCX and PPTX extraction on generated files: text in order, headings as Markdown headings,
// lists and table rows, core properties, and slide locators in presentation order.
import { extract } from "@docdb/extract";
import { describe, expect, it } from "vitest";
import { makeDocx, makePptx } from "./fixtures/office.js";

function inOrder(text: string, parts: string[]): void {
  let at = -1;
  for (const part of parts) {
    const found = text.indexOf(part, at + 1);
    expect(found, `${JSON.stringify(part)} after offset ${at} in:\n${text}`).toBeGreaterThan(at);
    at = found;
  }
}

describe("docx", () => {
  const bytes = makeDocx({
    title: "製品マニュアル",
    author: "山田 太郎",
    created: "2024-03-01T09:00:00Z",
    modified: "2024-03-02T10:30:00Z",
    sections: [
      { heading: "はじめに", paragraphs: ["この文書は docdb の使い方を説明します。", "Second paragraph | with a pipe."] },
      { heading: "インストール", level: 2, bullets: ["Node.js 20 以上", "pnpm をインストールする"] },
      {
        heading: "価格表",
        level: 3,
        paragraphs: ["次の表を参照してください。"],
        table: [
          ["製品", "価格"],
          ["ベーシック", "1000円"],
          ["プロ", "5000円"],
        ],
      },
    ],
  });

  it("keeps headings, paragraphs, lists and tables in document order", async () => {
    const result = await extract({ bytes, name: "manual.docx" });
    expect(result.format).toBe("docx");
    inOrder(result.text, [
      "# はじめに\n",
      "この文書は docdb の使い方を説明します。",
      "Second paragraph | with a pipe.",
      "## インストール\n",
      "- Node.js 20 以上\n- pnpm をインストールする\n",
      "### 価格表\n",
      "次の表を参照してください。",
      "| 製品 | 価格 |\n| --- | --- |\n| ベーシック | 1000円 |\n| プロ | 5000円 |",
    ]);
    expect(result.text.split("\n").filter((line) => line.startsWith("#"))).toEqual(["# はじめに", "## インストール", "### 価格表"]);
  });

  it("reads title, author and dates from the core properties", async () => {
    const result = await extract({ bytes, name: "manual.docx" });
    expect(result.title).toBe("製品マニュアル");
    expect(result.metadata).toMatchObject({
      author: "山田 太郎",
      created: "2024-03-01T09:00:00.000Z",
      modified: "2024-03-02T10:30:00.000Z",
    });
    expect(result.warnings).toEqual([]);
  });
});

describe("pptx", () => {
  const bytes = makePptx({
    title: "四半期報告",
    author: "佐藤 花子",
    reverseFiles: true,
    slides: [
      { title: "売上の概要", bullets: ["売上は前年比 12% 増", "新規顧客 340 社"], notes: "ここで拍手を待つ" },
      {
        title: "地域別",
        table: [
          ["地域", "売上"],
          ["関東", "120"],
          ["関西", "80"],
        ],
      },
      { title: "まとめ", text: ["ご清聴ありがとうございました。"] },
    ],
  });

  it("writes slides in presentation order, not file-name order, each a segment with its slide number", async () => {
    const result = await extract({ bytes, name: "deck.pptx" });
    expect(result.format).toBe("pptx");
    inOrder(result.text, [
      "## Slide 1: 売上の概要",
      "- 売上は前年比 12% 増\n- 新規顧客 340 社",
      "Notes: ここで拍手を待つ",
      "## Slide 2: 地域別",
      "| 地域 | 売上 |\n| --- | --- |\n| 関東 | 120 |\n| 関西 | 80 |",
      "## Slide 3: まとめ",
      "ご清聴ありがとうございました。",
    ]);
    expect(result.segments.map((segment) => segment.locator)).toEqual([{ slide: 1 }, { slide: 2 }, { slide: 3 }]);
    const slideText = (n: number) => {
      const segment = result.segments[n - 1];
      return segment ? result.text.slice(segment.start, segment.end) : "";
    };
    expect(slideText(1)).toContain("新規顧客 340 社");
    expect(slideText(1)).toContain("Notes: ここで拍手を待つ");
    expect(slideText(2)).toContain("| 関西 | 80 |");
    expect(slideText(2)).not.toContain("拍手");
    expect(slideText(3)).toMatch(/^## Slide 3: まとめ\n\nご清聴ありがとうございました。\n$/);
    expect(result.title).toBe("四半期報告");
    expect(result.metadata).toMatchObject({ author: "佐藤 花子", slides: 3 });
  });
});
