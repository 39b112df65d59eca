import type { Node, Tree } from "web-tree-sitter";
import { type LanguageSpec, specFor } from "./code-languages.js";
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

/** Kinds whose functions are methods. */
const TYPE_LIKE = new Set<SymbolKind>(["class", "struct", "interface", "trait", "impl", "enum"]);
/** Kinds cut at their members when too long; anything else (a function, a variable) is a leaf, cut by line windows. */
const CONTAINERS = new Set<SymbolKind>([...TYPE_LIKE, "module"]);

/** Characters up to which a long declaration's head joins its first member instead of being a chunk of its own. */
const SMALL_HEAD = 120;

/** A run of whole lines [from, to), what it holds, and the declarations it sits in, outermost first. */
interface Segment {
  from: number;
  to: number;
  /** Declaration labels (`export class TokenStore`), outermost first: the chunk's headingPath. */
  path: string[];
  /** Declaration names, outermost first: the symbol path. */
  names: string[];
  kind?: SymbolKind;
  /** True when the segment is a declaration (or a declaration's head), not code between declarations. */
  declaration: boolean;
  /** Which declaration's members the segment is among (0: the file's top level); only segments of one scope share a chunk. */
  scope: number;
  /** A short head of a split declaration: packed with the next segment even when that one is in a deeper scope. */
  sticky?: boolean;
  /** The declaration's documentation: its doc comment (or docstring), without comment markers. */
  doc?: string;
}

/** A top-level item of a body: a declaration, or anything else (imports, statements), with its lines. */
interface Unit {
  node: Node;
  declaration?: { node: Node; kind: SymbolKind };
  startLine: number;
  endLine: number;
  /** Comments right above a declaration (no blank line between). */
  comments?: Node[];
}

/** Offsets of line starts; the last entry is the text length, so line i is [starts[i], starts[i+1]). */
function lineStarts(text: string): number[] {
  const starts = [0];
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) === 10 && i + 1 < text.length) starts.push(i + 1);
  starts.push(text.length);
  return starts;
}

class Source {
  readonly starts: number[];
  constructor(readonly text: string) {
    this.starts = lineStarts(text);
  }
  get lineCount(): number {
    return this.starts.length - 1;
  }
  /** Characters in lines [from, to). */
  length(from: number, to: number): number {
    return (this.starts[to] as number) - (this.starts[from] as number);
  }
  /** 1-based line of a character offset. */
  lineOf(offset: number): number {
    let lo = 0;
    let hi = this.starts.length - 2;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if ((this.starts[mid] as number) <= offset) lo = mid;
      else hi = mid - 1;
    }
    return lo + 1;
  }
}

const firstLine = (node: Node): number => node.startPosition.row;
/** The last line holding any of the node (a node ending with its newline ends at column 0 of the next). */
const lastLine = (node: Node): number => {
  const end = node.endPosition;
  return end.column === 0 && end.row > node.startPosition.row ? end.row - 1 : end.row;
};

function declarationOf(node: Node, spec: LanguageSpec): Unit["declaration"] {
  let current = node;
  for (let depth = 0; depth < 3; depth++) {
    const unwrap = spec.wrappers?.[current.type];
    if (!unwrap) break;
    const inner = unwrap(current);
    if (!inner) return undefined;
    current = inner;
  }
  const entry = spec.declarations[current.type];
  if (entry === undefined) return undefined;
  const kind = typeof entry === "function" ? entry(current) : entry;
  return kind ? { node: current, kind } : undefined;
}

function* namedChildren(node: Node, spec: LanguageSpec): Generator<Node> {
  for (const child of node.namedChildren) {
    if (!child) continue;
    if (spec.transparent?.has(child.type)) yield* namedChildren(child, spec);
    else yield child;
  }
}

