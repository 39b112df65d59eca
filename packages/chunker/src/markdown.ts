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

/**
 * Markdown-aware strategy: each heading section stays together when it fits, is split by
 * sentences when it does not, and every chunk records the heading path it sits under.
 * A heading with no text of its own is joined to the section after it.
 */
export function chunkMarkdown(text: string, options: ChunkOptions = {}): Chunk[] {
  resolveOptions(options);
  const chunks: Chunk[] = [];
  const sections = markdownSections(text);
  let pendingStart: number | null = null;
  for (const section of sections) {
    if (section.headingOnly) {
      pendingStart ??= section.start;
      continue;
    }
    const start: number = pendingStart ?? section.start;
    pendingStart = null;
    for (const piece of chunkRange(text, start, section.end, options)) {
      chunks.push({ ...piece, index: chunks.length, headingPath: section.headingPath });
    }
  }
  if (pendingStart !== null) {
    const last = sections[sections.length - 1] as Section;
    for (const piece of chunkRange(text, pendingStart, last.end, options)) {
      chunks.push({ ...piece, index: chunks.length, headingPath: last.headingPath });
    }
  }
  return chunks;
}
