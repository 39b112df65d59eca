import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { CLI, runCli } from "./run-cli.js";

// Warnings said once, one line each, and counts that agree between commands (built CLI, as a
// process), with a local model configured that cannot load: the first-run experience offline.
let dataDir: string;
let env: Record<string, string>;
beforeAll(() => {
  if (!existsSync(CLI)) throw new Error(`build the CLI first (pnpm build): ${CLI} is missing`);
});
beforeEach(() => {
  dataDir = mkdtempSync(join(tmpdir(), "docdb-cli-once-"));
  const empty = join(dataDir, "no-models");
  mkdirSync(empty);
  env = { DOCDB_EMBEDDING: "local", DOCDB_MODEL_DOWNLOAD: "0", DOCDB_MODEL_CACHE: empty, HF_HUB_CACHE: empty, HF_HOME: empty };
});
afterEach(() => {
  rmSync(dataDir, { recursive: true, force: true });
});

const docdb = (...args: string[]) => runCli(["--data-dir", dataDir, ...args], { env });
const lines = (text: string) => text.split("\n").filter((l) => l !== "");
const times = (text: string, part: string) => text.split(part).length - 1;

describe("warnings said once; counts agree", () => {
  it("an import without a usable model warns in one line that gives its advice once", async () => {
    const source = join(dataDir, "src");
    mkdirSync(source);
    writeFileSync(join(source, "a.md"), "# A\n\nsome words\n");
    expect((await docdb("collection", "add", "-n", "docs", "-d", "docs", "-s", source)).code).toBe(0);
    const imported = await docdb("import", "-n", "docs", "--json");
    expect(imported.code, imported.stderr).toBe(0);
    const warnings = (JSON.parse(imported.stdout) as { warnings: string[] }).warnings;
    expect(warnings).toHaveLength(1);
    const [warning] = warnings as [string];
    expect(warning).not.toContain("\n");
    expect(warning).not.toContain("Ways out");
    expect(times(warning, "docdb embed --pending")).toBe(1);
    expect(times(warning, "docdb models")).toBe(1);
    expect(lines(imported.stderr).filter((l) => l.startsWith("warning: "))).toEqual([`warning: ${warning}`]);
  });

  it("qa add under a new topic returns its warning once", async () => {
    const added = await docdb("qa", "add", "-t", "Deploy", "-q", "How do I roll back?", "-a", "deploy rollback", "--json");
    expect(added.code, added.stderr).toBe(0);
    expect((JSON.parse(added.stdout) as { warnings: string[] }).warnings).toHaveLength(1);
    const text = await docdb("qa", "add", "-t", "Staging", "-q", "Which port?", "-a", "5433");
    expect(lines(text.stderr)).toHaveLength(1);
  });

  it("embed --pending counts the pending chunks as status does (agent memory apart)", async () => {
    expect((await docdb("insert", "--text", "a document")).code).toBe(0);
    expect((await docdb("qa", "add", "-t", "Deploy", "-q", "How do I roll back?", "-a", "deploy rollback")).code).toBe(0);
    const status = JSON.parse((await docdb("status", "--json")).stdout) as {
      databases: { pending: number; memory?: { pending: number } }[];
    };
    const [db] = status.databases;
    expect(db?.pending).toBe(1);
    const memory = db?.memory?.pending ?? 0;
    expect(memory).toBeGreaterThan(0);
    const embed = await docdb("embed", "--pending");
    expect(embed.code).toBe(1);
    expect(embed.stderr).toContain(`stopped after 0 of ${1 + memory} pending chunks (1 of documents, ${memory} of agent memory)`);
    expect(embed.stderr).not.toContain("Ways out");
  });

  it("copy counts documents as db list does (agent memory apart)", async () => {
    for (const text of ["one", "two", "three"]) expect((await docdb("insert", "--text", text)).code).toBe(0);
    expect((await docdb("qa", "add", "-t", "Deploy", "-q", "How do I roll back?", "-a", "deploy rollback")).code).toBe(0);
    const copied = await docdb("copy", "vectors", "backup");
    expect(copied.code, copied.stderr).toBe(0);
    const list = JSON.parse((await docdb("db", "list", "--json")).stdout) as {
      name: string;
      documents: number;
      memory?: { documents: number };
    }[];
    const backup = list.find((d) => d.name === "backup");
    expect(backup?.documents).toBe(3);
    expect(copied.stdout).toMatch(new RegExp(`^copied 3 new document\\(s\\) and ${backup?.memory?.documents} agent memory record\\(s\\) `));
  });
});
