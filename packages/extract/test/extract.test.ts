// Format detection: explicit format, media type, extension, then the content's first bytes.
import { zipSync } from "fflate";
import { describe, expect, it } from "vitest";
import { detectFormat, ExtractError, extract, sniffFormat } from "../src/index.js";
import { makePdf } from "./fixtures/pdf.js";

const text = (s: string) => new TextEncoder().encode(s);

describe("format detection", () => {
  it("prefers the explicit format, then the media type, then the extension", () => {
    expect(detectFormat({ format: "html", mediaType: "application/pdf", name: "a.docx" })).toBe("html");
    expect(detectFormat({ mediaType: "application/pdf; q=1", name: "a.docx" })).toBe("pdf");
    expect(detectFormat({ mediaType: "application/octet-stream", name: "Report.PDF" })).toBe("pdf");
    expect(detectFormat({ name: "notes.txt" })).toBeNull();
  });

  it("falls back to the content's first bytes", () => {
    expect(sniffFormat(makePdf({ pages: [{ lines: ["x"] }] }))).toBe("pdf");
    expect(sniffFormat(text("{\\rtf1\\ansi hello}"))).toBe("rtf");
    expect(sniffFormat(text("\ufeff<!DOCTYPE html><html><body>x</body></html>"))).toBe("html");
    expect(sniffFormat(text("<?xml version='1.0'?>\n<html xmlns='http://www.w3.org/1999/xhtml'></html>"))).toBe("html");
    const zip = (name: string) => zipSync({ "[Content_Types].xml": text("<Types/>"), [name]: text("<x/>") });
    expect(sniffFormat(zip("word/document.xml"))).toBe("docx");
    expect(sniffFormat(zip("ppt/presentation.xml"))).toBe("pptx");
    expect(sniffFormat(zip("xl/workbook.xml"))).toBe("xlsx");
    expect(sniffFormat(zipSync({ mimetype: [text("application/epub+zip"), { level: 0 }] }))).toBe("epub");
    expect(sniffFormat(text("just some words"))).toBeNull();
    expect(detectFormat({ name: "upload.bin", bytes: makePdf({ pages: [{ lines: ["x"] }] }) })).toBe("pdf");
  });

  it("extracts a PDF that arrives without a name or type, and says what it cannot tell", async () => {
    const result = await extract({ bytes: makePdf({ pages: [{ lines: ["nameless words"] }] }) });
    expect(result.text).toBe("nameless words");
    const error = await extract({ bytes: text("plain words"), name: "notes.xyz" }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ExtractError);
    expect((error as ExtractError).code).toBe("unsupported_format");
  });
});

describe("well-formed text", () => {
  it("replaces half a surrogate pair (a glyph the PDF's CMap does not map) with U+FFFD and says so", async () => {
    // 𦻙 (U+26ED9) has no CID in Adobe-Japan1's UniJIS-UTF16-H: PDF.js gives back only its low half.
    const result = await extract({ bytes: makePdf({ title: "𦻙 report", pages: [{ lines: ["東京𦻙大阪 and 𠮷野家"] }] }), format: "pdf" });
    expect(result.text).toBe("東京\ufffd大阪 and 𠮷野家");
    expect(result.text).not.toMatch(/[\uD800-\uDFFF]/u);
    expect(result.warnings.some((w) => /1 character\(s\) of the text .*U\+FFFD/.test(w))).toBe(true);
  });
});
