import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { copyFixture } from "../../../test/support/collection-fixtures.js";
import { CLI, runCli } from "./run-cli.js";

/**
 * Code search through the built binary: a folder of TypeScript and Python (plus a file that does
 * not parse, one in a language without a grammar, and Markdown with a broken snippet) imported as
 * a collection; symbols shown by find (text and JSON), filters on language and symbol_kind,
 * definitions first, and status counting what was cut by lines.
 */

interface Hit {
  source: string;
  line_start: number;
  line_end: number;
  language?: string;
  symbol?: string;
  symbol_kind?: string;
  text?: string;
}

let dataDir: string;
let folder: string;

const docdb = (...args: string[]) => runCli(["--data-dir", dataDir, ...args]);

async function json<T>(...args: string[]): Promise<T> {
  const result = await docdb(...args, "--json");
  expect(result.code, result.stderr).toBe(0);
  return JSON.parse(result.stdout) as T;
}

const find = (query: string, ...more: string[]) => json<Hit[]>("find", query, "--collection", "billing", "--mode", "keyword", ...more);

/** 1-based line of the first line of a fixture file containing `needle`. */
function lineOf(path: string, needle: string): number {
  const index = readFileSync(join(folder, path), "utf8")
    .split("\n")
    .findIndex((l) => l.includes(needle));
  if (index === -1) throw new Error(`${path} has no line with ${needle}`);
  return index + 1;
}

beforeAll(async () => {
  if (!existsSync(CLI)) throw new Error(`build the CLI first (pnpm build): ${CLI} is missing`);
  dataDir = mkdtempSync(join(tmpdir(), "docdb-cli-code-"));
  folder = copyFixture("ts-py-project");
  // Does not parse: most of it is not TypeScript.
  writeFileSync(join(folder, "src/broken.ts"), "export function ok() {}\n)))) ((( ]]] {{{ <<< >>> \n".repeat(8));
  // No grammar for Lua: cut by lines, counted.
  mkdirSync(join(folder, "scripts"));
  writeFileSync(join(folder, "scripts/build.lua"), "local function build()\n  print('building')\nend\n\nbuild()\n");
  // A snippet in Markdown that does not parse is not a code file that failed.
  writeFileSync(
    join(folder, "docs/snippets.md"),
    `# Snippets\n\n${"Some prose about invoices. ".repeat(30)}\n\n\`\`\`python\ndef broken(:\n  )))\n\`\`\`\n`,
  );
  const added = await docdb("collection", "add", "-n", "billing", "-d", "Billing service source", "-s", folder);
  expect(added.code, added.stderr).toBe(0);
  // Small chunks, so classes are cut at their methods and each method is a chunk of its own.
  const imported = await docdb("import", "-n", "billing", "--chunk-size", "200", "--chunk-overlap", "20");
  expect(imported.code, imported.stderr).toBe(0);
}, 60_000);

afterAll(() => {
  rmSync(dataDir, { recursive: true, force: true });
});

