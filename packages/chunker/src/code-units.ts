// The items of a syntax-tree body (declarations with the comments, decorators and attributes above
// them, and everything else), and a declaration's documentation as plain text.
import type { Node } from "web-tree-sitter";
import type { LanguageSpec } from "./code-languages.js";
import type { SymbolKind } from "./types.js";

/** A top-level item of a body: a declaration, or anything else (imports, statements), with its lines. */
export interface Unit {
  node: Node;
  declaration?: { node: Node; kind: SymbolKind };
  startLine: number;
  endLine: number;
  /** Comments right above a declaration (no blank line between). */
  comments?: Node[];
}

export const firstLine = (node: Node): number => node.startPosition.row;
/** The last line holding any of the node (a node ending with its newline ends at column 0 of the next). */
export const lastLine = (node: Node): number => {
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
export function unitsOf(body: Node, spec: LanguageSpec): Unit[] {
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
export function documentation(unit: Unit, declaration: Node, spec: LanguageSpec): string | undefined {
  const parts = (unit.comments ?? []).map((c) => commentText(c.text));
  const docstring = spec.docstring?.(declaration);
  if (docstring) parts.push(commentText(docstring.text));
  const doc = parts.filter((p) => p !== "").join("\n");
  return doc === "" ? undefined : doc;
}
