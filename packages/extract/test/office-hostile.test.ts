// Bad and hostile office files: each stops with a clear ExtractError code (or is read within bounds),
// never expanding XML entities, a zip bomb or a repeated-rows bomb into memory.
import { ExtractError, type ExtractInput, extract } from "@docdb/extract";
import { unzipSync } from "fflate";
import { describe, expect, it } from "vitest";
import { makeDocx, makeOds, makePptx, makeXlsx, zipParts } from "./fixtures/office.js";

async function failure(input: ExtractInput): Promise<ExtractError> {
  try {
    await extract(input);
  } catch (error) {
    if (error instanceof ExtractError) return error;
    throw error;
  }
  throw new Error("extract did not fail");
}

const LAUGHS = `<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol">${Array.from(
  { length: 9 },
  (_, i) => `<!ENTITY lol${i + 1} "${`&lol${i === 0 ? "" : i};`.repeat(10)}">`,
).join("")}]>`;

describe("hostile office files", () => {
  it("refuses a billion-laughs DOCTYPE in document.xml without expanding it", async () => {
    const parts = unzipSync(makeDocx({ sections: [{ heading: "x" }] }));
    parts["word/document.xml"] = new TextEncoder().encode(
      `${LAUGHS}<w:document xmlns:w="urn:w"><w:body><w:p><w:r><w:t>&lol9;</w:t></w:r></w:p></w:body></w:document>`,
    );
    const bytes = zipParts(parts);
    const before = process.memoryUsage().heapUsed;
    const error = await failure({ bytes, name: "laughs.docx" });
    expect(error.code).toBe("limit_exceeded");
    expect(error.message).toMatch(/entit/i);
    expect(process.memoryUsage().heapUsed - before).toBeLessThan(200 * 1024 * 1024);
  });

  it("refuses entity expansion in an XLSX's shared strings too", async () => {
    const xlsx = makeXlsx({ sheets: [{ name: "a", rows: [["x"]] }] });
    const parts = Object.fromEntries(Object.entries(unzipSync(xlsx)).map(([name, data]) => [name, new TextDecoder().decode(data)]));
    parts["xl/sharedStrings.xml"] = `${LAUGHS}<sst xmlns="urn:s"><si><t>&lol9;</t></si></sst>`;
    const error = await failure({ bytes: zipParts(parts), name: "laughs.xlsx" });
    expect(error.code).toBe("limit_exceeded");
  });

  it("calls an undeclared entity or broken XML corrupt", async () => {
    const bytes = zipParts({
      "word/document.xml": "<w:document xmlns:w='urn:w'><w:body><w:p><w:r><w:t>&nope;</w:t></w:r></w:p></w:body></w:document>",
    });
    const error = await failure({ bytes, name: "bad.docx" });
    expect(error.code).toBe("corrupt");
    expect(error.message).toContain("word/document.xml");
  });

  it.each(["docx", "pptx", "xlsx", "ods"])("calls a damaged or fake .%s corrupt with a clear message", async (kind) => {
    const notZip = await failure({ bytes: new TextEncoder().encode("just some text, not a zip"), name: `fake.${kind}` });
    expect(notZip.code).toBe("corrupt");
    expect(notZip.message).toContain(`not a real .${kind}`);
    const garbage = new Uint8Array(4096).map((_, i) => (i * 7919) % 251);
    garbage.set([0x50, 0x4b, 0x03, 0x04], 0);
    const damaged = await failure({ bytes: garbage, name: `damaged.${kind}` });
    expect(damaged.code).toBe("corrupt");
    expect(damaged.message).toContain(`.${kind}`);
  });

  it("stops a zip bomb at the inflated-size limit and too many entries at the entry limit", async () => {
    const bomb = zipParts({ "word/document.xml": `<w:document xmlns:w="urn:w">${" ".repeat(8 * 1024 * 1024)}</w:document>` });
    expect(bomb.length).toBeLessThan(100 * 1024);
    const inflated = await failure({ bytes: bomb, name: "bomb.docx", limits: { maxInflatedBytes: 1024 * 1024 } });
    expect(inflated.code).toBe("limit_exceeded");
    const many = zipParts(Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`ppt/slides/slide${i}.xml`, "<x/>"])));
    const entries = await failure({ bytes: many, name: "many.pptx", limits: { maxEntries: 20 } });
    expect(entries.code).toBe("limit_exceeded");
  });

  it("names the missing part when a package lacks its main document", async () => {
    const docx = await failure({ bytes: zipParts({ "docProps/core.xml": "<x/>" }), name: "empty.docx" });
    expect(docx.code).toBe("corrupt");
    expect(docx.message).toContain("word/document.xml is missing");
    const xlsx = await failure({ bytes: zipParts({ "docProps/core.xml": "<x/>" }), name: "empty.xlsx" });
    expect(xlsx.message).toContain("xl/workbook.xml is missing");
    const pptx = await failure({ bytes: zipParts({ "docProps/core.xml": "<x/>" }), name: "empty.pptx" });
    expect(pptx.message).toContain("ppt/presentation.xml is missing");
    const ods = await failure({ bytes: zipParts({ "meta.xml": "<x/>" }), name: "empty.ods" });
    expect(ods.message).toContain("content.xml is missing");
  });

  it("tells a password-protected Office file from a legacy binary one", async () => {
    const ole = new Uint8Array(2048);
    ole.set([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1], 0);
    const legacy = await failure({ bytes: ole, name: "old.docx" });
    expect(legacy.code).toBe("corrupt");
    expect(legacy.message).toContain("old binary Office file");
    const name = "EncryptedPackage";
    for (let i = 0; i < name.length; i++) ole[1024 + i * 2] = name.charCodeAt(i);
    const encrypted = await failure({ bytes: ole, name: "secret.xlsx" });
    expect(encrypted.code).toBe("encrypted");
    expect(encrypted.message).toContain("password");
    const ods = makeOds({ sheets: [] });
    const parts = unzipSync(ods);
    parts["META-INF/manifest.xml"] = new TextEncoder().encode("<manifest><file-entry><encryption-data/></file-entry></manifest>");
    expect((await failure({ bytes: zipParts(parts), name: "secret.ods" })).code).toBe("encrypted");
  });

  it("bounds repeated rows and columns in ODS, and stops at the text limit", async () => {
    const row =
      '<table:table-row table:number-rows-repeated="1000000"><table:table-cell office:value-type="string" table:number-columns-repeated="3"><text:p>爆弾</text:p></table:table-cell><table:table-cell table:number-columns-repeated="1000000"/></table:table-row>';
    const wide =
      '<table:table-row><table:table-cell table:number-columns-repeated="20000"/><table:table-cell office:value-type="string"><text:p>far</text:p></table:table-cell></table:table-row>';
    const content = `<office:document-content xmlns:office="urn:o" xmlns:table="urn:t" xmlns:text="urn:x"><office:body><office:spreadsheet><table:table table:name="S">${row}${wide}</table:table></office:spreadsheet></office:body></office:document-content>`;
    const bytes = makeOds({ sheets: [] }, content);
    const result = await extract({ bytes, name: "bomb.ods" });
    expect(result.text.split("\n").filter((line) => line === "| 爆弾 | 爆弾 | 爆弾 |")).toHaveLength(1000);
    expect(result.text).not.toContain("far");
    expect(result.warnings.join(" ")).toMatch(/repeated more than 1000 times/);
    expect(result.warnings.join(" ")).toMatch(/beyond column 16384/);
    const limited = await failure({ bytes, name: "bomb.ods", limits: { maxTextChars: 10_000 } });
    expect(limited.code).toBe("limit_exceeded");
  });

  it("leaves out XLSX cells past the last column with a warning", async () => {
    const xlsx = makeXlsx({ sheets: [{ name: "a", rows: [["x"]] }] });
    const parts = unzipSync(xlsx);
    parts["xl/worksheets/sheet1.xml"] = new TextEncoder().encode(
      '<worksheet xmlns="urn:s"><sheetData><row r="1"><c r="A1" t="inlineStr"><is><t>near</t></is></c><c r="ZZZZ1" t="inlineStr"><is><t>far</t></is></c></row></sheetData></worksheet>',
    );
    const result = await extract({ bytes: zipParts(parts), name: "wide.xlsx" });
    expect(result.text).toContain("| near |");
    expect(result.text).not.toContain("far");
    expect(result.warnings.join(" ")).toMatch(/beyond column/);
  });

  it("stops a CSV row that never ends (an unclosed quote) at the record limit", async () => {
    const bytes = new TextEncoder().encode(`a,b\n"unclosed,${"x".repeat(5 * 1024 * 1024)}\n`);
    const error = await failure({ bytes, name: "open.csv" });
    expect(error.code).toBe("limit_exceeded");
    expect(error.message).toContain("row 2");
  });

  it("still reads a deck whose slide list points at a missing slide, with a warning", async () => {
    const pptx = makePptx({ slides: [{ title: "one" }, { title: "two" }] });
    const parts = unzipSync(pptx);
    delete parts["ppt/slides/slide2.xml"];
    const result = await extract({ bytes: zipParts(parts), name: "holes.pptx" });
    expect(result.text).toContain("## Slide 1: one");
    expect(result.warnings.join(" ")).toContain("slide 2");
  });
});
