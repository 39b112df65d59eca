import { describe, expect, it } from "vitest";
import { chunkCode, MAX_ERROR_SHARE } from "./code.js";
import { CODE_LANGUAGES, codeLanguage } from "./code-languages.js";
import { chunkMarkdown, chunkMarkdownWithCode } from "./markdown.js";
import type { Chunk } from "./types.js";

function expectFaithful(text: string, chunks: { text: string; start: number; end: number }[]) {
  for (const c of chunks) expect(text.slice(c.start, c.end)).toBe(c.text);
}

const TS = `import { readFile } from "node:fs/promises";

/** Reads the config file. */
export async function loadConfig(path: string): Promise<Config> {
  const raw = await readFile(path, "utf8");
  return JSON.parse(raw) as Config;
}

export interface Config {
  name: string;
}

export class TokenStore {
  private tokens = new Map<string, string>();

  rotate(user: string): string {
    const token = crypto.randomUUID();
    this.tokens.set(user, token);
    return token;
  }

  revoke(user: string): boolean {
    return this.tokens.delete(user);
  }
}
`;

const PY = `"""Billing helpers."""
import math


@dataclass
class Invoice:
    total: float

    def tax(self, rate: float) -> float:
        return math.floor(self.total * rate)

    def describe(self) -> str:
        return f"invoice of {self.total}"


def settle(invoice: Invoice) -> None:
    print("settled", invoice.total)
`;

