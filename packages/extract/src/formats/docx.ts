// DOCX: streams word/document.xml in document order into Markdown — heading styles (and outline
// levels) as `#` lines, numbered/bulleted paragraphs as `-` items, tables as rows — plus core properties.
import type { Extracted, Extractor } from "../types.js";
import { childAttr, mainPart, openPackage, readCoreProperties, readRels, requirePart } from "./ooxml.js";
import { plainParagraph, TextOut, tableRow, tableRule } from "./text-out.js";
import { attr, childNamed, childrenNamed, parseXml, parseXmlTree } from "./xml.js";

interface ParagraphStyle {
  /** Heading level 1..6, or 0. */
  level: number;
  list: boolean;
}

export const extractor: Extractor = {
  formats: ["docx"],
  async extract(bytes, input): Promise<Extracted> {
    const parts = openPackage(bytes, input.limits, "docx");
    const documentName = mainPart(parts, "word/document.xml");
    const document = requirePart(parts, documentName, "docx");
    const styles = readStyles(parts, documentName);
    const core = readCoreProperties(parts);
    const out = new TextOut(input.limits.maxTextChars);
    readBody(document, documentName, styles, out);
    const text = out.toString();
    if (!text.trim()) out.warnings.push("the document has no text");
    return {
      format: "docx",
      text,
      ...(core.title ? { title: core.title } : {}),
      metadata: core.metadata,
      segments: [],
      warnings: out.warnings,
    };
  },
};

/** Heading level and list-ness of each paragraph style, following `basedOn` chains. */
function readStyles(parts: Map<string, Uint8Array>, documentName: string): Map<string, ParagraphStyle> {
  let stylesName = "word/styles.xml";
  for (const rel of readRels(parts, documentName).values()) if (rel.type.endsWith("/styles")) stylesName = rel.target;
  const bytes = parts.get(stylesName);
  const out = new Map<string, ParagraphStyle>();
  if (!bytes) return out;
  const root = childNamed(parseXmlTree(bytes, stylesName), "styles");
  if (!root) return out;
  const raw = new Map<string, { level: number; list: boolean; basedOn?: string }>();
  for (const style of childrenNamed(root, "style")) {
    const id = attr(style.attrs, "styleId");
    if (!id || (attr(style.attrs, "type") ?? "paragraph") !== "paragraph") continue;
    const name = (childAttr(style, "name", "val") ?? "").toLowerCase();
    const pPr = childNamed(style, "pPr");
    const outline = Number(childAttr(pPr, "outlineLvl", "val") ?? Number.NaN);
    let level = Number(name.match(/^heading\s*([1-9])$/)?.[1] ?? 0);
    if (name === "title") level = 1;
    if (!level && outline >= 0 && outline < 6) level = outline + 1;
    const numId = childAttr(childNamed(pPr, "numPr"), "numId", "val");
    const list = (numId !== undefined && numId !== "0") || /^list (bullet|number)/.test(name);
    raw.set(id, { level: Math.min(level, 6), list, basedOn: childAttr(style, "basedOn", "val") });
  }
  const resolve = (id: string, depth: number): ParagraphStyle => {
    const style = raw.get(id);
    if (!style) return { level: 0, list: false };
    if (style.level || style.list || !style.basedOn || depth > 20) return { level: style.level, list: style.list };
    return resolve(style.basedOn, depth + 1);
  };
  for (const id of raw.keys()) out.set(id, resolve(id, 0));
  return out;
}

interface Paragraph {
  text: string;
  style?: string;
  numbered?: boolean;
  ilvl: number;
  outline?: number;
}

interface Table {
  rows: string[][];
  row: string[] | null;
  cell: string[] | null;
}

const SKIPPED = new Set(["Fallback", "pPrChange", "rPrChange", "del", "moveFrom", "instrText", "delText"]);

