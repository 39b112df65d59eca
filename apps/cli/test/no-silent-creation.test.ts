import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { CLI, cliAt } from "./run-cli.js";

// Writing to a database that does not exist is NOT_FOUND naming the command that creates it,
// unless --create is given or it is the default database (built CLI, as a process).
let dataDir: string;
beforeAll(() => {
  if (!existsSync(CLI)) throw new Error(`build the CLI first (pnpm build): ${CLI} is missing`);
});
beforeEach(() => {
  dataDir = mkdtempSync(join(tmpdir(), "docdb-cli-create-"));
});
afterEach(() => {
  rmSync(dataDir, { recursive: true, force: true });
});

const { docdb, json } = cliAt(() => dataDir);

const WRITES: string[][] = [
  ["insert", "--text", "hi"],
  ["qa", "add", "-t", "Deploy", "-q", "How do I roll back?", "-a", "deploy rollback"],
  ["qa", "knowledge", "-t", "Deploy", "--text", "Roll back with deploy rollback."],
  ["collection", "add", "-n", "docs", "-d", "the docs", "-s", "."],
];

describe("no silent creation", () => {
  it("every writing command refuses a missing --db with NOT_FOUND naming `docdb db create`, and creates nothing", async () => {
    for (const args of WRITES) {
      const result = await docdb(...args, "--db", "nosuch");
      expect(result.code, `${args.join(" ")}: ${result.stderr}`).toBe(1);
      expect(result.stdout).toBe("");
      expect(result.stderr).toMatch(
        /^NOT_FOUND: database "nosuch" does not exist in .*: create it with `docdb db create nosuch`, or run again with --create\n$/,
      );
      expect(existsSync(join(dataDir, "nosuch.db")), args.join(" ")).toBe(false);
    }
  });

  it("--create creates it; the default database is created without it", async () => {
    for (const [i, args] of WRITES.entries()) {
      const result = await docdb(...args, "--db", `made${i}`, "--create");
      expect(result.code, `${args.join(" ")}: ${result.stderr}`).toBe(0);
      expect(existsSync(join(dataDir, `made${i}.db`))).toBe(true);
    }
    const inserted = await json<{ doc_id: string }>("insert", "--text", "into the default database");
    expect(inserted.doc_id).toMatch(/^[0-9A-Z]{26}$/);
    expect(existsSync(join(dataDir, "vectors.db"))).toBe(true);
    // An existing database needs no flag.
    expect((await docdb("insert", "--text", "again", "--db", "made0")).code).toBe(0);
  });
});
