import { isDeepStrictEqual } from "node:util";
import { DocDBError } from "@docdb/core";
import { parse, stringify, TomlError } from "smol-toml";
import type { EntryEditor } from "./editor.js";

type Table = Record<string, unknown>;

/**
 * A TOML config file with servers under `[<container>.<name>]` (Codex's `[mcp_servers.docdb]`).
 * The entry is written as its own tables at the end of the file and removed by deleting those
 * tables, so comments and everything else stay as they were; every edit is checked by parsing
 * the result, and refused when docdb's entry is written in a form this does not edit.
 */
export function tomlEditor(file: string, container: string, name: string): EntryEditor {
  function doc(text: string): Table {
    try {
      return parse(text) as Table;
    } catch (error) {
      const where = error instanceof TomlError ? ` at line ${error.line}, column ${error.column}` : "";
      throw new DocDBError("INVALID_REQUEST", `${file} is not valid TOML${where}: fix or move it, then run again (nothing was changed)`);
    }
  }
  function servers(table: Table): Table | undefined {
    const value = table[container];
    if (value !== undefined && (typeof value !== "object" || value === null || Array.isArray(value))) {
      throw new DocDBError("INVALID_REQUEST", `${file}: "${container}" must be a table: fix it (nothing was changed)`);
    }
    return value as Table | undefined;
  }
  function expected(text: string, entry: unknown): Table {
    const table = doc(text);
    const list = { ...(servers(table) ?? {}) };
    if (entry === undefined) delete list[name];
    else list[name] = entry;
    if (Object.keys(list).length === 0 && servers(table) === undefined) delete table[container];
    else table[container] = list;
    return table;
  }
  function checked(before: string, after: string, entry: unknown): string {
    const want = expected(before, entry);
    let got: Table;
    try {
      got = parse(after) as Table;
    } catch {
      got = {};
    }
    if (!isDeepStrictEqual(withoutEmpty(got), withoutEmpty(want))) {
      throw new DocDBError(
        "INVALID_REQUEST",
        `${file}: ${container}.${name} is written in a form docdb does not edit (an inline table or dotted keys): edit it by hand (nothing was changed)`,
      );
    }
    return after;
  }
  // An empty server table may or may not remain spelled out (`[mcp_servers]`): both mean the same.
  const withoutEmpty = (table: Table): unknown => {
    const copy = normalize(table) as Table;
    const list = copy[container];
    if (list && typeof list === "object" && Object.keys(list).length === 0) delete copy[container];
    return copy;
  };
  const header = new RegExp(`^\\s*\\[\\s*${container}\\s*\\.\\s*("${name}"|'${name}'|${name})\\s*(\\.[^\\]]*)?\\]\\s*(#.*)?$`);

  function cut(text: string): string {
    const lines = text.split(/(?<=\n)/);
    const kept: string[] = [];
    let inside = false;
    for (const line of lines) {
      if (/^\s*\[/.test(line)) inside = header.test(line.replace(/\r?\n$/, ""));
      if (!inside) kept.push(line);
    }
    // Drop the blank line that separated the removed tables from what came before.
    let out = kept.join("");
    if (out !== text) out = out.replace(/(\r?\n)(\r?\n)+$/, "$1");
    return out;
  }

  const editor: EntryEditor = {
    get(text) {
      return servers(doc(text))?.[name];
    },
    set(text, entry) {
      const base = editor.get(text) === undefined ? text : cut(text);
      const eol = text.includes("\r\n") ? "\r\n" : "\n";
      const block = stringify({ [container]: { [name]: entry } }).replace(/\n/g, eol);
      const sep = base.trim() === "" ? "" : base.endsWith("\n") ? eol : eol + eol;
      return checked(text, `${base.trim() === "" ? "" : base}${sep}${block}${block.endsWith("\n") ? "" : eol}`, entry);
    },
    remove(text) {
      if (editor.get(text) === undefined) return text;
      return checked(text, cut(text), undefined);
    },
    rest(text) {
      return normalize(expected(text, undefined));
    },
    isBare(text) {
      const rest = expected(text, undefined);
      return Object.keys(rest).length === 0 || isDeepStrictEqual(rest, { [container]: {} });
    },
  };
  return editor;
}

/** Plain objects for comparison (TOML dates become strings). */
function normalize(value: unknown): unknown {
  return JSON.parse(JSON.stringify(value));
}
