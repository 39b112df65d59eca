import { declarationLabel, type LanguageRules, rulesFor } from "./code-languages.js";
import { chunkRange, resolveOptions } from "./text.js";
import type { Chunk, ChunkOptions } from "./types.js";

export interface CodeChunkOptions extends ChunkOptions {
  /** typescript, javascript, python, go, rust or java cut at declarations; anything else by line windows. */
  language?: string;
}

/** A run of whole lines [from, to) and the declarations it sits in, outermost first. */
interface Segment {
  from: number;
  to: number;
  path: string[];
}

/** Offsets of line starts; the last entry is the text length, so line i is [starts[i], starts[i+1]). */
function lineStarts(text: string): number[] {
  const starts = [0];
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) === 10 && i + 1 < text.length) starts.push(i + 1);
  starts.push(text.length);
  return starts;
}

function indentation(line: string): number {
  return line.length - line.trimStart().length;
}

class Source {
  readonly starts: number[];
  constructor(readonly text: string) {
    this.starts = lineStarts(text);
  }
  get lineCount(): number {
    return this.starts.length - 1;
  }
  line(i: number): string {
    return this.text.slice(this.starts[i], this.starts[i + 1]).replace(/\r?\n$/, "");
  }
  /** Characters in lines [from, to). */
  length(from: number, to: number): number {
    return (this.starts[to] as number) - (this.starts[from] as number);
  }
  blank(i: number): boolean {
    return this.line(i).trim() === "";
  }
}

/** Moves a declaration's first line up over the comments, decorators and attributes that belong to it. */
function withPreamble(source: Source, declLine: number, floor: number, rules: LanguageRules): number {
  let start = declLine;
  while (start - 1 >= floor && !source.blank(start - 1) && rules.preamble.test(source.line(start - 1))) start--;
  return start;
}

/**
 * Cuts lines [from, to) at declarations: at column 0 when `bodyIndent` is 0, else at members
 * indented exactly `bodyIndent`. A declaration longer than `size` is cut again at its members.
 */
function declarationSegments(
  source: Source,
  from: number,
  to: number,
  rules: LanguageRules,
  size: number,
  path: string[],
  bodyIndent = 0,
): Segment[] {
  const pattern = bodyIndent === 0 ? rules.top : rules.member;
  if (!pattern) return [{ from, to, path }];
  const decls: { line: number; start: number; label: string }[] = [];
  for (let i = from; i < to; i++) {
    const line = source.line(i);
    if (indentation(line) !== bodyIndent || line.trim() === "") continue;
    const match = pattern.exec(line);
    if (!match) continue;
    const floor = decls.length > 0 ? (decls[decls.length - 1] as { line: number }).line + 1 : from;
    decls.push({ line: i, start: withPreamble(source, i, floor, rules), label: declarationLabel(match) });
  }
  if (decls.length === 0) return [{ from, to, path }];

  const segments: Segment[] = [];
  const first = decls[0] as { start: number };
  if (first.start > from) segments.push({ from, to: first.start, path });
  decls.forEach((decl, k) => {
    const end = k + 1 < decls.length ? (decls[k + 1] as { start: number }).start : to;
    const declPath = [...path, decl.label];
    if (source.length(decl.start, end) <= size || !rules.member) {
      segments.push({ from: decl.start, to: end, path: declPath });
      return;
    }
    // Too long: look for members one level in (methods of a class, fns of an impl).
    let inner = Number.POSITIVE_INFINITY;
    for (let i = decl.line + 1; i < end; i++) {
      const line = source.line(i);
      const indent = indentation(line);
      if (line.trim() !== "" && indent > bodyIndent && indent < inner) inner = indent;
    }
    if (!Number.isFinite(inner)) {
      segments.push({ from: decl.start, to: end, path: declPath });
      return;
    }
    const members = declarationSegments(source, decl.line + 1, end, rules, size, declPath, inner);
    const firstMember = members.findIndex((m) => m.path.length > declPath.length);
    if (firstMember === -1) {
      segments.push({ from: decl.start, to: end, path: declPath });
      return;
    }
    // The declaration's head (signature, fields, anything before its first member) leads.
    segments.push({ from: decl.start, to: (members[firstMember] as Segment).from, path: declPath });
    segments.push(...members.slice(firstMember));
  });
  return segments.filter((s) => s.to > s.from);
}

function commonPrefix(paths: string[][]): string[] {
  const [first, ...rest] = paths;
  if (!first) return [];
  let n = first.length;
  for (const p of rest) {
    let i = 0;
    while (i < n && i < p.length && p[i] === first[i]) i++;
    n = i;
  }
  return first.slice(0, n);
}

/**
 * Code-aware strategy: chunks follow top-level declarations (functions, classes, types; methods
 * when a class is too long), small neighbours are packed together up to `size`, and anything
 * still too long — or code in a language without rules — is cut into line windows that share
 * about `overlap` characters. Chunks record the declaration path as `headingPath`.
 */
export function chunkCode(text: string, options: CodeChunkOptions = {}): Chunk[] {
  const { size, overlap } = resolveOptions(options);
  const source = new Source(text);
  const rules = rulesFor(options.language);
  const all: Segment = { from: 0, to: source.lineCount, path: [] };
  const segments = rules ? declarationSegments(source, 0, source.lineCount, rules, size, []) : [all];

  const chunks: Chunk[] = [];
  const emit = (from: number, to: number, path: string[]) => {
    let start = source.starts[from] as number;
    let end = source.starts[to] as number;
    while (start < end && /\s/.test(text[start] as string)) start++;
    while (start > (source.starts[from] as number) && text[start - 1] !== "\n") start--; // keep the first line's indentation
    while (end > start && /\s/.test(text[end - 1] as string)) end--;
    if (end <= start || text.slice(start, end).trim() === "") return;
    chunks.push({ index: 0, text: text.slice(start, end), start, end, ...(path.length > 0 ? { headingPath: path } : {}) });
  };

  let group: Segment[] = [];
  const flush = () => {
    if (group.length === 0) return;
    const from = (group[0] as Segment).from;
    const to = (group[group.length - 1] as Segment).to;
    const path = commonPrefix(group.map((s) => s.path));
    group = [];
    if (source.length(from, to) <= size) emit(from, to, path);
    else lineWindows(source, from, to, size, overlap, path, emit, chunks, options);
  };
  for (const segment of segments) {
    const groupFrom = group.length > 0 ? (group[0] as Segment).from : segment.from;
    if (group.length > 0 && source.length(groupFrom, segment.to) > size) flush();
    group.push(segment);
  }
  flush();
  return chunks.map((c, index) => ({ ...c, index }));
}

/** Windows of whole lines up to `size` characters, each starting about `overlap` characters before the last one ended. */
function lineWindows(
  source: Source,
  from: number,
  to: number,
  size: number,
  overlap: number,
  path: string[],
  emit: (from: number, to: number, path: string[]) => void,
  chunks: Chunk[],
  options: ChunkOptions,
): void {
  let a = from;
  while (a < to) {
    if (source.length(a, a + 1) > size) {
      // One line longer than a chunk (minified code, a data blob): cut it by characters.
      for (const piece of chunkRange(source.text, source.starts[a] as number, source.starts[a + 1] as number, options)) {
        chunks.push({ ...piece, ...(path.length > 0 ? { headingPath: path } : {}) });
      }
      a++;
      continue;
    }
    let b = a + 1;
    while (b < to && source.length(a, b + 1) <= size) b++;
    emit(a, b, path);
    if (b >= to) break;
    let next = b;
    while (next - 1 > a && source.length(next - 1, b) <= overlap) next--;
    a = next;
  }
}
