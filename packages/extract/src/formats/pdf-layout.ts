// Puts one PDF page's text pieces back into reading order: lines from positions, two columns read
// one after the other (found from a clear vertical gap), CJK joined without spaces, larger type as headings.

/** A run of text as the PDF library reports it: its baseline start, advance width and font size, in points. */
export interface TextPiece {
  str: string;
  x: number;
  y: number;
  width: number;
  size: number;
  /** Written top to bottom (a vertical CJK font): `x` is the column, `y` where it starts. */
  vertical?: boolean;
}

interface Line {
  y: number;
  size: number;
  text: string;
}

const CJK_CLASS = "[\u3000-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff00-\uffef]";
const CJK = new RegExp(CJK_CLASS);
/** Full-width marks that end a sentence or a quotation. */
const SENTENCE_END = /[。．！？」』）】]/;
/** A single space between two CJK glyphs: the PDF library's guess from letter spacing, never written. */
const SPACE_IN_CJK = new RegExp(`(${CJK_CLASS}) (?=${CJK_CLASS})`, "g");

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
  const across = usable.filter((piece) => !piece.vertical);
  const down = usable.filter((piece) => piece.vertical);
  const blocks: Line[][] = [];
  for (const group of readingGroups(across)) blocks.push(toLines(group));
  if (down.length) {
    // Mostly vertical (tategaki) pages read their columns first; headers and page numbers after.
    const chars = (list: TextPiece[]) => list.reduce((sum, piece) => sum + piece.str.length, 0);
    if (chars(down) >= chars(across)) blocks.unshift(verticalLines(down));
    else blocks.push(verticalLines(down));
  }
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
        const wraps = heading && previous && previous.y - line.y <= 1.8 * line.size && Math.abs(heading.size - line.size) < 0.5;
        if (heading && wraps && heading.level === level) heading.text += joinText(heading.text, line.text);
        else {
          flushHeading();
          heading = { level, text: line.text, size: line.size };
        }
        previous = line;
        continue;
      }
      flushHeading();
      if (previous && previous.y - line.y > 1.8 * Math.max(previous.size, line.size)) out.push("");
      const text = /^#{1,6}\s/.test(line.text) ? `\\${line.text}` : line.text;
      const last = out[out.length - 1];
      // Japanese wraps mid-word: a break between two CJK glyphs of one paragraph is no break, unless
      // the line ends a sentence or a quotation (then the line break is kept as written).
      const end = last?.slice(-1) ?? "";
      if (previous && last && CJK.test(end) && !SENTENCE_END.test(end) && CJK.test(text.charAt(0))) out[out.length - 1] = last + text;
      else out.push(text);
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
  const middle = findGutter(pieces);
  if (middle === undefined) return [pieces];
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
    const side = piece.x + piece.width <= middle ? "left" : piece.x >= middle ? "right" : "full";
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

/**
 * The widest vertical band in the middle of the text that column-width pieces leave (nearly)
 * empty, with at least three lines on each side. A few pieces may cross it (a short line above
 * the columns, a page number): one in twenty, and they are read as full-width lines. Returns the
 * band's middle: pieces left of it are the first column, right of it the second.
 */
function findGutter(pieces: TextPiece[]): number | undefined {
  if (pieces.length < 6) return undefined;
  const left = Math.min(...pieces.map((p) => p.x));
  const right = Math.max(...pieces.map((p) => p.x + p.width));
  const span = right - left;
  if (span <= 0) return undefined;
  const narrow = pieces.filter((p) => p.width < span * 0.55);
  const allowed = Math.floor(narrow.length / 20);
  const covered = new Uint16Array(Math.ceil(span) + 1);
  for (const piece of narrow) {
    const from = Math.max(0, Math.floor(piece.x - left));
    const to = Math.min(covered.length - 1, Math.ceil(piece.x + piece.width - left));
    for (let at = from; at <= to; at++) covered[at] = (covered[at] as number) + 1;
  }
  const open = (at: number) => (covered[at] as number) <= allowed;
  let best: { start: number; end: number } | undefined;
  const low = Math.floor(span * 0.2);
  const high = Math.ceil(span * 0.8);
  for (let at = low; at <= high; at++) {
    if (!open(at)) continue;
    let end = at;
    while (end + 1 < covered.length && open(end + 1)) end++;
    if (end < high && (!best || end - at > best.end - best.start)) best = { start: left + at, end: left + end + 1 };
    at = end;
  }
  const body = pieces.map((p) => p.size).sort((a, b) => a - b)[Math.floor(pieces.length / 2)] ?? 10;
  if (!best || best.end - best.start < Math.max(6, body)) return undefined;
  const middle = (best.start + best.end) / 2;
  const leftLines = new Set(narrow.filter((p) => p.x + p.width <= middle).map((p) => Math.round(p.y)));
  const rightLines = new Set(narrow.filter((p) => p.x >= middle).map((p) => Math.round(p.y)));
  return leftLines.size >= 3 && rightLines.size >= 3 ? middle : undefined;
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
      text: text.replace(/\s+/g, " ").replace(SPACE_IN_CJK, "$1").trim(),
    };
  });
}

/**
 * Vertical text as lines: pieces grouped into columns by x, read right to left, each column top
 * down; vertical presentation forms (︒ ︑ ﹁…) become their ordinary characters.
 */
function verticalLines(pieces: TextPiece[]): Line[] {
  const sorted = [...pieces].sort((a, b) => b.x - a.x || b.y - a.y);
  const columns: TextPiece[][] = [];
  for (const piece of sorted) {
    const column = columns.at(-1);
    const first = column?.[0];
    if (column && first && Math.abs(first.x - piece.x) <= 0.4 * Math.max(first.size, piece.size)) column.push(piece);
    else columns.push([piece]);
  }
  // A Line's `y` orders and spaces lines; for columns that is their x (right to left = top down).
  return columns.map((column) => ({
    y: column[0]?.x ?? 0,
    size: Math.max(...column.map((p) => p.size)),
    text: column
      .sort((a, b) => b.y - a.y)
      .map((p) => p.str)
      .join("")
      .replace(/[\ufe10-\ufe19\ufe30-\ufe4f]/g, (char) => char.normalize("NFKC"))
      .replace(/\s+/g, " ")
      .trim(),
  }));
}

/** `next` as it follows `before`: after a space, unless either side already has one or both sides are CJK. */
function joinText(before: string, next: string): string {
  const last = before.at(-1) ?? "";
  const first = next[0] ?? "";
  if (/\s/.test(last) || /\s/.test(first) || (CJK.test(last) && CJK.test(first))) return next;
  return ` ${next}`;
}
