import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CLI, cliAt } from "./run-cli.js";

// One error contract and one key style, through the built CLI as a process.
let dataDir: string;
beforeAll(() => {
  if (!existsSync(CLI)) throw new Error(`build the CLI first (pnpm build): ${CLI} is missing`);
  dataDir = mkdtempSync(join(tmpdir(), "docdb-cli-errors-"));
});
afterAll(() => {
  rmSync(dataDir, { recursive: true, force: true });
});

const { docdb, json } = cliAt(() => dataDir);

/** Every object key in a JSON value, with its path (metadata holds the user's own keys: skipped). */
function keysOf(value: unknown, path = "$"): string[] {
  if (Array.isArray(value)) return value.flatMap((v, i) => keysOf(v, `${path}[${i}]`));
  if (typeof value !== "object" || value === null) return [];
  return Object.entries(value).flatMap(([k, v]) => [`${path}.${k}`, ...(k === "metadata" ? [] : keysOf(v, `${path}.${k}`))]);
}

describe("one error contract", () => {
  beforeAll(async () => {
    expect((await docdb("insert", "--text", "the error contract", "--meta", '{"camelKey":1}')).code).toBe(0);
  });

  it("with --json an error is {error:{code,message}} on stdout, nothing on stderr, with the exit code it has without", async () => {
    const cases: { args: string[]; code: string; exit: number }[] = [
      { args: ["delete", "01ARZ3NDEKTSV4RRFFQ69G5FAV"], code: "NOT_FOUND", exit: 1 },
      { args: ["find", "x", "--mode", "fuzzy"], code: "INVALID_REQUEST", exit: 2 },
      { args: ["get", "01ARZ3NDEKTSV4RRFFQ69G5FAV", "--db", "ghost"], code: "NOT_FOUND", exit: 1 },
      // Argument errors found by the parser are usage errors like INVALID_REQUEST.
      { args: ["delete"], code: "INVALID_REQUEST", exit: 2 },
      { args: ["find", "x", "--no-such-option"], code: "INVALID_REQUEST", exit: 2 },
      { args: ["no-such-command"], code: "INVALID_REQUEST", exit: 2 },
    ];
    for (const { args, code, exit } of cases) {
      const text = await docdb(...args);
      expect(text.code, `${args.join(" ")}: ${text.stderr}`).toBe(exit);
      expect(text.stdout, args.join(" ")).toBe("");
      expect(text.stderr.length, args.join(" ")).toBeGreaterThan(0);
      const asJson = await docdb(...args, "--json");
      expect(asJson.code, `${args.join(" ")} --json`).toBe(exit);
      expect(asJson.stderr, `${args.join(" ")} --json`).toBe("");
      const parsed = JSON.parse(asJson.stdout) as { error: { code: string; message: string } };
      expect(parsed.error.code, args.join(" ")).toBe(code);
      expect(parsed.error.message.length).toBeGreaterThan(5);
      expect(parsed.error.message).not.toMatch(/^error: /);
    }
    // Help and the version are not errors.
    expect((await docdb("--version")).code).toBe(0);
    expect((await docdb("find", "--help")).code).toBe(0);
  });

  it("every key of every --json answer is snake_case (metadata keeps the user's keys)", async () => {
    const source = join(dataDir, "src");
    mkdirSync(source, { recursive: true });
    writeFileSync(join(source, "a.md"), "# A\n\nsnake case keys\n");
    await json("collection", "add", "-n", "docs", "-d", "the docs", "-s", source);
    await json("import", "-n", "docs");
    await json("qa", "add", "-t", "Keys", "-q", "Which key style?", "-a", "snake_case");
    const [hit] = await json<{ doc_id: string }[]>("find", "error contract", "--mode", "keyword");
    const answers = [
      await json("find", "error contract"),
      await json("get", hit?.doc_id as string),
      await json("list"),
      await json("status"),
      await json("status", "-n", "docs"),
      await json("db", "list"),
      await json("sql", "SELECT id, title FROM documents_v"),
      await json("index", "status"),
      await json("collection", "ls"),
      await json("qa", "find", "key style"),
      await json("qa", "list"),
      await json("qa", "topics"),
      await json("copy", "vectors", "copied"),
    ];
    const camel = answers.flatMap((a) => keysOf(a)).filter((path) => /[A-Z]/.test(path.slice(path.lastIndexOf(".") + 1)));
    expect(camel).toEqual([]);
  });
});
