import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parse as parseToml } from "smol-toml";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CLI, runCli } from "./run-cli.js";

// `docdb install --http` keeps a shared server's token out of files that may be committed, and
// `--dry-run` writes nothing at all: the built CLI, run as a process in fixture folders.

const URL_ = "http://docs.example:7411/mcp";
let root: string;
beforeAll(() => {
  if (!existsSync(CLI)) throw new Error(`build the CLI first (pnpm build): ${CLI} is missing`);
  root = mkdtempSync(join(tmpdir(), "docdb-install-secrets-"));
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

let n = 0;
/** A home and a project folder (each a git work tree when asked), and a docdb runner bound to both. */
function fixture(git: { home?: boolean; project?: boolean } = {}) {
  const base = join(root, String(n++));
  const home = join(base, "home");
  const project = join(base, "project");
  for (const dir of [home, project]) mkdirSync(dir, { recursive: true });
  if (git.home) execFileSync("git", ["init", "-q", home]);
  if (git.project) execFileSync("git", ["init", "-q", project]);
  const env = { DOCDB_HOME: home, HOME: home, CODEX_HOME: "", CLAUDE_CONFIG_DIR: "", DOCDB_HTTP_TOKEN: undefined };
  const docdb = (args: string[], extra: Record<string, string | undefined> = {}) =>
    runCli(["--data-dir", join(base, "data"), ...args], { cwd: project, env: { ...env, ...extra } });
  return { home, project, docdb };
}

const headerOf = (file: string) =>
  (JSON.parse(readFileSync(file, "utf8")) as { mcpServers: { docdb: { headers: { Authorization: string } } } }).mcpServers.docdb.headers
    .Authorization;

describe.concurrent("install --http: the token stays out of project files", () => {
  it("cursor in a git work tree: the file names $DOCDB_HTTP_TOKEN (Cursor's env: form), holds no token, and nothing warns", async () => {
    const f = fixture({ project: true });
    const result = await f.docdb(["install", "cursor", "--http", URL_, "--token", "s3cret"], { DOCDB_HTTP_TOKEN: "s3cret" });
    expect(result.code).toBe(0);
    // The variable already holds the token given: nothing to say.
    expect(result.stderr).toBe("");
    const file = join(f.project, ".cursor", "mcp.json");
    expect(readFileSync(file, "utf8")).not.toContain("s3cret");
    expect(headerOf(file)).toBe(`Bearer \${env:DOCDB_HTTP_TOKEN}`);
  });

  it("--token-env names another variable, in each client's own syntax", async () => {
    const f = fixture({ project: true });
    const env = { TEAM_TOKEN: "t0ken" };
    for (const client of ["claude-code", "cursor", "gemini", "codex"]) {
      const result = await f.docdb(["install", client, "--http", URL_, "--token-env", "TEAM_TOKEN"], env);
      expect(result.code, result.stderr).toBe(0);
      expect(result.stderr).toBe("");
    }
    expect(headerOf(join(f.project, ".mcp.json"))).toBe(`Bearer \${TEAM_TOKEN}`);
    expect(headerOf(join(f.project, ".cursor", "mcp.json"))).toBe(`Bearer \${env:TEAM_TOKEN}`);
    expect(headerOf(join(f.project, ".gemini", "settings.json"))).toBe(`Bearer \${TEAM_TOKEN}`);
    expect(parseToml(readFileSync(join(f.project, ".codex", "config.toml"), "utf8"))).toEqual({
      mcp_servers: { docdb: { url: URL_, bearer_token_env_var: "TEAM_TOKEN" } },
    });
    // Unset here: one note says what to set (the file is written all the same).
    const unset = await f.docdb(["install", "vscode", "--http", URL_, "--token-env", "TEAM_TOKEN"]);
    expect(unset.code).toBe(0);
    expect(unset.stderr).toBe(
      `note: ${join(f.project, ".vscode", "mcp.json")} names $TEAM_TOKEN, not the token: set TEAM_TOKEN to the server's token in the environment VS Code starts from\n`,
    );
    const bad = await f.docdb(["install", "cursor", "--http", URL_, "--token-env", "TEAM-TOKEN"]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(
      /^INVALID_REQUEST: --token-env must be an environment variable name like DOCDB_HTTP_TOKEN, got "TEAM-TOKEN"/,
    );
    const alone = await f.docdb(["install", "cursor", "--token-env", "TEAM_TOKEN"]);
    expect(alone.stderr).toMatch(/^INVALID_REQUEST: --token-env goes with --http URL/);
  });

  it("a literal token in a file inside a git work tree warns once, in one line, saying how to avoid it", async () => {
    // ~/.claude.json is the one file written with the token itself; here the home folder is a git work tree (dotfiles).
    const f = fixture({ home: true });
    const file = join(f.home, ".claude.json");
    const dry = await f.docdb(["install", "claude-code", "--scope", "user", "--http", URL_, "--token", "s3cret", "--dry-run"]);
    expect(dry.code).toBe(0);
    expect(dry.stderr).toBe(
      `warning: ${file} would hold the token in plain text inside the git work tree ${f.home}, so it may be committed: add it to .gitignore, or install with --scope project (its file names $DOCDB_HTTP_TOKEN instead)\n`,
    );
    expect(existsSync(file)).toBe(false);

    const real = await f.docdb(["install", "claude-code", "--scope", "user", "--http", URL_, "--token", "s3cret"]);
    expect(real.code).toBe(0);
    expect(real.stderr.split("\n")).toEqual([
      expect.stringMatching(/^warning: \S+ holds the token in plain text .* may be committed: /),
      "",
    ]);
    expect(headerOf(file)).toBe("Bearer s3cret");

    // Ignored by git: nothing to warn about.
    writeFileSync(join(f.home, ".gitignore"), ".claude.json\n");
    const ignored = await f.docdb(["install", "claude-code", "--scope", "user", "--http", URL_, "--token", "other"]);
    expect(ignored.code).toBe(0);
    expect(ignored.stderr).toBe("");
  });

  it("outside a git work tree the literal token is written without a warning; without a token it is refused", async () => {
    const f = fixture();
    const fromEnv = await f.docdb(["install", "claude-code", "--scope", "user", "--http", URL_, "--token-env", "TEAM_TOKEN"], {
      TEAM_TOKEN: "t0ken",
    });
    expect(fromEnv.code).toBe(0);
    expect(fromEnv.stderr).toBe("");
    expect(headerOf(join(f.home, ".claude.json"))).toBe("Bearer t0ken");

    const g = fixture();
    const missing = await g.docdb(["install", "claude-code", "--scope", "user", "--http", URL_, "--token-env", "TEAM_TOKEN"]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(
      /^INVALID_REQUEST: Claude Code does not read environment variables in \S+\.claude\.json: give the token with --token \(it is written into that file\), or set TEAM_TOKEN/,
    );
    expect(existsSync(join(g.home, ".claude.json"))).toBe(false);
  });
});

describe("install --dry-run writes nothing at all", () => {
  it("leaves an empty HOME and an empty project empty (no compile cache, no data folder)", async () => {
    const base = join(root, "empty");
    const home = join(base, "home");
    const project = join(base, "project");
    for (const dir of [home, project]) mkdirSync(dir, { recursive: true });
    // A user's plain environment: no docdb variables, caches under HOME.
    const env = { HOME: home, DOCDB_HOME: undefined, XDG_CACHE_HOME: undefined, DOCDB_COMPILE_CACHE: undefined, DOCDB_DATA_DIR: undefined };
    for (const args of [
      ["install", "claude-code", "--instructions", "--dry-run"],
      ["install", "codex", "--scope", "user", "--dry-run", "--json"],
      ["uninstall", "cursor", "--dry-run"],
    ]) {
      const result = await runCli(args, { cwd: project, env });
      expect(result.code, result.stderr).toBe(0);
      expect(readdirSync(home), args.join(" ")).toEqual([]);
      expect(readdirSync(project), args.join(" ")).toEqual([]);
    }
  });
});
