// Spreadsheets: XLSX here (sheet XML streamed row by row, shared strings, number formats, cached
// formula values); ODS and CSV/TSV beside it. One `## sheet` section and row-block segments per sheet.
import type { Extracted, Extractor } from "../types.js";
import { mainPart, openPackage, readCoreProperties, readRels, requirePart } from "./ooxml.js";
import { builtinKind, formatKind, MAX_COLUMNS, type NumberKind, SheetWriter, showNumber, showValue } from "./sheet-common.js";
import { extractDelimited } from "./sheet-csv.js";
import { extractOds } from "./sheet-ods.js";
import { TextOut } from "./text-out.js";
import { attr, childNamed, childrenNamed, parseXml, parseXmlTree } from "./xml.js";

export const extractor: Extractor = {
  formats: ["xlsx", "ods", "csv", "tsv"],
  async extract(bytes, input): Promise<Extracted> {
    if (input.format === "ods") return extractOds(bytes, input.limits);
    if (input.format === "csv" || input.format === "tsv") return extractDelimited(bytes, input.format, input.limits);
    return extractXlsx(bytes, input.limits);
  },
};

async function extractXlsx(bytes: Uint8Array, limits: Parameters<Extractor["extract"]>[1]["limits"]): Promise<Extracted> {
  const parts = openPackage(bytes, limits, "xlsx");
  const workbookName = mainPart(parts, "xl/workbook.xml");
  const workbook = childNamed(parseXmlTree(requirePart(parts, workbookName, "xlsx"), workbookName), "workbook");
  const date1904 = ["1", "true"].includes(attr(childNamed(workbook, "workbookPr")?.attrs ?? {}, "date1904") ?? "");
  const rels = readRels(parts, workbookName);
  let strings: string[] = [];
  let kinds: NumberKind[] = [];
  for (const rel of rels.values()) {
    const part = parts.get(rel.target);
    if (!part) continue;
    if (rel.type.endsWith("/sharedStrings")) strings = readSharedStrings(part, rel.target);
    else if (rel.type.endsWith("/styles")) kinds = readStyleKinds(part, rel.target);
  }
  const core = readCoreProperties(parts);
  const out = new TextOut(limits.maxTextChars);
  const sheets = childrenNamed(childNamed(workbook, "sheets") ?? { name: "", attrs: {}, children: [] }, "sheet");
  const names: string[] = [];
  for (const sheet of sheets) {
    const name = attr(sheet.attrs, "name") ?? `Sheet${names.length + 1}`;
    const rel = rels.get(attr(sheet.attrs, "id", true) ?? "");
    if (!rel?.type.endsWith("/worksheet")) continue;
    const part = parts.get(rel.target);
    if (!part) {
      out.warnings.push(`sheet ${JSON.stringify(name)} (${rel.target}) is missing from the file`);
      continue;
    }
    names.push(name);
    readSheet(part, rel.target, new SheetWriter(out, name), { strings, kinds, date1904, warnings: out.warnings });
    parts.delete(rel.target);
  }
  const text = out.toString();
  if (!text.trim()) out.warnings.push("the workbook has no cell values");
  return {
    format: "xlsx",
    text,
    ...(core.title ? { title: core.title } : {}),
    metadata: { ...core.metadata, sheets: names.length },
    segments: out.segments,
    warnings: out.warnings,
  };
}

/** OOXML escapes control characters in strings as `_xHHHH_`. */
function unescapeOoxml(text: string): string {
  return text.includes("_x")
    ? text.replace(/_x([0-9A-Fa-f]{4})_/g, (_, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)))
    : text;
}

function readSharedStrings(bytes: Uint8Array, name: string): string[] {
  const strings: string[] = [];
  let current: string | null = null;
  let phonetic = 0;
  let inText = false;
  parseXml(bytes, name, {
    open(element) {
      if (element === "si") current = "";
      else if (element === "rPh") phonetic += 1;
      else if (element === "t") inText = true;
    },
    close(element) {
      if (element === "si") {
        strings.push(unescapeOoxml(current ?? ""));
        current = null;
      } else if (element === "rPh") phonetic -= 1;
      else if (element === "t") inText = false;
    },
    text(text) {
      if (inText && !phonetic && current !== null) current += text;
    },
  });
  return strings;
}

