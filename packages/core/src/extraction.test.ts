// Locators of chunks from extraction segments, and how people read them.
import { describe, expect, it } from "vitest";
import { checkType, chunkByLocator, describeLocator, extractedFormatOfName, locatorAt, locatorRanges } from "./extraction.js";

describe("locatorAt", () => {
  const segments = [
    { start: 0, end: 100, locator: { page: 1 } },
    { start: 102, end: 250, locator: { page: 2 } },
    { start: 250, end: 400, locator: { sheet: "売上", row: 12 } },
  ];
  it("gives the segment a chunk's start falls in; a start between segments belongs to the next one", () => {
    expect(locatorAt(segments, 0)).toEqual({ page: 1 });
    expect(locatorAt(segments, 99)).toEqual({ page: 1 });
    expect(locatorAt(segments, 100)).toEqual({ page: 2 });
    expect(locatorAt(segments, 101)).toEqual({ page: 2 });
    expect(locatorAt(segments, 249)).toEqual({ page: 2 });
    expect(locatorAt(segments, 250)).toEqual({ sheet: "売上", row: 12 });
    expect(locatorAt(segments, 9999)).toEqual({ sheet: "売上", row: 12 });
    expect(locatorAt([], 5)).toBeNull();
  });
});

describe("names and types", () => {
  it("reads document formats from names, refuses unknown types, and writes locators as people do", () => {
    expect(extractedFormatOfName("a/Report.PDF")).toBe("pdf");
    expect(extractedFormatOfName("page.htm")).toBe("html");
    expect(extractedFormatOfName("notes.md")).toBeNull();
    expect(checkType(".XLSX")).toBe("xlsx");
    expect(() => checkType("doc")).toThrow(/unknown document type "doc": use one of pdf, docx/);
    expect(describeLocator({ page: 3 })).toBe("p. 3");
    expect(describeLocator({ slide: 2 })).toBe("slide 2");
    expect(describeLocator({ sheet: "売上", row: 12 })).toBe('sheet "売上" row 12');
    expect(describeLocator(null)).toBe("");
  });
});

describe("chunkByLocator", () => {
  it("never lets a chunk cross a page or a sheet, keeps rows of one sheet together, and carries the heading over", async () => {
    const text = "# Intro\n\npage one text\n\npage two text\n\nrow 1\nrow 2\n";
    const p2 = text.indexOf("page two");
    const r1 = text.indexOf("row 1");
    const r2 = text.indexOf("row 2");
    const segments = [
      { start: 0, end: p2 - 2, locator: { page: 1 } },
      { start: p2, end: r1 - 2, locator: { page: 2 } },
      { start: r1, end: r2, locator: { sheet: "S", row: 1 } },
      { start: r2, end: text.length, locator: { sheet: "S", row: 2 } },
    ];
    expect(locatorRanges(text, segments)).toEqual([
      { start: 0, end: p2 },
      { start: p2, end: r1 },
      { start: r1, end: text.length },
    ]);
    const whole = (slice: string) => [
      { index: 0, start: 0, end: slice.length, text: slice, headingPath: slice.startsWith("#") ? ["Intro"] : [] },
    ];
    const chunks = await chunkByLocator(text, segments, whole);
    expect(chunks.map((c) => [c.index, c.start, c.end, c.headingPath])).toEqual([
      [0, 0, p2, ["Intro"]],
      [1, p2, r1, ["Intro"]],
      [2, r1, text.length, ["Intro"]],
    ]);
    expect(locatorRanges("abc", [])).toEqual([{ start: 0, end: 3 }]);
  });
});