/** A comment at the very end of `node` that starts on a line of its own (Kotlin's grammar puts the doc comment of the next declaration there). */
function trailingComment(node: Node, spec: LanguageSpec): Node | null {
  let current: Node | null = node;
  for (let depth = 0; current && depth < 3; depth++) {
    const last: Node | null = current.lastNamedChild;
    if (!last) return null;
    if (spec.preamble.has(last.type)) {
      const before = last.previousSibling;
      return before && lastLine(before) < firstLine(last) ? last : null;
    }
    current = last;
  }
  return null;
}

/**
 * The items of a body, each declaration with the comments, decorators and attributes right
 * above it (no blank line between). Items sharing a line are merged: lines are never split.
 */
function unitsOf(body: Node, spec: LanguageSpec): Unit[] {
  const units: Unit[] = [];
  let pending: Node[] = [];
  const push = (unit: Unit) => {
    const previous = units[units.length - 1];
    if (previous && unit.startLine <= previous.endLine) {
      previous.endLine = Math.max(previous.endLine, unit.endLine);
      return;
    }
    units.push(unit);
  };
  const flushPending = () => {
    for (const node of pending) push({ node, startLine: firstLine(node), endLine: lastLine(node) });
    pending = [];
  };
  for (const child of namedChildren(body, spec)) {
    if (spec.preamble.has(child.type)) {
      pending.push(child);
      continue;
    }
    const declaration = declarationOf(child, spec);
    const unit: Unit = { node: child, startLine: firstLine(child), endLine: lastLine(child) };
    if (declaration) {
      unit.declaration = declaration;
      let start = unit.startLine;
      let k = pending.length;
      const previousEnd = units[units.length - 1]?.endLine ?? -1;
      while (k > 0) {
        const candidate = pending[k - 1] as Node;
        if (lastLine(candidate) < start - 1 || firstLine(candidate) <= previousEnd) break;
        start = firstLine(candidate);
        k--;
      }
      const attached = pending.slice(k);
      pending = pending.slice(0, k);
      flushPending();
      if (attached.length === 0) {
        const previous = units[units.length - 1];
        const comment = previous ? trailingComment(previous.node, spec) : null;
        if (previous && comment && lastLine(comment) >= start - 1 && firstLine(comment) > previous.startLine) {
          start = firstLine(comment);
          previous.endLine = Math.min(previous.endLine, start - 1);
          attached.push(comment);
        }
      }
      const comments = attached.filter((n) => n.type.includes("comment"));
      if (comments.length > 0) unit.comments = comments;
      unit.startLine = start;
    } else flushPending();
    push(unit);
  }
  flushPending();
  return units;
}

