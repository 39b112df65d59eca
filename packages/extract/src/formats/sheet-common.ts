// What every spreadsheet reader shares: writing rows as Markdown table rows under a `## sheet`
// heading with a locator segment per block of rows, and showing numbers, dates and percentages.
import type { TextOut } from "./text-out.js";
import { tableRow, tableRule } from "./text-out.js";

/** Widest row read; cells further right are left out with a warning (Excel's own limit is 16,384). */
export const MAX_COLUMNS = 16_384;
/** A new locator segment starts after this many rows or characters, so a chunk's locator names its row. */
const ROWS_PER_SEGMENT = 50;
const CHARS_PER_SEGMENT = 2_000;

export class SheetWriter {
  private rows = 0;
  private segmentRows = 0;
  private segmentStart = 0;

  constructor(
    private readonly out: TextOut,
    private readonly sheet?: string,
  ) {}

  /** Writes one row (1-based `rowNumber`); empty rows and trailing empty cells are dropped. */
  row(rowNumber: number, cells: (string | undefined)[]): void {
    let width = cells.length;
    while (width > 0 && !cells[width - 1]) width -= 1;
    if (width === 0) return;
    const values: string[] = [];
    for (let i = 0; i < width; i++) values.push(cells[i] ?? "");
    const line = tableRow(values);
    const full = this.segmentRows >= ROWS_PER_SEGMENT || this.out.length - this.segmentStart >= CHARS_PER_SEGMENT;
    if (this.rows === 0 || full) {
      this.out.segment(this.sheet === undefined ? { row: rowNumber } : { sheet: this.sheet, row: rowNumber });
      this.segmentStart = this.out.length;
      this.segmentRows = 0;
    }
    if (this.rows === 0) {
      if (this.sheet !== undefined) this.out.block(`## ${this.sheet}`);
      this.out.block(`${line}\n${tableRule(width)}`);
    } else {
      this.out.line(line);
    }
    this.rows += 1;
    this.segmentRows += 1;
  }

  get rowCount(): number {
    return this.rows;
  }
}

/** A number as a person reads it: integers whole, others without binary noise (0.1 + 0.2 → 0.3). */
export function showNumber(value: number): string {
  if (!Number.isFinite(value)) return String(value);
  if (Number.isInteger(value)) return String(value);
  return String(Number.parseFloat(value.toPrecision(15)));
}

export type NumberKind = "number" | "date" | "time" | "datetime" | "percent";

/** What a number format code shows: a date, a time, both, a percentage or a plain number. */
export function formatKind(code: string): NumberKind {
  const bare = code
    .replace(/"[^"]*"/g, "")
    .replace(/\\./g, "")
    .replace(/\[(?!h+\]|m+\]|s+\])[^\]]*\]/gi, "")
    .replace(/general/gi, "")
    .replace(/e[+-]/gi, "");
  const date = /[ydeg]/i.test(bare) || /m{3,}/i.test(bare);
  const time = /[hs]/i.test(bare);
  if (date && time) return "datetime";
  if (date) return "date";
  if (time) return "time";
  return bare.includes("%") ? "percent" : "number";
}

/** Built-in number formats (ECMA-376 18.8.30, plus the East Asian date formats 27–36 and 50–58). */
export function builtinKind(id: number): NumberKind {
  if ((id >= 18 && id <= 21) || (id >= 45 && id <= 47)) return "time";
  if (id === 22) return "datetime";
  if ((id >= 14 && id <= 17) || (id >= 27 && id <= 36) || (id >= 50 && id <= 58)) return "date";
  if (id === 9 || id === 10) return "percent";
  return "number";
}

/** Shows a spreadsheet number the way its format says: dates and times as ISO 8601. */
export function showValue(value: number, kind: NumberKind, date1904 = false): string {
  if (kind === "percent") return `${showNumber(value * 100)}%`;
  if (kind === "number" || value < 0 || value > 2_958_465) return showNumber(value);
  let days = Math.floor(value);
  const seconds = Math.round((value - days) * 86_400);
  if (kind === "time") return clock(seconds);
  if (!date1904 && days < 60) days += 1; // Excel counts a 29 February 1900 that never was
  const epoch = date1904 ? Date.UTC(1904, 0, 1) : Date.UTC(1899, 11, 30);
  const day = new Date(epoch + days * 86_400_000).toISOString().slice(0, 10);
  return kind === "datetime" && seconds > 0 ? `${day}T${clock(seconds)}` : day;
}

function clock(seconds: number): string {
  const s = seconds % 86_400;
  const pad = (n: number) => String(n).padStart(2, "0");
  return `${pad(Math.floor(s / 3600))}:${pad(Math.floor((s % 3600) / 60))}:${pad(s % 60)}`;
}