function readBody(document: Uint8Array, name: string, styles: Map<string, ParagraphStyle>, out: TextOut): void {
  const stack: string[] = [];
  let skip = 0;
  let paragraph: Paragraph | null = null;
  let paragraphDepth = 0;
  const tables: Table[] = [];
  let inList = false;

  const emitParagraph = (p: Paragraph) => {
    const text = p.text.replace(/[ \t\r\n]+/g, " ").trim();
    if (!text) return;
    const table = tables[tables.length - 1];
    if (table) {
      table.cell?.push(text);
      return;
    }
    const style = p.style ? styles.get(p.style) : undefined;
    let level = style?.level ?? 0;
    if (p.outline !== undefined && p.outline < 6) level = p.outline + 1;
    if (level) {
      out.block(`${"#".repeat(level)} ${text}`);
      inList = false;
    } else if (p.numbered ?? style?.list) {
      const item = `${"  ".repeat(Math.min(p.ilvl, 8))}- ${text}`;
      if (inList) out.line(item);
      else out.block(item);
      inList = true;
    } else {
      out.block(plainParagraph(text));
      inList = false;
    }
  };

  const closeTable = () => {
    const table = tables.pop();
    if (!table || table.rows.length === 0) return;
    const outer = tables[tables.length - 1];
    if (outer) {
      outer.cell?.push(table.rows.map((row) => row.filter(Boolean).join(" ")).join("; "));
      return;
    }
    const width = Math.max(...table.rows.map((row) => row.length));
    const lines = table.rows.map((row, index) => (index === 0 ? `${tableRow(row)}\n${tableRule(width)}` : tableRow(row)));
    out.block(lines.join("\n"));
    inList = false;
  };

  parseXml(document, name, {
    open(element, attrs) {
      const parent = stack[stack.length - 1];
      stack.push(element);
      if (skip || SKIPPED.has(element)) {
        skip += 1;
        return;
      }
      switch (element) {
        case "p":
          paragraphDepth += 1;
          if (paragraphDepth === 1) paragraph = { text: "", ilvl: 0 };
          else if (paragraph) paragraph.text += " ";
          break;
        case "pStyle":
          if (paragraph && paragraphDepth === 1 && parent === "pPr") paragraph.style ??= attr(attrs, "val");
          break;
        case "numId":
          if (paragraph && paragraphDepth === 1) paragraph.numbered = attr(attrs, "val") !== "0";
          break;
        case "ilvl":
          if (paragraph && paragraphDepth === 1) paragraph.ilvl = Number(attr(attrs, "val")) || 0;
          break;
        case "outlineLvl":
          if (paragraph && paragraphDepth === 1 && parent === "pPr") paragraph.outline = Number(attr(attrs, "val"));
          break;
        case "tab":
        case "br":
        case "cr":
          if (paragraph && parent === "r") paragraph.text += " ";
          break;
        case "tbl":
          tables.push({ rows: [], row: null, cell: null });
          break;
        case "tr": {
          const table = tables[tables.length - 1];
          if (table) table.row = [];
          break;
        }
        case "tc": {
          const table = tables[tables.length - 1];
          if (table) table.cell = [];
          break;
        }
      }
    },
    close(element) {
      stack.pop();
      if (skip) {
        skip -= 1;
        return;
      }
      const table = tables[tables.length - 1];
      switch (element) {
        case "p":
          paragraphDepth -= 1;
          if (paragraphDepth === 0 && paragraph) {
            const done = paragraph;
            paragraph = null;
            emitParagraph(done);
          }
          break;
        case "tc":
          if (table?.row && table.cell) table.row.push(table.cell.join(" "));
          if (table) table.cell = null;
          break;
        case "tr":
          if (table?.row?.some(Boolean)) table.rows.push(table.row);
          if (table) table.row = null;
          break;
        case "tbl":
          closeTable();
          break;
      }
    },
    text(text) {
      if (!skip && paragraph && stack[stack.length - 1] === "t") paragraph.text += text;
    },
  });
}