describe("chunkCode", () => {
  it("cuts TypeScript at top-level declarations and keeps doc comments with them", async () => {
    const chunks = await chunkCode(TS, { language: "typescript", size: 160, overlap: 20 });
    expectFaithful(TS, chunks);
    const load = chunks.find((c) => c.text.includes("loadConfig"));
    expect(load?.text.startsWith("/** Reads the config file. */")).toBe(true);
    expect(load?.headingPath?.[0]).toBe("export async function loadConfig");
    expect(load?.symbol).toBe("loadConfig");
    expect(load?.symbolKind).toBe("function");
    expect(load?.language).toBe("typescript");
    // Longer than a chunk: line windows, every one of them still naming loadConfig.
    const windows = chunks.filter((c) => c.symbol === "loadConfig");
    expect(windows.length).toBeGreaterThan(1);
    expect([windows[0]?.lineStart, windows[windows.length - 1]?.lineEnd]).toEqual([3, 7]);
    expect(chunks.map((c) => c.index)).toEqual(chunks.map((_, i) => i));
  });

  it("cuts a class longer than a chunk at its methods", async () => {
    const chunks = await chunkCode(TS, { language: "typescript", size: 120, overlap: 20 });
    expectFaithful(TS, chunks);
    const rotate = chunks.find((c) => c.text.includes("rotate(user"));
    const revoke = chunks.find((c) => c.text.includes("revoke(user"));
    expect(rotate?.headingPath).toEqual(["export class TokenStore", "rotate"]);
    expect(revoke?.headingPath).toEqual(["export class TokenStore", "revoke"]);
    expect(rotate?.symbol).toBe("TokenStore.rotate");
    expect(rotate?.symbolKind).toBe("method");
    expect(revoke?.symbol).toBe("TokenStore.revoke");
    const rotateChunks = chunks.filter((c) => c.symbol === "TokenStore.rotate");
    expect([rotateChunks[0]?.lineStart, rotateChunks[rotateChunks.length - 1]?.lineEnd]).toEqual([16, 20]);
    expect(rotate).not.toBe(revoke);
  });

  it("packs small declarations together when they fit", async () => {
    const chunks = await chunkCode(TS, { language: "typescript", size: 2000, overlap: 100 });
    expect(chunks).toHaveLength(1);
    expect(chunks[0]?.text).toBe(TS.trimEnd());
    expect(chunks[0]?.symbols).toEqual([
      { symbol: "loadConfig", kind: "function" },
      { symbol: "Config", kind: "interface" },
      { symbol: "TokenStore", kind: "class" },
    ]);
    expect(chunks[0]?.symbol).toBe("loadConfig");
  });

  it("handles Python classes, methods and decorators", async () => {
    const chunks = await chunkCode(PY, { language: "python", size: 100, overlap: 20 });
    expectFaithful(PY, chunks);
    const cls = chunks.find((c) => c.text.includes("class Invoice"));
    expect(cls?.text).toContain("@dataclass\nclass Invoice:");
    const settle = chunks.find((c) => c.text.includes("def settle"));
    expect(settle?.headingPath).toEqual(["def settle"]);
    expect(chunks.some((c) => c.headingPath?.join(" > ") === "class Invoice > def tax")).toBe(true);
    expect(chunks.find((c) => c.text.includes("def tax"))?.symbol).toBe("Invoice.tax");
  });

  it("does not cut at declarations inside strings, template literals or comments", async () => {
    const ts = [
      "const banner = `",
      "export function notAFunction() {",
      "  return 1;",
      "}",
      "`;",
      "// export class AlsoNotAClass {}",
      "/*",
      "function commented() {}",
      "*/",
      "",
      "export function real(): number {",
      "  return 2;",
      "}",
      "",
    ].join("\n");
    const chunks = await chunkCode(ts, { language: "typescript", size: 10, overlap: 0 });
    expectFaithful(ts, chunks);
    const symbols = new Set(chunks.map((c) => c.symbol));
    expect([...symbols]).toEqual(["banner", undefined, "real"]);
    // The template literal's lines belong to `banner`, however small the chunks.
    for (const c of chunks.filter((c) => (c.lineStart as number) <= 5)) expect(c.symbol).toBe("banner");
    expect(chunks.find((c) => c.symbol === "real")?.lineStart).toBe(11);
    // Comments right above a declaration are its own: without the blank line they lead its chunk.
    const attached = await chunkCode(ts.replace("*/\n\n", "*/\n"), { language: "typescript", size: 10, overlap: 0 });
    expect(attached.find((c) => c.symbol === "real")?.lineStart).toBe(6);

    const py = 'HELP = """\ndef fake():\n    pass\nclass Fake:\n"""\n\n\ndef real():\n    return HELP\n';
    const pyChunks = await chunkCode(py, { language: "python", size: 50, overlap: 0 });
    expect(pyChunks.map((c) => c.symbol)).toEqual(["HELP", "real"]);
    expect(pyChunks[0]?.text).toBe('HELP = """\ndef fake():\n    pass\nclass Fake:\n"""');
  });

  it("knows Go, Rust and Java declarations", async () => {
    const go = "package main\n\nfunc A() int {\n\treturn 1\n}\n\nfunc (s *Server) Serve() error {\n\treturn nil\n}\n";
    const goChunks = await chunkCode(go, { language: "go", size: 50, overlap: 0 });
    // The package clause and the small func A share a chunk; the method gets its own.
    expect(goChunks.map((c) => c.headingPath?.[0])).toEqual([undefined, "func (s *Server) Serve"]);
    expect(goChunks.map((c) => c.symbol)).toEqual(["A", "Server.Serve"]);
    expect(goChunks[0]?.text).toContain("func A()");

    const rust =
      "use std::io;\n\npub struct Point {\n    x: i32,\n}\n\nimpl Point {\n    pub fn new() -> Self {\n        Point { x: 0 }\n    }\n}\n";
    const rustChunks = await chunkCode(rust, { language: "rust", size: 40, overlap: 0 });
    expect(rustChunks.some((c) => c.headingPath?.[0] === "pub struct Point")).toBe(true);
    expect(rustChunks.find((c) => c.text.includes("pub fn new"))?.symbol).toBe("Point.new");
    expectFaithful(rust, rustChunks);

    const java =
      'package a;\n\npublic class Greeter {\n    private final String name;\n\n    public Greeter(String name) {\n        this.name = name;\n    }\n\n    public String greet() {\n        return "hello " + name;\n    }\n}\n';
    const javaChunks = await chunkCode(java, { language: "java", size: 80, overlap: 0 });
    expectFaithful(java, javaChunks);
    const greet = javaChunks.find((c) => c.text.includes("greet()"));
    expect(greet?.headingPath).toEqual(["public class Greeter", "public String greet"]);
    expect(greet?.symbol).toBe("Greeter.greet");
  });

  it("falls back to overlapping line windows for unknown languages, and says so", async () => {
    const lines = Array.from({ length: 60 }, (_, i) => `line ${i} of a COBOL program`);
    const text = `${lines.join("\n")}\n`;
    const chunks = await chunkCode(text, { language: "cobol", size: 200, overlap: 60 });
    expectFaithful(text, chunks);
    for (const c of chunks) {
      expect(c.text.length).toBeLessThanOrEqual(200);
      expect(c.fallback).toBe("unsupported_language");
      expect(c.language).toBe("cobol");
      expect(c.symbol).toBeUndefined();
    }
    for (let i = 1; i < chunks.length; i++) {
      const previous = chunks[i - 1] as { end: number };
      expect((chunks[i] as { start: number }).start).toBeLessThan(previous.end);
    }
    expect(chunks[chunks.length - 1]?.text.endsWith("line 59 of a COBOL program")).toBe(true);
    expect(chunks[chunks.length - 1]?.lineEnd).toBe(60);
    expect((await chunkCode("x = 1\n"))[0]?.fallback).toBe("unsupported_language");
  });

  it("falls back to line windows when a file does not parse, and says so", async () => {
    const broken = [
      "class Broken {",
      "  def ??? (((",
      "  public function <<< >>> }}}",
      "  fn main( {",
      "  @@@ ### $$$ %%% ^^^",
      "  if while for ((( ]]] {{{",
      "  return return return",
      "]]]]]]] ))))))",
      "",
    ].join("\n");
    for (const language of ["typescript", "python", "java"]) {
      const chunks = await chunkCode(broken, { language, size: 80, overlap: 10 });
      expectFaithful(broken, chunks);
      expect(chunks.length).toBeGreaterThan(1);
      for (const c of chunks) {
        expect(c.fallback).toBe("syntax_error");
        expect(c.symbol).toBeUndefined();
        expect(c.text.length).toBeLessThanOrEqual(80);
      }
      // Every line is still in some chunk.
      expect(chunks[0]?.lineStart).toBe(1);
      expect(chunks[chunks.length - 1]?.lineEnd).toBe(8);
    }
  });

  it("keeps parsing a file with one small syntax error", async () => {
    const lines = ["export function first(): number {", "  return 1;", "}", ""];
    for (let i = 0; i < 30; i++) lines.push(`export function f${i}(a: number): number {`, `  return a + ${i};`, "}", "");
    lines.push("const oops = ;", "");
    const text = lines.join("\n");
    const chunks = await chunkCode(text, { language: "typescript", size: 60, overlap: 0 });
    expect(chunks.every((c) => c.fallback === undefined)).toBe(true);
    expect(chunks[0]?.symbol).toBe("first");
    expect(chunks.find((c) => c.text.includes("function f17"))?.symbol).toBe("f17");
    expect(MAX_ERROR_SHARE).toBeGreaterThan(0);
  });

  it("parses TSX with its own grammar and reports it as typescript", async () => {
    const tsx =
      'export function Hello({ name }: { name: string }) {\n  return <p className="x">Hello {name}</p>;\n}\n\nexport const n: number = 1;\n';
    const chunks = await chunkCode(tsx, { language: "tsx", size: 120, overlap: 0 });
    expect(chunks.map((c) => [c.symbol, c.fallback])).toEqual([
      ["Hello", undefined],
      ["n", undefined],
    ]);
    expect(chunks[0]?.language).toBe("typescript");
  });

  it("names CommonJS and prototype functions by where they are assigned", async () => {
    const js = [
      "function Store() {",
      "  this.items = new Map();",
      "}",
      "",
      "Store.prototype.get = function (key) {",
      "  return this.items.get(key);",
      "};",
      "",
      "module.exports.createStore = () => new Store();",
      "",
      "exports.VERSION = '1.0';",
      "",
    ].join("\n");
    const chunks = await chunkCode(js, { language: "javascript", size: 10, overlap: 0 });
    const symbols = [...new Set(chunks.map((c) => `${c.symbol}:${c.symbolKind}`))];
    expect(symbols).toEqual(["Store:function", "Store.get:function", "createStore:function", "undefined:undefined"]);
  });

  it("cuts a single overlong line by characters, keeping the symbol", async () => {
    const text = `const data = "${"x".repeat(500)}";\n`;
    const chunks = await chunkCode(text, { language: "javascript", size: 100, overlap: 10 });
    expectFaithful(text, chunks);
    expect(chunks.length).toBeGreaterThan(4);
    for (const c of chunks) {
      expect(c.text.length).toBeLessThanOrEqual(100);
      expect(c.symbol).toBe("data");
      expect([c.lineStart, c.lineEnd]).toEqual([1, 1]);
    }
  });

  it("records each declaration's documentation without comment markers, on every piece of it", async () => {
    const ts = await chunkCode(TS, { language: "typescript", size: 160, overlap: 20 });
    expect(ts.find((c) => c.symbol === "loadConfig")?.doc).toBe("Reads the config file.");
    expect(ts.find((c) => c.symbol === "TokenStore.rotate")?.doc).toBeUndefined();

    const py =
      'def settle(invoice):\n    """Marks an invoice as paid.\n\n    Returns the receipt number.\n    """\n    return 1\n\n# not a doc comment of anything\n';
    expect((await chunkCode(py, { language: "python", size: 700, overlap: 0 }))[0]?.doc).toBe(
      "Marks an invoice as paid.\nReturns the receipt number.",
    );

    const rust = "/// Moves `cents` between accounts.\n/// Fails when the balance is short.\n#[inline]\npub fn transfer(cents: u64) {}\n";
    expect((await chunkCode(rust, { language: "rust", size: 700, overlap: 0 }))[0]?.doc).toBe(
      "Moves `cents` between accounts.\nFails when the balance is short.",
    );

    // A long function cut into line windows: every window carries the function's doc comment.
    const body = Array.from({ length: 40 }, (_, i) => `  total += ${i};`).join("\n");
    const long = `// Sums the first forty numbers.\nfunction sum() {\n  let total = 0;\n${body}\n  return total;\n}\n`;
    const windows = await chunkCode(long, { language: "javascript", size: 200, overlap: 20 });
    expect(windows.length).toBeGreaterThan(2);
    expect(new Set(windows.map((w) => w.doc))).toEqual(new Set(["Sums the first forty numbers."]));
    // Packed declarations: all their docs.
    const packed = await chunkCode("/** First. */\nexport const a = 1;\n/** Second. */\nexport const b = 2;\n", {
      language: "typescript",
      size: 700,
      overlap: 0,
    });
    expect(packed[0]?.doc).toBe("First.\nSecond.");
  });

  it("returns nothing for blank input", async () => {
    expect(await chunkCode("\n\n  \n", { language: "python" })).toEqual([]);
  });

  it("lists its languages and resolves aliases", () => {
    expect([...CODE_LANGUAGES].sort()).toEqual(
      [
        "bash",
        "c",
        "cpp",
        "csharp",
        "go",
        "java",
        "javascript",
        "kotlin",
        "php",
        "python",
        "ruby",
        "rust",
        "swift",
        "tsx",
        "typescript",
      ].sort(),
    );
    expect(codeLanguage("TS")).toBe("typescript");
    expect(codeLanguage("c++")).toBe("cpp");
    expect(codeLanguage("C#")).toBe("csharp");
    expect(codeLanguage("shell")).toBe("bash");
    expect(codeLanguage("jsx")).toBe("javascript");
    expect(codeLanguage("cobol")).toBeUndefined();
    expect(codeLanguage(undefined)).toBeUndefined();
  });
});

