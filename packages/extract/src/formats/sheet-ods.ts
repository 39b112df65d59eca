// ODS: content.xml streamed table by table and row by row. Repeated rows and columns are expanded
// only where they hold values, and only so far, so a repetition bomb cannot fill memory.
import { ExtractError, type Extracted, type ExtractLimits } from "../types.js";
import { isoDate, openPackage, requirePart } from "./ooxml.js";
import { MAX_COLUMNS, SheetWriter } from "./sheet-common.js";
import { TextOut } from "./text-out.js";
import { attr, childNamed, parseXml, parseXmlTree, textOf } from "./xml.js";

/** A row that holds values and is repeated more often than this is written this many times, with a warning. */
const MAX_ROW_REPEAT = 1_000;

export async function extractOds(bytes: Uint8Array, limits: ExtractLimits): Promise<Extracted> {
  const parts = openPackage(bytes, limits, "ods");
  const manifest = parts.get("META-INF/manifest.xml");
  if (manifest && new TextDecoder().decode(manifest).includes("encryption-data")) {
    throw new ExtractError("encrypted", "the .ods file is password-protected; save a copy without the password and insert that");
  }
  const content = requirePart(parts, "content.xml", "ods");
  const out = new TextOut(limits.maxTextChars);
  const sheets = readContent(content, out);
  const meta = readMeta(parts.get("meta.xml"));
  const text = out.toString();
  if (!text.trim()) out.warnings.push("the spreadsheet has no cell values");
  return {
    format: "ods",
    text,
    ...(meta.title ? { title: meta.title } : {}),
    metadata: { ...meta.metadata, sheets },
    segments: out.segments,
    warnings: out.warnings,
  };
}

function readContent(content: Uint8Array, out: TextOut): number {
  let sheets = 0;
  let writer: SheetWriter | null = null;
  let rowNumber = 0;
  let rowRepeat = 1;
  let cells: string[] = [];
  let pendingEmpty = 0;
  let cell: { repeat: number; type: string; value?: string; date?: string; paragraphs: string[] } | null = null;
  let paragraph: string | null = null;
  let skip = 0;
  let wide = false;
  let capped = false;

  parseXml(content, "content.xml", {
    open(element, attrs) {
      if (skip || element === "annotation" || element === "shapes") {
        skip += 1;
        return;
      }
      switch (element) {
        case "table":
          sheets += 1;
          writer = new SheetWriter(out, attr(attrs, "name") ?? `Sheet${sheets}`);
          rowNumber = 0;
          break;
        case "table-row":
          rowRepeat = Math.max(1, Number(attr(attrs, "number-rows-repeated")) || 1);
          cells = [];
          pendingEmpty = 0;
          break;
        case "table-cell":
        case "covered-table-cell":
          cell = {
            repeat: Math.max(1, Number(attr(attrs, "number-columns-repeated")) || 1),
            type: attr(attrs, "value-type") ?? "",
            value: attr(attrs, "value") ?? attr(attrs, "boolean-value"),
            date: attr(attrs, "date-value"),
            paragraphs: [],
          };
          break;
        case "p":
        case "h":
          if (cell) paragraph = "";
          break;
        case "s":
          if (paragraph !== null) paragraph += " ".repeat(Math.min(Number(attr(attrs, "c")) || 1, 100));
          break;
        case "tab":
        case "line-break":
          if (paragraph !== null) paragraph += " ";
          break;
      }
    },
    close(element) {
      if (skip) {
        skip -= 1;
        return;
      }
      switch (element) {
        case "p":
        case "h":
          if (cell && paragraph !== null) cell.paragraphs.push(paragraph);
          paragraph = null;
          break;
        case "table-cell":
        case "covered-table-cell": {
          if (!cell) break;
          const shown = showOdsCell(cell);
          if (!shown) pendingEmpty += cell.repeat;
          else {
            if (cells.length + pendingEmpty + 1 > MAX_COLUMNS) wide = true;
            else {
              for (; pendingEmpty > 0; pendingEmpty--) cells.push("");
              for (let i = 0; i < cell.repeat && cells.length < MAX_COLUMNS; i++) cells.push(shown);
              if (cells.length >= MAX_COLUMNS && cell.repeat > 1) wide = true;
            }
          }
          cell = null;
          break;
        }
        case "table-row": {
          const current = writer as SheetWriter | null;
          if (current && cells.length > 0) {
            const times = Math.min(rowRepeat, MAX_ROW_REPEAT);
            if (rowRepeat > MAX_ROW_REPEAT) capped = true;
            for (let i = 0; i < times; i++) current.row(rowNumber + 1 + i, cells);
          }
          rowNumber += rowRepeat;
          break;
        }
        case "table":
          writer = null;
          break;
      }
    },
    text(text) {
      if (!skip && paragraph !== null) paragraph += text;
    },
  });
  if (wide) out.warnings.push(`cells beyond column ${MAX_COLUMNS} were left out`);
  if (capped) out.warnings.push(`a row repeated more than ${MAX_ROW_REPEAT} times was written ${MAX_ROW_REPEAT} times`);
  return sheets;
}

function showOdsCell(cell: { type: string; value?: string; date?: string; paragraphs: string[] }): string {
  if (cell.type === "date" && cell.date) return cell.date.replace(/T00:00:00(\.0+)?$/, "");
  if (cell.type === "boolean" && cell.value !== undefined) return cell.value === "true" ? "TRUE" : "FALSE";
  const text = cell.paragraphs
    .join(" ")
    .replace(/[ \t\r\n]+/g, " ")
    .trim();
  return text || (cell.value ?? "");
}

function readMeta(bytes: Uint8Array | undefined): { title?: string; metadata: Record<string, string> } {
  const result: { title?: string; metadata: Record<string, string> } = { metadata: {} };
  if (!bytes) return result;
  const meta = childNamed(childNamed(parseXmlTree(bytes, "meta.xml"), "document-meta"), "meta");
  if (!meta) return result;
  const value = (name: string) => {
    const node = childNamed(meta, name);
    return node ? textOf(node).trim() || undefined : undefined;
  };
  const title = value("title");
  if (title) result.title = title;
  const author = value("initial-creator") ?? value("creator");
  if (author) result.metadata.author = author;
  const created = isoDate(value("creation-date"));
  if (created) result.metadata.created = created;
  const modified = isoDate(value("date"));
  if (modified) result.metadata.modified = modified;
  return result;
}
