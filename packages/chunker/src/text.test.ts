import { describe, expect, it } from "vitest";
import { chunkText } from "./text.js";

function expectOffsets(source: string, chunks: ReturnType<typeof chunkText>, size: number) {
  chunks.forEach((c, i) => {
    expect(c.index).toBe(i);
    expect(source.slice(c.start, c.end)).toBe(c.text);
    expect(c.text.length).toBeLessThanOrEqual(size);
    expect(c.text.trim()).toBe(c.text);
    expect(c.text.length).toBeGreaterThan(0);
  });
}

describe("chunkText", () => {
  it("returns no chunks for empty or whitespace-only text", () => {
    expect(chunkText("")).toEqual([]);
    expect(chunkText("   \n\t\r\n  　")).toEqual([]);
  });

  it("keeps a short text as one chunk with exact offsets", () => {
    const text = "  東京は日本の首都です。  ";
    const chunks = chunkText(text);
    expect(chunks).toHaveLength(1);
    expect(chunks[0]).toMatchObject({ text: "東京は日本の首都です。", start: 2, end: 13 });
  });

  it("hard-splits a 5,000-character run with no punctuation, with overlap", () => {
    const text = "あ".repeat(5000);
    const chunks = chunkText(text, { size: 700, overlap: 100 });
    expectOffsets(text, chunks, 700);
    expect(chunks.length).toBe(Math.ceil((5000 - 100) / 600));
    expect(chunks[0]?.end).toBe(700);
    expect(chunks[1]?.start).toBe(600);
    expect(chunks[chunks.length - 1]?.end).toBe(5000);
  });

  it("never splits a surrogate pair", () => {
    const text = "😀".repeat(1000); // 2000 UTF-16 code units, no boundaries
    const chunks = chunkText(text, { size: 101, overlap: 11 });
    expectOffsets(text, chunks, 101);
    for (const c of chunks) {
      expect(c.start % 2).toBe(0);
      expect(c.end % 2).toBe(0);
      expect(c.text).toMatch(/^(😀)+$/u);
    }
    expect(chunks[chunks.length - 1]?.end).toBe(text.length);
  });

  it("splits at Japanese and Latin sentence ends and keeps the overlap within bounds", () => {
    const sentence = "これは日本語の文です。This is an English sentence. ";
    const text = sentence.repeat(60);
    const chunks = chunkText(text, { size: 200, overlap: 50 });
    expectOffsets(text, chunks, 200);
    for (const c of chunks.slice(0, -1)) expect(c.text).toMatch(/[。.]$/);
    for (let i = 1; i < chunks.length; i++) {
      const previous = chunks[i - 1]!;
      const current = chunks[i]!;
      expect(current.start).toBeGreaterThan(previous.start);
      expect(previous.end - current.start).toBeLessThanOrEqual(50);
    }
    // Every character is covered by some chunk (whitespace aside).
    const covered = new Array(text.length).fill(false);
    for (const c of chunks) for (let i = c.start; i < c.end; i++) covered[i] = true;
    covered.forEach((isCovered, i) => {
      if (!isCovered) expect(text[i]).toMatch(/\s/);
    });
  });

  it("treats CRLF line ends as boundaries and never ends a chunk between \\r and \\n", () => {
    const text = Array.from({ length: 100 }, (_, i) => `line ${i} without a full stop`).join("\r\n");
    const chunks = chunkText(text, { size: 120, overlap: 0 });
    expectOffsets(text, chunks, 120);
    for (const c of chunks) {
      expect(c.text.startsWith("\n")).toBe(false);
      expect(c.text.endsWith("\r")).toBe(false);
      expect(c.text.startsWith("line ")).toBe(true);
    }
  });

  it("handles ！？ and full-width period with closing brackets", () => {
    const text = "「本当ですか？」と彼は言った。すごい！次．";
    const chunks = chunkText(text, { size: 12, overlap: 0 });
    expectOffsets(text, chunks, 12);
    expect(chunks[0]?.text).toBe("「本当ですか？」");
  });

  it("rejects nonsensical sizes", () => {
    expect(() => chunkText("abc", { size: 5 })).toThrow(/chunk size/);
    expect(() => chunkText("abc", { size: 100, overlap: 60 })).toThrow(/overlap/);
  });

  it("uses 700/100 by default", () => {
    const text = "a".repeat(1500);
    const chunks = chunkText(text);
    expect(chunks.map((c) => [c.start, c.end])).toEqual([
      [0, 700],
      [600, 1300],
      [1200, 1500],
    ]);
  });
});
