// `docdb token` and `docdb audit` as a person meets them: the token printed once and never again,
// only its hash on disk, clear refusals for bad flags, duplicate names and unknown tokens.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { cliAt } from "./run-cli.js";

describe("docdb token and docdb audit", () => {
  const root = mkdtempSync(join(tmpdir(), "docdb-token-"));
  const dataDir = join(root, "data");
  const { docdb, json } = cliAt(() => dataDir);
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it("prints a token once, keeps only its hash, lists and revokes by name", async () => {
    const made = await docdb("token", "create", "--name", "ci", "--db", "handbook", "--read-only", "--expires", "12h", "--rate", "2/s");
    expect(made.code, made.stderr).toBe(0);
    const token = made.stdout.trim();
    expect(token).toMatch(/^docdb_[A-Za-z0-9_-]{43}$/);
    expect(made.stderr).toMatch(/copy it now/);
    const listed = await docdb("token", "list");
    expect(listed.stdout).toMatch(/ci\s+read\s+handbook\s+live/);
    expect(listed.stdout).not.toContain(token);
    const [info] = await json<{ name: string; access: string; databases: string[]; limits: object; state: string }[]>("token", "list");
    expect(info).toMatchObject({ name: "ci", access: "read", databases: ["handbook"], limits: { requestsPerMinute: 120 }, state: "live" });
    expect(JSON.stringify(info)).not.toContain(token);
    expect(readFileSync(join(dataDir, "_docdb.db")).includes(Buffer.from(token))).toBe(false);

    const again = await docdb("token", "create", "--name", "ci");
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/^CONFLICT: a token named "ci" already exists/);
    expect((await docdb("token", "revoke", "ci")).code).toBe(0);
    const twice = await docdb("token", "revoke", "ci");
    expect(twice.stderr).toMatch(/^NOT_FOUND: no live token named "ci"/);
    expect((await json<{ state: string }[]>("token", "list"))[0]?.state).toBe("revoked");
  });

  it("refuses bad flags with a message saying what to pass", async () => {
    for (const [args, said] of [
      [["--expires", "soon"], /--expires takes a number and a unit/],
      [["--rate", "fast"], /--rate takes requests per minute/],
      [["--access", "owner"], /--access takes read, write or admin/],
      [["--max-body", "-5"], /--max-body takes a whole number/],
      [["--db", "../x"], /invalid database name/],
      [["--db", "_docdb"], /docdb keeps its tokens and audit trail there/],
    ] as const) {
      const result = await docdb("token", "create", "--name", "bad", ...args);
      expect(result.code, args.join(" ")).toBe(2);
      expect(result.stderr, args.join(" ")).toMatch(said);
    }
    const badName = await docdb("token", "create", "--name", "no spaces allowed");
    expect(badName.stderr).toMatch(/invalid token name/);
    expect((await docdb("audit", "--since", "yesterday-ish")).stderr).toMatch(/--since takes a duration like 1h/);
  });

  it("audit lists token changes newest first, filters by time", async () => {
    const entries = await json<{ action: string; origin: string }[]>("audit", "--since", "1h");
    expect(entries.map((e) => e.action).slice(0, 2)).toEqual(["token_revoke", "token_create"]);
    expect(entries.every((e) => e.origin === "cli")).toBe(true);
    expect(await json<unknown[]>("audit", "--since", "2999-01-01T00:00:00Z")).toEqual([]);
  });
});
