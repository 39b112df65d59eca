// chunkCode: code cut by its syntax tree (tree-sitter) into declaration-shaped chunks, packed up to
// the chunk size, with line windows for what cannot be cut that way.
import type { Node, Tree } from "web-tree-sitter";
import { type LanguageSpec, specFor } from "./code-languages.js";
import { type Segment, tile } from "./code-segments.js";
import { Source } from "./code-source.js";
import { unitsOf } from "./code-units.js";
import { parserFor } from "./grammars.js";
import { chunkRange, resolveOptions } from "./text.js";
import type { Chunk, ChunkOptions, CodeFallback, SymbolKind } from "./types.js";

export interface CodeChunkOptions extends ChunkOptions {
  /** The language (or an alias: `ts`, `py`, `c++`, `shell`…). One of CODE_LANGUAGES is parsed; anything else is cut by line windows. */
  language?: string;
}

/**
 * A file whose ERROR nodes cover more than this share of its characters is not trusted: its
 * declarations cannot be told apart from the debris, so it is cut by line windows instead.
 * Below it, a stray token or two leaves the rest of the tree usable and the file is cut by it.
 */
export const MAX_ERROR_SHARE = 0.1;

/** Share of the text inside ERROR nodes (0 for a clean parse). */
function errorShare(tree: Tree, length: number): number {
  const root = tree.rootNode;
  if (!root.hasError) return 0;
  if (root.type === "ERROR") return 1;
  const spans = root
    .descendantsOfType("ERROR")
    .filter((n): n is Node => n !== null)
    .map((n) => [n.startIndex, n.endIndex] as const)
    .sort((a, b) => a[0] - b[0]);
  let covered = 0;
  let reach = 0;
  for (const [start, end] of spans) {
    const from = Math.max(start, reach);
    if (end > from) covered += end - from;
    reach = Math.max(reach, end);
  }
  return covered / Math.max(1, length);
}

