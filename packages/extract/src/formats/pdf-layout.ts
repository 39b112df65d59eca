// Puts one PDF page's text pieces back into reading order: lines from positions, two columns read
// one after the other (found from a clear vertical gap), CJK joined without spaces, larger type as headings.

/** A run of text as the PDF library reports it: its baseline start, advance width and font size, in points. */
export interface TextPiece {
  str: string;
  x: number;
  y: number;
  width: number;
  size: number;
}

interface Line {
  y: number;
  size: number;
  text: string;
}

const CJK = /[\u3000-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff00-\uffef\uac00-\ud7af]/;

/** Counts characters by font size across a document, to tell body text from headings. */
export class SizeCensus {
  private readonly chars = new Map<number, number>();

  add(pieces: TextPiece[]): void {
    for (const piece of pieces) {
      const size = Math.round(piece.size * 2) / 2;
      this.chars.set(size, (this.chars.get(size) ?? 0) + piece.str.length);
    }
  }

  /** The size most characters so far are set in. */
  body(): number {
    let best = 0;
    let most = -1;
    for (const [size, count] of this.chars) {
      if (count > most) [best, most] = [size, count];
    }
    return best;
  }
}

/** The page's text as Markdown: paragraphs separated by blank lines, larger lines as `#`/`##` headings. */
export function layoutPage(pieces: TextPiece[], bodySize: number): string {
  const usable = pieces.filter((piece) => piece.str.trim() !== "" && Number.isFinite(piece.x) && Number.isFinite(piece.y));
  const blocks: Line[][] = [];
  for (const group of readingGroups(usable)) blocks.push(toLines(group));
  const out: string[] = [];
  for (const lines of blocks) {
    let previous: Line | undefined;
    let heading: { level: number; text: string; size: number } | undefined;
    const flushHeading = () => {
      if (heading) out.push("", `${"#".repeat(heading.level)} ${heading.text}`, "");
      heading = undefined;
    };
    for (const line of lines) {
      const level = headingLevel(line, bodySize);
      if (level) {
        // A heading that wraps onto a second line at the same size stays one heading.
        if (heading && heading.level === level && Math.abs(heading.size - line.size) < 0.5)
          heading.text += joinText(heading.text, line.text);
        else {
          flushHeading();
          heading = { level, text: line.text, size: line.size };
        }
        previous = line;
        continue;
      }
      flushHeading();
      if (previous && previous.y - line.y > 1.8 * Math.max(previous.size, line.size)) out.push("");
      out.push(/^#{1,6}\s/.test(line.text) ? `\\${line.text}` : line.text);
      previous = line;
    }
    flushHeading();
    out.push("");
  }
  return out
    .join("\n")
    .replace(/\n{3,}/g, "\n\n")
    .trim();
}

function headingLevel(line: Line, bodySize: number): number {
  if (bodySize <= 0 || line.text.length > 200 || !/\p{L}/u.test(line.text)) return 0;
  if (line.size >= bodySize * 1.6) return 1;
  if (line.size >= bodySize * 1.2) return 2;
  return 0;
}

/**
 * Splits the page into groups read one after another. With two columns (a vertical gap that no
 * column-width piece crosses, text on both sides), each stretch between full-width lines is read
 * left column first, then right; otherwise the whole page is one group.
 */
function readingGroups(pieces: TextPiece[]): TextPiece[][] {
  const gutter = findGutter(pieces);
  if (!gutter) return [pieces];
  const groups: TextPiece[][] = [];
  let left: TextPiece[] = [];
  let right: TextPiece[] = [];
  let full: TextPiece[] = [];
  const flushColumns = () => {
    if (left.length) groups.push(left);
    if (right.length) groups.push(right);
    left = [];
    right = [];
  };
  const sorted = [...pieces].sort((a, b) => b.y - a.y || a.x - b.x);
  for (const piece of sorted) {
    const side = piece.x + piece.width <= gutter.start + 1 ? "left" : piece.x >= gutter.end - 1 ? "right" : "full";
    if (side === "full") {
      flushColumns();
      full.push(piece);
      continue;
    }
    if (full.length) {
      groups.push(full);
      full = [];
    }
    (side === "left" ? left : right).push(piece);
  }
  flushColumns();
  if (full.length) groups.push(full);
  return groups;
}

/** The widest empty vertical band in the middle of the text that has at least three lines on each side. */
function findGutter(pieces: TextPiece[]): { start: number; end: number } | undefined {
  if (pieces.length < 6) return undefined;
  const left = Math.min(...pieces.map((p) => p.x));
  const right = Math.max(...pieces.map((p) => p.x + p.width));
  const span = right - left;
  if (span <= 0) return undefined;
  const narrow = pieces.filter((p) => p.width < span * 0.55);
  const covered = new Uint8Array(Math.ceil(span) + 1);
  for (const piece of narrow) {
    const from = Math.max(0, Math.floor(piece.x - left));
    const to = Math.min(covered.length - 1, Math.ceil(piece.x + piece.width - left));
    covered.fill(1, from, to + 1);
  }
  let best: { start: number; end: number } | undefined;
  const low = Math.floor(span * 0.2);
  const high = Math.ceil(span * 0.8);
  for (let at = low; at <= high; at++) {
    if (covered[at]) continue;
    let end = at;
    while (end + 1 < covered.length && !covered[end + 1]) end++;
    if (end < high && (!best || end - at > best.end - best.start)) best = { start: left + at, end: left + end + 1 };
    at = end;
  }
  const body = pieces.map((p) => p.size).sort((a, b) => a - b)[Math.floor(pieces.length / 2)] ?? 10;
  if (!best || best.end - best.start < Math.max(6, body)) return undefined;
  const gutter = best;
  const leftLines = new Set(narrow.filter((p) => p.x + p.width <= gutter.start + 1).map((p) => Math.round(p.y)));
  const rightLines = new Set(narrow.filter((p) => p.x >= gutter.end - 1).map((p) => Math.round(p.y)));
  return leftLines.size >= 3 && rightLines.size >= 3 ? gutter : undefined;
}

/** Pieces grouped into lines by baseline, top down, each line's pieces left to right and joined. */
function toLines(pieces: TextPiece[]): Line[] {
  const sorted = [...pieces].sort((a, b) => b.y - a.y || a.x - b.x);
  const rows: TextPiece[][] = [];
  for (const piece of sorted) {
    const row = rows.at(-1);
    const first = row?.[0];
    if (row && first && Math.abs(first.y - piece.y) <= 0.4 * Math.max(first.size, piece.size)) row.push(piece);
    else rows.push([piece]);
  }
  return rows.map((row) => {
    row.sort((a, b) => a.x - b.x);
    let text = "";
    let end = Number.NEGATIVE_INFINITY;
    for (const piece of row) {
      const gap = piece.x - end;
      text += text === "" ? piece.str : gap > 0.2 * piece.size ? joinText(text, piece.str) : piece.str;
      end = Math.max(end, piece.x + piece.width);
    }
    return {
      y: row[0]?.y ?? 0,
      size: Math.max(...row.map((p) => p.size)),
      text: text.replace(/\s+/g, " ").trim(),
    };
  });
}

/** `next` as it follows `before`: after a space, unless either side already has one or both sides are CJK. */
function joinText(before: string, next: string): string {
  const last = before.at(-1) ?? "";
  const first = next[0] ?? "";
  if (/\s/.test(last) || /\s/.test(first) || (CJK.test(last) && CJK.test(first))) return next;
  return ` ${next}`;
}