describe("code search (built binary)", () => {
  it("find shows each code passage's symbol, kind, language and lines, in JSON and in text", async () => {
    const [hit] = await find("TokenStore", "-k", "1");
    expect(hit).toMatchObject({ source: "src/tokens.ts", symbol: "TokenStore", symbol_kind: "class", language: "typescript" });
    const declared = lineOf("src/tokens.ts", "export class TokenStore");
    expect(hit?.line_start).toBeLessThanOrEqual(declared);
    expect(hit?.line_end).toBeGreaterThanOrEqual(declared);

    const text = await docdb("find", "TokenStore", "--collection", "billing", "--mode", "keyword", "-k", "1");
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toMatch(/src\/tokens\.ts:\d+-\d+ {2}TokenStore \(class, typescript\)/);

    // rotate is longer than a chunk here: each of its pieces says it is TokenStore.rotate.
    const [method] = await find("TokenStore.rotate", "-k", "1", "--no-merge");
    expect(method).toMatchObject({ source: "src/tokens.ts", symbol: "TokenStore.rotate", symbol_kind: "method", language: "typescript" });
    expect(method?.line_start).toBeGreaterThanOrEqual(lineOf("src/tokens.ts", "/** Issues a fresh token"));
    expect(method?.line_end).toBeLessThan(lineOf("src/tokens.ts", "revoke(user"));
  });

  it("a query naming an identifier returns its definition first, not its uses", async () => {
    // settle is called twice in app/server.py and defined in app/billing.py.
    const [settle] = await find("settle", "-k", "3");
    expect(settle).toMatchObject({ source: "app/billing.py", symbol: "settle", symbol_kind: "function", language: "python" });
    const [config] = await find("loadConfig", "-k", "3");
    expect(config).toMatchObject({ source: "src/config.ts", symbol: "loadConfig", symbol_kind: "function" });
  });

  it("a question in words finds the code its doc comment or docstring describes", async () => {
    // The docstring of Invoice.tax (the class head and its first method share a chunk).
    const [tax] = await find("consumption tax rounded down", "-k", "1", "--no-merge");
    expect(tax).toMatchObject({ source: "app/billing.py", language: "python" });
    const declared = lineOf("app/billing.py", "def tax(");
    expect(tax?.line_start).toBeLessThanOrEqual(declared);
    expect(tax?.line_end).toBeGreaterThan(declared);
    // The identifier finds the same chunk, and says which of its declarations it is.
    const [named] = await find("tax", "-k", "1", "--no-merge", "--path", "app/");
    expect(named).toMatchObject({ source: "app/billing.py", symbol: "Invoice.tax", symbol_kind: "method" });
  });

  it("filters on language and symbol_kind: per chunk in find, any chunk in list", async () => {
    const python = await find("invoice token", "-k", "20", "--no-merge", "--filter", '{"language":"python"}');
    expect(python.length).toBeGreaterThan(0);
    expect(python.every((h) => h.language === "python")).toBe(true);
    const methods = await find("invoice token user", "-k", "20", "--no-merge", "--filter", '{"symbol_kind":{"$in":["method"]}}');
    expect(new Set(methods.map((h) => h.symbol_kind))).toEqual(new Set(["method"]));
    expect(methods.map((h) => h.symbol)).toEqual(expect.arrayContaining(["TokenStore.rotate", "TokenStore.revoke", "Invoice.describe"]));

    const withClasses = await json<{ source: string }[]>("list", "--collection", "billing", "--filter", '{"symbol_kind":"class"}');
    expect(withClasses.map((d) => d.source).sort()).toEqual(["app/billing.py", "src/tokens.ts"]);
    const notPython = await json<{ source: string }[]>("list", "--collection", "billing", "--filter", '{"language":{"$ne":"python"}}');
    expect(notPython.map((d) => d.source)).toContain("README.md");
    expect(notPython.map((d) => d.source)).not.toContain("app/billing.py");

    const bad = await docdb("find", "x", "--filter", '{"symbol_kind":{"$near":1}}');
    // Bad input is a usage error (exit 2) with the error code.
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/^INVALID_REQUEST: invalid filter at symbol_kind\.\$near/);
  });

  it("status counts the code files cut by lines (a syntax error, a language without a grammar)", async () => {
    const status = await json<{ collection: { code_fallback_files: number; code_fallback_chunks: number } }>("status", "-n", "billing");
    expect(status.collection).toMatchObject({ code_fallback_files: 2 });
    expect(status.collection.code_fallback_chunks).toBeGreaterThanOrEqual(2);
    const text = await docdb("status", "-n", "billing");
    expect(text.stdout).toMatch(/unparsed: +2 code files cut by lines/);
    const overall = await docdb("status");
    expect(overall.stdout).toMatch(/UNPARSED/);

    // Both files still import and are found, by their lines.
    const [lua] = await find("building", "-k", "1");
    expect(lua).toMatchObject({ source: "scripts/build.lua", language: "lua" });
    expect(lua?.symbol).toBeUndefined();
  });
});
