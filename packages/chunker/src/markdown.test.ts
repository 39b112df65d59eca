import { describe, expect, it } from "vitest";
import { chunkMarkdown } from "./markdown.js";

const doc = [
  "# 製品ガイド",
  "",
  "はじめに。",
  "",
  "## インストール",
  "",
  "`npm i docdb` を実行します。",
  "",
  "```sh",
  "# これは見出しではない",
  "docdb --help",
  "```",
  "",
  "## 使い方",
  "### 検索",
  "",
  "docdb find を使います。",
  "",
].join("\n");

describe("chunkMarkdown", () => {
  it("keeps heading sections together and records the heading path", () => {
    const chunks = chunkMarkdown(doc);
    for (const c of chunks) expect(doc.slice(c.start, c.end)).toBe(c.text);
    expect(chunks.map((c) => c.headingPath)).toEqual([["製品ガイド"], ["製品ガイド", "インストール"], ["製品ガイド", "使い方", "検索"]]);
    expect(chunks[1]?.text).toContain("# これは見出しではない");
    // A heading with no text of its own joins the next section.
    expect(chunks[2]?.text.startsWith("## 使い方\n### 検索")).toBe(true);
  });

  it("splits a long section by sentences, every piece keeping the path", () => {
    const long = `# 長い章\n\n${"これは長い段落の一文です。".repeat(200)}`;
    const chunks = chunkMarkdown(long, { size: 300, overlap: 30 });
    expect(chunks.length).toBeGreaterThan(5);
    for (const c of chunks) {
      expect(c.headingPath).toEqual(["長い章"]);
      expect(c.text.length).toBeLessThanOrEqual(300);
      expect(long.slice(c.start, c.end)).toBe(c.text);
    }
  });

  it("handles text before the first heading and no headings at all", () => {
    const chunks = chunkMarkdown("前書き。\n\n# A\n本文。");
    expect(chunks.map((c) => c.headingPath)).toEqual([[], ["A"]]);
    expect(chunkMarkdown("見出しなし。")).toHaveLength(1);
    expect(chunkMarkdown("")).toEqual([]);
  });
});