/** What each cell style (`s` attribute index) shows numbers as. */
function readStyleKinds(bytes: Uint8Array, name: string): NumberKind[] {
  const root = childNamed(parseXmlTree(bytes, name), "styleSheet");
  const custom = new Map<number, NumberKind>();
  for (const format of childrenNamed(childNamed(root, "numFmts") ?? { name: "", attrs: {}, children: [] }, "numFmt")) {
    custom.set(Number(attr(format.attrs, "numFmtId")), formatKind(attr(format.attrs, "formatCode") ?? ""));
  }
  const xfs = childNamed(root, "cellXfs");
  return (xfs ? childrenNamed(xfs, "xf") : []).map((xf) => {
    const id = Number(attr(xf.attrs, "numFmtId") ?? 0);
    return custom.get(id) ?? builtinKind(id);
  });
}

interface SheetContext {
  strings: string[];
  kinds: NumberKind[];
  date1904: boolean;
  warnings: string[];
}

/** Column index (0-based) of a cell reference such as `AB12`, or -1. */
function columnOf(ref: string | undefined): number {
  if (!ref) return -1;
  let column = 0;
  let i = 0;
  for (; i < ref.length; i++) {
    const code = ref.charCodeAt(i) & ~32;
    if (code < 65 || code > 90) break;
    column = column * 26 + (code - 64);
  }
  return i === 0 ? -1 : column - 1;
}

function readSheet(bytes: Uint8Array, name: string, writer: SheetWriter, context: SheetContext): void {
  let rowNumber = 0;
  let cells: (string | undefined)[] = [];
  let column = -1;
  let type = "n";
  let style = 0;
  let value: string | null = null;
  let capture = false;
  let phonetic = 0;
  let wide = false;
  parseXml(bytes, name, {
    open(element, attrs) {
      switch (element) {
        case "row":
          rowNumber = Number(attrs.r) || rowNumber + 1;
          cells = [];
          column = -1;
          break;
        case "c":
          column = columnOf(attrs.r) >= 0 ? columnOf(attrs.r) : column + 1;
          type = attrs.t ?? "n";
          style = Number(attrs.s ?? 0);
          value = null;
          break;
        case "v":
          capture = true;
          value = "";
          break;
        case "t":
          if (type === "inlineStr" && !phonetic) {
            capture = true;
            value ??= "";
          }
          break;
        case "rPh":
          phonetic += 1;
          break;
      }
    },
    close(element) {
      if (element === "v" || element === "t") capture = false;
      else if (element === "rPh") phonetic -= 1;
      else if (element === "c") {
        if (value === null || column < 0) return;
        if (column >= MAX_COLUMNS) {
          wide = true;
          return;
        }
        cells[column] = showCell(value, type, style, context);
      } else if (element === "row") writer.row(rowNumber, cells);
    },
    text(text) {
      if (capture && value !== null) value += text;
    },
  });
  if (wide) context.warnings.push(`sheet part ${name} has cells beyond column ${MAX_COLUMNS}; they were left out`);
}

function showCell(raw: string, type: string, style: number, context: SheetContext): string {
  switch (type) {
    case "s":
      return context.strings[Number(raw)] ?? "";
    case "b":
      return raw.trim() === "1" ? "TRUE" : "FALSE";
    case "str":
    case "inlineStr":
      return unescapeOoxml(raw);
    case "e":
      return raw;
    case "d":
      return raw.replace(/T00:00:00(\.0+)?Z?$/, "");
    default: {
      const number = Number(raw);
      if (raw.trim() === "" || Number.isNaN(number)) return raw;
      const kind = context.kinds[style] ?? "number";
      return kind === "number" ? showNumber(number) : showValue(number, kind, context.date1904);
    }
  }
}
