import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { CLI, runCli } from "./run-cli.js";

let base: string;
let home: string;
let project: string;
let nested: string;
beforeAll(() => {
  if (!existsSync(CLI)) throw new Error(`build the CLI first (pnpm build): ${CLI} is missing`);
});
beforeEach(() => {
  base = mkdtempSync(join(tmpdir(), "docdb-cli-config-"));
  home = join(base, "home");
  project = join(base, "project");
  nested = join(project, "sub");
  mkdirSync(nested, { recursive: true });
  mkdirSync(join(home, ".config", "docdb"), { recursive: true });
});
afterEach(() => rmSync(base, { recursive: true, force: true }));

const envDir = () => join(base, "env-data");
const docdb = (args: string[], env: Record<string, string> = {}) =>
  runCli(args, { cwd: nested, env: { DOCDB_HOME: home, XDG_CONFIG_HOME: "", DOCDB_DATA_DIR: envDir(), ...env } });

interface Setting {
  value: unknown;
  source: string;
  from?: string;
}
async function settings(args: string[] = []): Promise<Record<string, Setting>> {
  const result = await docdb([...args, "config", "--json"]);
  expect(result.stderr).toBe("");
  expect(result.code).toBe(0);
  return (JSON.parse(result.stdout) as { settings: Record<string, Setting> }).settings;
}

/** Inserts a document and returns the data folders (of the three candidates) that now hold a database file. */
async function whereInsertLands(args: string[] = [], db = "vectors"): Promise<string[]> {
  const result = await docdb([...args, "insert", "--text", "config precedence", "--json"]);
  expect(result.code).toBe(0);
  return [join(nested, "flag-data"), join(project, "file-data"), envDir()].filter((dir) => existsSync(join(dir, `${db}.db`)));
}

describe("configuration file (built CLI)", () => {
  it("precedence flag > project file > user file > environment, in `docdb config --json` and where an insert lands", async () => {
    writeFileSync(join(project, "docdb.config.json"), JSON.stringify({ dataDir: "file-data" }));
    writeFileSync(join(home, ".config", "docdb", "config.json"), JSON.stringify({ dataDir: join(base, "user-data"), topK: 3 }));

    // Flag beats the file.
    const flagged = await settings(["--data-dir", "flag-data"]);
    expect(flagged.dataDir).toEqual({ value: join(nested, "flag-data"), source: "flag", from: "--data-dir" });
    expect(await whereInsertLands(["--data-dir", "flag-data"])).toEqual([join(nested, "flag-data")]);

    // The project file (found upwards; its relative path is relative to it) beats the user file and the environment.
    const fromFile = await settings();
    expect(fromFile.dataDir).toEqual({ value: join(project, "file-data"), source: "file", from: join(project, "docdb.config.json") });
    expect(fromFile.topK).toEqual({ value: 3, source: "file", from: join(home, ".config", "docdb", "config.json") });
    expect(await whereInsertLands()).toEqual([join(nested, "flag-data"), join(project, "file-data")]);

    // The user file beats the environment.
    rmSync(join(project, "docdb.config.json"));
    expect((await settings()).dataDir).toMatchObject({ value: join(base, "user-data"), source: "file" });

    // The environment beats the default.
    rmSync(join(home, ".config", "docdb", "config.json"));
    const fromEnv = await settings();
    expect(fromEnv.dataDir).toEqual({ value: envDir(), source: "env", from: "DOCDB_DATA_DIR" });
    expect(fromEnv.topK).toEqual({ value: 10, source: "default" });
    expect(await whereInsertLands()).toEqual([join(nested, "flag-data"), join(project, "file-data"), envDir()]);
  });

  it("the file's db and topK become the defaults of commands; a flag still wins", async () => {
    writeFileSync(join(project, "docdb.config.json"), JSON.stringify({ dataDir: "file-data", db: "notes", topK: 1 }));
    expect(await whereInsertLands([], "notes")).toEqual([join(project, "file-data")]);
    await docdb(["insert", "--text", "config precedence again", "--json"]);
    const found = await docdb(["find", "precedence", "--mode", "keyword", "--json"]);
    expect(found.code).toBe(0);
    expect(JSON.parse(found.stdout)).toHaveLength(1);
    const more = await docdb(["find", "precedence", "--mode", "keyword", "--top-k", "5", "--json"]);
    expect(JSON.parse(more.stdout)).toHaveLength(2);
    // Not the configured default: a missing database is created only on request.
    const refused = await docdb(["insert", "--text", "elsewhere", "--db", "other"]);
    expect(refused.code, refused.stderr).toBe(1);
    expect(refused.stderr).toContain("docdb db create other");
    const other = await docdb(["insert", "--text", "elsewhere", "--db", "other", "--create", "--json"]);
    expect(other.code, other.stderr).toBe(0);
    expect(existsSync(join(project, "file-data", "other.db"))).toBe(true);
  });

  it("an invalid file stops every command with INVALID_REQUEST naming the file, the key and the problem", async () => {
    const file = join(project, "docdb.config.json");
    writeFileSync(file, JSON.stringify({ chunkSize: "big", embedding: { provder: "local" } }));
    for (const args of [["config"], ["insert", "--text", "x"]]) {
      const result = await docdb(args);
      expect(result.code).toBe(2);
      expect(result.stdout).toBe("");
      expect(result.stderr).toContain(`INVALID_REQUEST: invalid config file ${file}: `);
      expect(result.stderr).toMatch(/key "chunkSize": must be a whole number/);
      expect(result.stderr).toMatch(/key "embedding.provder": unknown key/);
    }
    expect(existsSync(envDir())).toBe(false);
  });

  it("human output names each setting's origin; the token is masked", async () => {
    writeFileSync(join(home, ".config", "docdb", "config.json"), JSON.stringify({ http: { token: "s3cret", port: 8000 } }));
    const result = await docdb(["config"]);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(new RegExp(`^http\\.port\\s+8000\\s+file ${join(home, ".config", "docdb", "config.json")}$`, "m"));
    expect(result.stdout).toMatch(/^http\.token\s+\*\*\*\s+file /m);
    expect(result.stdout).toMatch(/^dataDir\s+\S+\s+env DOCDB_DATA_DIR$/m);
    expect(result.stdout).not.toContain("s3cret");
  });
});