describe("chunkMarkdownWithCode", () => {
  const prose = "This guide explains how payments are retried. ".repeat(6);
  const md = [
    "# Payments",
    "",
    prose,
    "",
    "```ts",
    "/** Retries a charge. */",
    "export async function retryCharge(id: string): Promise<void> {",
    "  await gateway.charge(id);",
    "}",
    "",
    "export class Ledger {",
    "  balance = 0;",
    "}",
    "```",
    "",
    "```text",
    "function notCode() {}",
    "```",
    "",
    "Done.",
    "",
  ].join("\n");

  it("hands fenced code with a known language to the code chunker in a long section", async () => {
    const chunks = await chunkMarkdownWithCode(md, { size: 120, overlap: 10 });
    expectFaithful(md, chunks);
    expect(chunks.map((c) => c.index)).toEqual(chunks.map((_, i) => i));
    const retry = chunks.find((c) => c.symbol === "retryCharge") as Chunk;
    expect(retry.text.startsWith("/** Retries a charge. */")).toBe(true);
    expect(retry.language).toBe("typescript");
    expect(retry.symbolKind).toBe("function");
    expect(retry.headingPath).toEqual(["Payments", "export async function retryCharge"]);
    expect([retry.lineStart, retry.lineEnd]).toEqual([6, 9]);
    const ledger = chunks.find((c) => c.symbol === "Ledger") as Chunk;
    expect([ledger.lineStart, ledger.lineEnd]).toEqual([11, 13]);
    // No code chunk holds a fence line; the untagged-language fence stays prose.
    for (const c of chunks) if (c.language) expect(c.text).not.toContain("```");
    expect(chunks.filter((c) => c.text.includes("function notCode")).every((c) => c.symbol === undefined)).toBe(true);
    expect(chunks[chunks.length - 1]?.text.endsWith("Done.")).toBe(true);
  });

  it("is chunkMarkdown when no section needs cutting or no fence has a known language", async () => {
    expect(await chunkMarkdownWithCode(md, { size: 2000, overlap: 100 })).toEqual(chunkMarkdown(md, { size: 2000, overlap: 100 }));
    const plain = md.replace("```ts", "```cobol");
    expect(await chunkMarkdownWithCode(plain, { size: 120, overlap: 10 })).toEqual(chunkMarkdown(plain, { size: 120, overlap: 10 }));
  });
});
