// Builds an extractor's Markdown output piece by piece: blocks, table rows, locator segments, and
// the text-size limit checked as it grows (so a repeated-rows bomb stops early).
import { ExtractError, type Locator, type Segment } from "../types.js";

export class TextOut {
  private readonly parts: string[] = [];
  private size = 0;
  private open: { start: number; locator: Locator } | null = null;
  private tail = "";
  readonly segments: Segment[] = [];
  readonly warnings: string[] = [];

  constructor(private readonly maxChars: number) {}

  get length(): number {
    return this.size;
  }

  /** Appends raw text. */
  write(text: string): void {
    if (!text) return;
    if (this.open && this.open.start < 0) this.open.start = this.size;
    this.append(text);
  }

  private append(text: string): void {
    this.size += text.length;
    if (this.size > this.maxChars) {
      throw new ExtractError(
        "limit_exceeded",
        `the extracted text passes the limit of ${this.maxChars} characters; the file is too large (or a repetition bomb)`,
      );
    }
    this.parts.push(text);
    this.tail = (this.tail + text).slice(-2);
  }

  /** Appends a block (paragraph, heading, list, table) separated from the previous one by a blank line. */
  block(text: string): void {
    if (!text) return;
    if (this.size > 0 && this.tail !== "\n\n") this.append(this.tail.endsWith("\n") ? "\n" : "\n\n");
    this.write(text);
    this.write("\n");
  }

  /** Appends one line right under the previous one (list items, table rows). */
  line(text: string): void {
    this.write(text);
    this.write("\n");
  }

  /** Starts a new locator segment at the next text written (after any block separator), closing the previous one. */
  segment(locator: Locator): void {
    this.closeSegment();
    this.open = { start: -1, locator };
  }

  closeSegment(): void {
    if (this.open && this.open.start >= 0 && this.size > this.open.start) {
      this.segments.push({ start: this.open.start, end: this.size, locator: this.open.locator });
    }
    this.open = null;
  }

  toString(): string {
    this.closeSegment();
    return this.parts.join("");
  }
}

/** One Markdown table row; pipes and line breaks inside cells are escaped so the row stays one line. */
export function tableRow(cells: string[]): string {
  return `| ${cells
    .map((cell) =>
      cell
        .replace(/\s*[\r\n]+\s*/g, " ")
        .replace(/\|/g, "\\|")
        .trim(),
    )
    .join(" | ")} |`;
}

/** The separator row that makes the row above a Markdown table header. */
export function tableRule(width: number): string {
  return `|${" --- |".repeat(Math.max(1, width))}`;
}

/** Keeps a paragraph from being read as a heading, rule or list marker it is not. */
export function plainParagraph(text: string): string {
  return text.replace(/^(#{1,6}\s)/, "\\$1");
}
