import { describe, expect, it } from "vitest";
import { chunkCode } from "./code.js";

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
  it("cuts TypeScript at top-level declarations and keeps doc comments with them", () => {
    const chunks = chunkCode(TS, { language: "typescript", size: 160, overlap: 20 });
    expectFaithful(TS, chunks);
    const load = chunks.find((c) => c.text.includes("loadConfig"));
    expect(load?.text.startsWith("/** Reads the config file. */")).toBe(true);
    expect(load?.headingPath?.[0]).toBe("export async function loadConfig");
    expect(chunks.map((c) => c.index)).toEqual(chunks.map((_, i) => i));
  });

  it("cuts a class longer than a chunk at its methods", () => {
    const chunks = chunkCode(TS, { language: "typescript", size: 120, overlap: 20 });
    expectFaithful(TS, chunks);
    const rotate = chunks.find((c) => c.text.includes("rotate(user"));
    const revoke = chunks.find((c) => c.text.includes("revoke(user"));
    expect(rotate?.headingPath).toEqual(["export class TokenStore", "rotate"]);
    expect(revoke?.headingPath).toEqual(["export class TokenStore", "revoke"]);
    expect(rotate).not.toBe(revoke);
  });

  it("packs small declarations together when they fit", () => {
    const chunks = chunkCode(TS, { language: "typescript", size: 2000, overlap: 100 });
    expect(chunks).toHaveLength(1);
    expect(chunks[0]?.text).toBe(TS.trimEnd());
  });

  it("handles Python classes, methods and decorators", () => {
    const chunks = chunkCode(PY, { language: "python", size: 140, overlap: 20 });
    expectFaithful(PY, chunks);
    const cls = chunks.find((c) => c.text.includes("class Invoice"));
    expect(cls?.text).toContain("@dataclass\nclass Invoice:");
    const settle = chunks.find((c) => c.text.includes("def settle"));
    expect(settle?.headingPath).toEqual(["def settle"]);
    expect(chunks.some((c) => c.headingPath?.join(" > ") === "class Invoice > def tax")).toBe(true);
  });

  it("knows Go, Rust and Java declarations", () => {
    const go = "package main\n\nfunc A() int {\n\treturn 1\n}\n\nfunc (s *Server) Serve() error {\n\treturn nil\n}\n";
    const goChunks = chunkCode(go, { language: "go", size: 50, overlap: 0 });
    // The package clause and the small func A share a chunk; the method gets its own.
    expect(goChunks.map((c) => c.headingPath?.[0])).toEqual([undefined, "func (s *Server) Serve"]);
    expect(goChunks[0]?.text).toContain("func A()");

    const rust =
      "use std::io;\n\npub struct Point {\n    x: i32,\n}\n\nimpl Point {\n    pub fn new() -> Self {\n        Point { x: 0 }\n    }\n}\n";
    const rustChunks = chunkCode(rust, { language: "rust", size: 40, overlap: 0 });
    expect(rustChunks.some((c) => c.headingPath?.[0] === "pub struct Point")).toBe(true);
    expectFaithful(rust, rustChunks);

    const java =
      'package a;\n\npublic class Greeter {\n    private final String name;\n\n    public Greeter(String name) {\n        this.name = name;\n    }\n\n    public String greet() {\n        return "hello " + name;\n    }\n}\n';
    const javaChunks = chunkCode(java, { language: "java", size: 80, overlap: 0 });
    expectFaithful(java, javaChunks);
    expect(javaChunks.find((c) => c.text.includes("greet()"))?.headingPath).toEqual(["public class Greeter", "public String greet"]);
  });

  it("falls back to overlapping line windows for unknown languages and long bodies", () => {
    const lines = Array.from({ length: 60 }, (_, i) => `line ${i} of a shell script`);
    const text = `${lines.join("\n")}\n`;
    const chunks = chunkCode(text, { language: "shell", size: 200, overlap: 60 });
    expectFaithful(text, chunks);
    for (const c of chunks) expect(c.text.length).toBeLessThanOrEqual(200);
    for (let i = 1; i < chunks.length; i++) {
      const previous = chunks[i - 1] as { end: number };
      expect((chunks[i] as { start: number }).start).toBeLessThan(previous.end);
    }
    expect(chunks[chunks.length - 1]?.text.endsWith("line 59 of a shell script")).toBe(true);
  });

  it("cuts a single overlong line by characters", () => {
    const text = `const data = "${"x".repeat(500)}";\n`;
    const chunks = chunkCode(text, { language: "javascript", size: 100, overlap: 10 });
    expectFaithful(text, chunks);
    expect(chunks.length).toBeGreaterThan(4);
    for (const c of chunks) expect(c.text.length).toBeLessThanOrEqual(100);
  });

  it("returns nothing for blank input", () => {
    expect(chunkCode("\n\n  \n", { language: "python" })).toEqual([]);
  });
});