/** The tree for `text`, or undefined when too much of it does not parse. The caller deletes the tree. */
async function parse(spec: LanguageSpec, text: string): Promise<Tree | undefined> {
  const tree = (await parserFor(spec.grammar)).parse(text);
  if (!tree) return undefined;
  if (errorShare(tree, text.length) > MAX_ERROR_SHARE) {
    tree.delete();
    return undefined;
  }
  return tree;
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

/** What every chunk cut from one group of segments says about itself. */
interface Meta {
  headingPath: string[];
  doc?: string;
  language?: string;
  symbol?: string;
  symbolKind?: SymbolKind;
  symbols?: { symbol: string; kind: SymbolKind }[];
  fallback?: CodeFallback;
}

function groupMeta(group: Segment[], language: string | undefined): Meta {
  const meta: Meta = { headingPath: commonPrefix(group.map((s) => s.path)) };
  if (language) meta.language = language;
  const declarations = group.filter((s) => s.declaration && s.names.length > 0);
  // Short heads of outer declarations (`namespace app {`) do not name a chunk that is about what is inside them.
  const last = group[group.length - 1] as Segment;
  const named = declarations.filter((s) => !s.sticky || s.scope === last.scope);
  const lead = named[0] ?? declarations[0] ?? group.find((s) => s.names.length > 0);
  if (lead) {
    meta.symbol = lead.names.join(".");
    if (lead.kind) meta.symbolKind = lead.kind;
  }
  if (declarations.length > 1) {
    const seen = new Set<string>();
    const symbols: { symbol: string; kind: SymbolKind }[] = [];
    // The lead first, then the others in order.
    for (const s of lead ? [lead, ...declarations] : declarations) {
      const symbol = s.names.join(".");
      if (seen.has(symbol) || s.kind === undefined) continue;
      seen.add(symbol);
      symbols.push({ symbol, kind: s.kind });
    }
    if (symbols.length > 1) meta.symbols = symbols;
  }
  const docs = [...new Set(declarations.map((s) => s.doc).filter((d): d is string => d !== undefined))];
  if (docs.length > 0) meta.doc = docs.join("\n");
  return meta;
}

function withMeta(chunk: Chunk, meta: Meta, source: Source): Chunk {
  const out: Chunk = { ...chunk };
  if (meta.headingPath.length > 0) out.headingPath = meta.headingPath;
  if (meta.language !== undefined) out.language = meta.language;
  if (meta.symbol !== undefined) out.symbol = meta.symbol;
  if (meta.symbolKind !== undefined) out.symbolKind = meta.symbolKind;
  if (meta.symbols !== undefined) out.symbols = meta.symbols;
  if (meta.doc !== undefined) out.doc = meta.doc;
  out.lineStart = source.lineOf(chunk.start);
  out.lineEnd = source.lineOf(Math.max(chunk.start, chunk.end - 1));
  if (meta.fallback !== undefined) out.fallback = meta.fallback;
  return out;
}

/**
 * Code-aware strategy, by tree-sitter: chunks follow declarations (functions, classes, types…)
 * with their comments, decorators and attributes; a declaration longer than `size` is cut again at
 * its members (methods, impl functions…); small neighbours are packed together up to `size`; a
 * declaration with no members that is still too long is cut into line windows sharing about
 * `overlap` characters. Chunks record `language`, `symbol`, `symbolKind`, `lineStart`/`lineEnd` and
 * the declaration path as `headingPath`. Code in a language without a grammar, or that does not
 * parse, is cut by line windows and its chunks carry `fallback`.
 */
export async function chunkCode(text: string, options: CodeChunkOptions = {}): Promise<Chunk[]> {
  const { size, overlap } = resolveOptions(options);
  if (text.trim() === "") return [];
  const source = new Source(text);
  const spec = specFor(options.language);
  const language = spec ? (spec.language ?? spec.name) : options.language?.trim().toLowerCase();
  const whole: Segment = { from: 0, to: source.lineCount, path: [], names: [], declaration: false, scope: 0 };

  let segments: Segment[] = [whole];
  let fallback: CodeFallback | undefined = "unsupported_language";
  if (spec) {
    const tree = await parse(spec, text);
    if (!tree) fallback = "syntax_error";
    else {
      try {
        const top = { path: [], names: [], scope: 0 };
        segments = tile(unitsOf(tree.rootNode, spec), 0, source.lineCount, top, spec, source, size, 0, { next: 0 });
        fallback = undefined;
      } finally {
        tree.delete();
      }
    }
  }

  const chunks: Chunk[] = [];
  const emit = (from: number, to: number, meta: Meta) => {
    let start = source.starts[from] as number;
    let end = source.starts[to] as number;
    while (start < end && /\s/.test(text[start] as string)) start++;
    while (start > (source.starts[from] as number) && text[start - 1] !== "\n") start--; // keep the first line's indentation
    while (end > start && /\s/.test(text[end - 1] as string)) end--;
    if (end <= start || text.slice(start, end).trim() === "") return;
    chunks.push(withMeta({ index: 0, text: text.slice(start, end), start, end }, meta, source));
  };

  let group: Segment[] = [];
  const flush = () => {
    if (group.length === 0) return;
    const from = (group[0] as Segment).from;
    const to = (group[group.length - 1] as Segment).to;
    const meta = groupMeta(group, language);
    if (fallback) meta.fallback = fallback;
    group = [];
    if (source.length(from, to) <= size) emit(from, to, meta);
    else lineWindows(source, from, to, size, overlap, meta, emit, chunks, options);
  };
  for (const segment of segments) {
    const groupFrom = group.length > 0 ? (group[0] as Segment).from : segment.from;
    const previous = group[group.length - 1];
    if (previous && ((previous.scope !== segment.scope && !previous.sticky) || source.length(groupFrom, segment.to) > size)) flush();
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
  meta: Meta,
  emit: (from: number, to: number, meta: Meta) => void,
  chunks: Chunk[],
  options: ChunkOptions,
): void {
  let a = from;
  while (a < to) {
    if (source.length(a, a + 1) > size) {
      // One line longer than a chunk (minified code, a data blob): cut it by characters.
      for (const piece of chunkRange(source.text, source.starts[a] as number, source.starts[a + 1] as number, options)) {
        chunks.push(withMeta(piece, meta, source));
      }
      a++;
      continue;
    }
    let b = a + 1;
    while (b < to && source.length(a, b + 1) <= size) b++;
    emit(a, b, meta);
    if (b >= to) break;
    let next = b;
    while (next - 1 > a && source.length(next - 1, b) <= overlap) next--;
    a = next;
  }
}
