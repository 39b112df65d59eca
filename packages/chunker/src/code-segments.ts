// A parsed file's lines cut into segments at its declarations (long ones again at their members),
// each with its declaration path, symbol names, kind and documentation.
import type { Node } from "web-tree-sitter";
import type { LanguageSpec } from "./code-languages.js";
import type { Source } from "./code-source.js";
import { documentation, firstLine, type Unit, unitsOf } from "./code-units.js";
import type { SymbolKind } from "./types.js";

/** Kinds whose functions are methods. */
const TYPE_LIKE = new Set<SymbolKind>(["class", "struct", "interface", "trait", "impl", "enum"]);
/** Kinds cut at their members when too long; anything else (a function, a variable) is a leaf, cut by line windows. */
const CONTAINERS = new Set<SymbolKind>([...TYPE_LIKE, "module"]);

/** Characters up to which a long declaration's head joins its first member instead of being a chunk of its own. */
const SMALL_HEAD = 120;

/** A run of whole lines [from, to), what it holds, and the declarations it sits in, outermost first. */
export interface Segment {
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
export function tile(
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
