import { isDeepStrictEqual } from "node:util";
import { DocDBError } from "@docdb/core";
import { findNodeAtLocation, type Node, type ParseError, parseTree, printParseErrorCode } from "jsonc-parser";
import type { EntryEditor } from "./editor.js";

interface Layout {
  unit: string;
  eol: string;
}

function layoutOf(text: string): Layout {
  const eol = text.includes("\r\n") ? "\r\n" : "\n";
  const indents = [...text.matchAll(/\n([ \t]+)\S/g)].map((m) => m[1] as string);
  if (indents.some((i) => i.startsWith("\t"))) return { unit: "\t", eol };
  const widths = indents.map((i) => i.length).filter((n) => n > 0);
  return { unit: " ".repeat(widths.length > 0 ? Math.min(...widths) : 2), eol };
}

function lineIndent(text: string, offset: number): string {
  const start = text.lastIndexOf("\n", offset - 1) + 1;
  return /^[ \t]*/.exec(text.slice(start))?.[0] ?? "";
}

function render(value: unknown, indent: string, layout: Layout): string {
  return JSON.stringify(value, null, layout.unit).split("\n").join(`${layout.eol}${indent}`);
}

/**
 * A JSON (or JSONC, with comments and trailing commas) config file whose servers live under
 * `container` (e.g. ["mcpServers"]). Edits splice text, so comments, key order, indentation and
 * every other entry stay byte-for-byte as they were.
 */
export function jsonEditor(file: string, container: string[], name: string, comments: boolean): EntryEditor {
  const path = [...container, name];

  function tree(text: string): Node | undefined {
    if (text.trim() === "") return undefined;
    const errors: ParseError[] = [];
    const root = parseTree(text, errors, { disallowComments: !comments, allowTrailingComma: comments, allowEmptyContent: false });
    if (errors.length > 0 || !root) {
      const first = errors[0];
      const where = first ? ` at line ${text.slice(0, first.offset).split("\n").length} (${printParseErrorCode(first.error)})` : "";
      throw new DocDBError("INVALID_REQUEST", `${file} is not valid JSON${where}: fix or move it, then run again (nothing was changed)`);
    }
    if (root.type !== "object")
      throw new DocDBError("INVALID_REQUEST", `${file} must hold a JSON object: fix or move it (nothing was changed)`);
    let node: Node | undefined = root;
    for (let i = 0; i < container.length; i++) {
      node = findNodeAtLocation(root, container.slice(0, i + 1));
      if (node && node.type !== "object") {
        throw new DocDBError(
          "INVALID_REQUEST",
          `${file}: "${container.slice(0, i + 1).join(".")}" must be an object: fix it (nothing was changed)`,
        );
      }
      if (!node) break;
    }
    return root;
  }

  function value(text: string): Record<string, unknown> {
    const root = tree(text);
    return root ? (nodeValue(root) as Record<string, unknown>) : {};
  }

  const editor: EntryEditor = {
    get(text) {
      const root = tree(text);
      const node = root ? findNodeAtLocation(root, path) : undefined;
      return node ? nodeValue(node) : undefined;
    },
    set(text, entry) {
      const root = tree(text);
      const layout = layoutOf(text);
      if (!root) {
        let whole: unknown = entry;
        for (const key of [...path].reverse()) whole = { [key]: whole };
        return `${JSON.stringify(whole, null, 2)}\n`;
      }
      const existing = findNodeAtLocation(root, path);
      if (existing) {
        const indent = lineIndent(text, existing.parent?.offset ?? existing.offset);
        return splice(text, existing.offset, existing.length, render(entry, indent, layout));
      }
      // The deepest object on the path that exists; the rest is created inside it.
      let depth = path.length - 1;
      let parent = depth === 0 ? root : findNodeAtLocation(root, path.slice(0, depth));
      while (!parent) {
        depth--;
        parent = depth === 0 ? root : findNodeAtLocation(root, path.slice(0, depth));
      }
      let inner: unknown = entry;
      for (const key of path.slice(depth + 1).reverse()) inner = { [key]: inner };
      const key = path[depth] as string;
      const props = parent.children ?? [];
      const last = props[props.length - 1];
      if (last) {
        const indent = lineIndent(text, last.offset);
        const added = `,${layout.eol}${indent}${JSON.stringify(key)}: ${render(inner, indent, layout)}`;
        return splice(text, last.offset + last.length, 0, added);
      }
      const outer = lineIndent(text, parent.offset);
      const indent = outer + layout.unit;
      const body = `{${layout.eol}${indent}${JSON.stringify(key)}: ${render(inner, indent, layout)}${layout.eol}${outer}}`;
      return splice(text, parent.offset, parent.length, body);
    },
    remove(text) {
      const root = tree(text);
      const node = root ? findNodeAtLocation(root, path) : undefined;
      const prop = node?.parent;
      const siblings = prop?.parent?.children;
      if (!prop || !siblings) return text;
      const i = siblings.indexOf(prop);
      const previous = siblings[i - 1];
      const next = siblings[i + 1];
      if (previous)
        return splice(text, previous.offset + previous.length, prop.offset + prop.length - (previous.offset + previous.length), "");
      if (next) return splice(text, prop.offset, next.offset - prop.offset, "");
      const object = prop.parent as Node;
      return splice(text, object.offset, object.length, "{}");
    },
    rest(text) {
      const doc = value(text);
      const chain: Record<string, unknown>[] = [doc];
      for (const key of container) {
        const next = chain[chain.length - 1]?.[key];
        if (typeof next !== "object" || next === null) break;
        chain.push(next as Record<string, unknown>);
      }
      if (chain.length === container.length + 1) delete chain[chain.length - 1]?.[name];
      // A server object left empty means the same as none (install may have added it).
      for (let i = chain.length - 1; i > 0 && Object.keys(chain[i] ?? {}).length === 0; i--)
        delete chain[i - 1]?.[container[i - 1] as string];
      return doc;
    },
    isBare(text) {
      const rest = editor.rest(text) as Record<string, unknown>;
      let empty: unknown = {};
      for (const key of [...container].reverse()) empty = { [key]: empty };
      return Object.keys(rest).length === 0 || isDeepStrictEqual(rest, empty);
    },
  };
  return editor;
}

function nodeValue(node: Node): unknown {
  switch (node.type) {
    case "object":
      return Object.fromEntries(
        (node.children ?? []).map((p) => [p.children?.[0]?.value as string, p.children?.[1] ? nodeValue(p.children[1]) : null]),
      );
    case "array":
      return (node.children ?? []).map(nodeValue);
    default:
      return node.value;
  }
}

function splice(text: string, offset: number, length: number, insert: string): string {
  return text.slice(0, offset) + insert + text.slice(offset + length);
}