/** Comment markers: `/**`, `*` and `*/ `, `; //`, `///`, `#`, `--`, Python's quotes. */
const COMMENT_MARKERS = /^\s*(?:\/\*+!?|\*+\/|\*(?!\*)|\/\/[/!]?|#+|--|"""|'''|r?"{3})\s?/;

/** Comment or docstring text without its markers, one line per line, blank lines left out. */
function commentText(raw: string): string {
  return raw
    .split("\n")
    .map((line) =>
      line
        .replace(COMMENT_MARKERS, "")
        .replace(/\s*(?:\*+\/|"""|''')\s*$/, "")
        .trim(),
    )
    .filter((line) => line !== "")
    .join("\n");
}

/** A declaration's doc comment (the comments right above it) and docstring, as plain text. */
function documentation(unit: Unit, declaration: Node, spec: LanguageSpec): string | undefined {
  const parts = (unit.comments ?? []).map((c) => commentText(c.text));
  const docstring = spec.docstring?.(declaration);
  if (docstring) parts.push(commentText(docstring.text));
  const doc = parts.filter((p) => p !== "").join("\n");
  return doc === "" ? undefined : doc;
}

function cleanName(name: string): string {
  return name
    .replace(/^(?:module\.)?exports\.|\.prototype(?=\.)/g, "")
    .replace(/<[^<>]*>/g, "")
    .replace(/::|\\/g, ".")
    .replace(/\s+/g, " ")
    .trim();
}

/** How a chunk's headingPath names a declaration: its head up to the name, e.g. `export async function load`. */
function labelOf(outer: Node, name: Node | null, source: Source): string {
  const text = source.text;
  let label: string;
  if (name) {
    let lineStart = source.starts[name.startPosition.row] as number;
    while (lineStart < name.startIndex && /\s/.test(text[lineStart] as string)) lineStart++;
    label = text.slice(Math.max(outer.startIndex, lineStart), name.endIndex);
  } else {
    const head = text.slice(outer.startIndex, Math.min(outer.endIndex, outer.startIndex + 200));
    label = (head.split("\n")[0] as string).replace(/[\s({=:]+$/, "");
  }
  return label.replace(/\s+/g, " ").trim().slice(0, 120);
}

/**
 * Cuts lines [from, to) at the given items: each item runs until the next one starts (so blank
 * lines and closing brackets stay with the item above). A declaration longer than `size` is cut
 * again at its members when it has any; its head (signature, fields before the first member) leads.
 */
function tile(
  units: Unit[],
  from: number,
  to: number,
  parent: Pick<Segment, "path" | "names" | "kind" | "scope">,
  spec: LanguageSpec,
  source: Source,
  size: number,
  depth: number,
  scopes: { next: number },
): Segment[] {
  const segments: Segment[] = [];
  const other = (a: number, b: number): Segment => ({ from: a, to: b, ...parent, declaration: false });
  const first = units[0];
  if (!first) return [other(from, to)];
  if (first.startLine > from) segments.push(other(from, first.startLine));
  units.forEach((unit, i) => {
    const segFrom = unit.startLine;
    const segTo = i + 1 < units.length ? (units[i + 1] as Unit).startLine : to;
    if (segTo <= segFrom) return;
    const declaration = unit.declaration;
    if (!declaration) {
      segments.push(other(segFrom, segTo));
      return;
    }
    const nameNode = spec.nameNode ? spec.nameNode(declaration.node) : declaration.node.childForFieldName("name");
    let name = nameNode ? cleanName(nameNode.text) : unit.node.type === "export_statement" ? "default" : "(anonymous)";
    if (spec.qualify) name = spec.qualify(declaration.node, name);
    const inType = parent.kind !== undefined && TYPE_LIKE.has(parent.kind);
    const kind: SymbolKind = !inType
      ? declaration.kind
      : declaration.kind === "function"
        ? "method"
        : declaration.kind === "variable"
          ? "field"
          : declaration.kind;
    const doc = documentation(unit, declaration.node, spec);
    const self = {
      path: [...parent.path, labelOf(unit.node, nameNode, source)],
      names: [...parent.names, name],
      kind,
      scope: parent.scope,
      ...(doc ? { doc } : {}),
    };
    if (source.length(segFrom, segTo) > size && CONTAINERS.has(kind) && depth < 8) {
      const body = spec.body ? spec.body(declaration.node) : declaration.node.childForFieldName("body");
      const headLine = firstLine(declaration.node);
      const members = body ? unitsOf(body, spec).filter((u) => u.startLine > headLine && u.startLine < segTo) : [];
      const firstMember = members.findIndex((u) => u.declaration !== undefined);
      if (firstMember !== -1) {
        const memberFrom = (members[firstMember] as Unit).startLine;
        const inner = { ...self, scope: ++scopes.next };
        if (memberFrom > segFrom) {
          // A head of a line or two (`namespace app {`) joins what follows even when that is cut deeper.
          const sticky = source.length(segFrom, memberFrom) <= Math.min(SMALL_HEAD, size / 4);
          segments.push({ from: segFrom, to: memberFrom, ...inner, declaration: true, ...(sticky ? { sticky } : {}) });
        }
        // Members have documentation of their own.
        const { doc: _doc, ...memberParent } = inner;
        segments.push(...tile(members.slice(firstMember), memberFrom, segTo, memberParent, spec, source, size, depth + 1, scopes));
        return;
      }
    }
    segments.push({ from: segFrom, to: segTo, ...self, declaration: true });
  });
  return segments;
}

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
