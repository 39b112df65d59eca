import { chunkCode } from "./code.js";
import { codeLanguage } from "./code-languages.js";
import { chunkRange, resolveOptions } from "./text.js";
import type { Chunk, ChunkOptions } from "./types.js";

interface Section {
  start: number;
  end: number;
  headingPath: string[];
  /** True when the section holds only its heading line. */
  headingOnly: boolean;
}

const HEADING = /^ {0,3}(#{1,6})[ \t]+(.*?)[ \t#]*$/;
const FENCE = /^ {0,3}(```|~~~)/;

/** Splits Markdown into sections, one per ATX heading (headings inside code fences ignored). */
export function markdownSections(text: string): Section[] {
  const sections: Section[] = [];
  const stack: { level: number; title: string }[] = [];
  let current: Section = { start: 0, end: 0, headingPath: [], headingOnly: false };
  let currentHasBody = false;
  let fence: string | null = null;
  let offset = 0;
  while (offset < text.length) {
    const newline = text.indexOf("\n", offset);
    const lineEnd = newline === -1 ? text.length : newline + 1;
    const line = text.slice(offset, lineEnd).replace(/\r?\n$/, "");
    const fenceMatch = FENCE.exec(line);
    if (fenceMatch) {
      const marker = fenceMatch[1] as string;
      if (fence === null) fence = marker;
      else if (fence === marker) fence = null;
    }
    const heading = fence === null && !fenceMatch ? HEADING.exec(line) : null;
    if (heading) {
      current.end = offset;
      current.headingOnly = current.headingPath.length > 0 && !currentHasBody;
      if (current.end > current.start) sections.push(current);
      const level = (heading[1] as string).length;
      while (stack.length > 0 && (stack[stack.length - 1] as { level: number }).level >= level) stack.pop();
      stack.push({ level, title: (heading[2] as string).trim() });
      current = { start: offset, end: 0, headingPath: stack.map((h) => h.title), headingOnly: false };
      currentHasBody = false;
    } else if (line.trim() !== "") currentHasBody = true;
    offset = lineEnd;
  }
  current.end = text.length;
  current.headingOnly = current.headingPath.length > 0 && !currentHasBody;
  if (current.end > current.start) sections.push(current);
  return sections;
}

/** The ranges chunkMarkdown cuts, each with its heading path: sections, a heading with no text joined to the next. */
function sectionRanges(text: string): { start: number; end: number; headingPath: string[] }[] {
  const ranges: { start: number; end: number; headingPath: string[] }[] = [];
  const sections = markdownSections(text);
  let pendingStart: number | null = null;
  for (const section of sections) {
    if (section.headingOnly) {
      pendingStart ??= section.start;
      continue;
    }
    ranges.push({ start: pendingStart ?? section.start, end: section.end, headingPath: section.headingPath });
    pendingStart = null;
  }
  if (pendingStart !== null) {
    const last = sections[sections.length - 1] as Section;
    ranges.push({ start: pendingStart, end: last.end, headingPath: last.headingPath });
  }
  return ranges;
}

/**
 * Markdown-aware strategy: each heading section stays together when it fits, is split by
 * sentences when it does not, and every chunk records the heading path it sits under.
 * A heading with no text of its own is joined to the section after it.
 */
export function chunkMarkdown(text: string, options: ChunkOptions = {}): Chunk[] {
  resolveOptions(options);
  const chunks: Chunk[] = [];
  for (const range of sectionRanges(text)) {
    for (const piece of chunkRange(text, range.start, range.end, options)) {
      chunks.push({ ...piece, index: chunks.length, headingPath: range.headingPath });
    }
  }
  return chunks;
}

const FENCE_OPEN = /^ {0,3}(`{3,}|~{3,})[ \t]*([^\s`{]*)/;

/** Fenced code blocks in text[from, to) whose info string names a language the code chunker parses. */
function codeFences(
  text: string,
  from: number,
  to: number,
): { start: number; codeStart: number; codeEnd: number; end: number; language: string }[] {
  const fences: { start: number; codeStart: number; codeEnd: number; end: number; language: string }[] = [];
  let open: { start: number; codeStart: number; marker: string; language: string | undefined } | null = null;
  let offset = from;
  while (offset < to) {
    const newline = text.indexOf("\n", offset);
    const lineEnd = newline === -1 || newline >= to ? to : newline + 1;
    const line = text.slice(offset, lineEnd).replace(/\r?\n$/, "");
    if (open === null) {
      const match = FENCE_OPEN.exec(line);
      if (match) open = { start: offset, codeStart: lineEnd, marker: match[1] as string, language: codeLanguage(match[2] || undefined) };
    } else {
      const trimmed = line.trim();
      if (trimmed.length >= open.marker.length && trimmed === (open.marker[0] as string).repeat(trimmed.length)) {
        if (open.language)
          fences.push({ start: open.start, codeStart: open.codeStart, codeEnd: offset, end: lineEnd, language: open.language });
        open = null;
      }
    }
    offset = lineEnd;
  }
  return fences;
}

/**
 * chunkMarkdown, with fenced code handed to the code chunker: in a section too long for one
 * chunk, a fenced block tagged with a language chunkCode parses (```ts, ```python…) is cut like a
 * code file, its chunks carrying the section's heading path followed by their declaration path,
 * and `language`, `symbol`, `symbolKind`, `lineStart`/`lineEnd` (lines of the whole document).
 * The fence lines themselves are left out. Everything else is cut exactly as chunkMarkdown does.
 */
export async function chunkMarkdownWithCode(text: string, options: ChunkOptions = {}): Promise<Chunk[]> {
  const { size } = resolveOptions(options);
  const chunks: Chunk[] = [];
  const push = (piece: Chunk, headingPath: string[]) => chunks.push({ ...piece, index: chunks.length, headingPath });
  for (const range of sectionRanges(text)) {
    const fences = range.end - range.start > size ? codeFences(text, range.start, range.end) : [];
    let prose = range.start;
    for (const fence of fences) {
      for (const piece of chunkRange(text, prose, fence.start, options)) push(piece, range.headingPath);
      const code = text.slice(fence.codeStart, fence.codeEnd);
      const lineOffset = lineOf(text, fence.codeStart) - 1;
      for (const piece of await chunkCode(code, { ...options, language: fence.language })) {
        chunks.push({
          ...piece,
          index: chunks.length,
          start: piece.start + fence.codeStart,
          end: piece.end + fence.codeStart,
          headingPath: [...range.headingPath, ...(piece.headingPath ?? [])],
          ...(piece.lineStart !== undefined ? { lineStart: piece.lineStart + lineOffset } : {}),
          ...(piece.lineEnd !== undefined ? { lineEnd: piece.lineEnd + lineOffset } : {}),
        });
      }
      prose = fence.end;
    }
    for (const piece of chunkRange(text, prose, range.end, options)) push(piece, range.headingPath);
  }
  return chunks;
}

function lineOf(text: string, offset: number): number {
  let line = 1;
  for (let i = text.indexOf("\n"); i !== -1 && i < offset; i = text.indexOf("\n", i + 1)) line++;
  return line;
}
