import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CLI, cliAt } from "./run-cli.js";

// What `docdb find` prints without a model, through the built CLI as a process.
let dataDir: string;
beforeAll(async () => {
  if (!existsSync(CLI)) throw new Error(`build the CLI first (pnpm build): ${CLI} is missing`);
  dataDir = mkdtempSync(join(tmpdir(), "docdb-cli-answers-"));
  const source = join(dataDir, "src");
  mkdirSync(source, { recursive: true });
  const words = (s: string) => `${s} `.repeat(12);
  writeFileSync(
    join(source, "README.md"),
    `# Tool\n\n## Install\n\n${words("Some words about installing the tool first.")}\n\n` +
      "```bash\nnpm install --global zorkle\nzorkle --version\n```\n\n" +
      `${words("More words about what happens afterwards.")}\n`,
  );
  writeFileSync(join(source, "z.ts"), "/** Runs zorkle. */\nexport function zorkle(x: number) {\n  return x + 1;\n}\n");
  expect((await docdb("collection", "add", "-n", "docs", "-d", "the docs", "-s", source)).code).toBe(0);
  expect((await docdb("import", "-n", "docs")).code).toBe(0);
  expect((await docdb("insert", "--text", "line one\nline two about zorkle\nline three")).code).toBe(0);
});
afterAll(() => {
  rmSync(dataDir, { recursive: true, force: true });
});

const { docdb } = cliAt(() => dataDir);

describe("answers that read right", () => {
  it("shows headings and line locators; names the language of code files only, not of a README's shell block", async () => {
    const found = await docdb("find", "zorkle", "--mode", "keyword", "--no-text");
    expect(found.code, found.stderr).toBe(0);
    const lines = found.stdout.trim().split("\n");
    const code = lines.find((l) => l.includes("z.ts:"));
    const readme = lines.find((l) => l.includes("README.md:"));
    const inserted = lines.find((l) => !l.includes("z.ts:") && !l.includes("README.md:"));
    expect(code).toMatch(/z\.ts:1-4 {2}zorkle \(function, typescript\)$/);
    expect(readme).toMatch(/README\.md:\d+-\d+ {2}§ Tool > Install$/);
    expect(readme).not.toContain("bash");
    expect(inserted).toMatch(/ {2}lines 1-3$/);
  });

  it("hybrid without vectors answers with keyword scores and says so in one warning line", async () => {
    const found = await docdb("find", "zorkle", "--no-text");
    expect(found.code).toBe(0);
    expect(found.stdout).toMatch(/^1\. score 1\.000 /);
    const warnings = found.stderr.split("\n").filter((l) => l !== "");
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/^warning: .*keyword results only/);
    const asJson = await docdb("find", "zorkle", "--json");
    expect((JSON.parse(asJson.stdout) as { score: number }[])[0]?.score).toBe(1);
    expect(asJson.stderr.split("\n").filter((l) => l !== "")).toEqual(warnings);
  });
});
