import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { parse as parseJsonc } from "jsonc-parser";
import { parse as parseToml } from "smol-toml";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CLI, runCli } from "./run-cli.js";

const MCP_BIN = fileURLToPath(new URL("../../mcp-server/dist/bin.js", import.meta.url));
const NODE = process.execPath;

let root: string;
beforeAll(() => {
  if (!existsSync(CLI)) throw new Error(`build the CLI first (pnpm build): ${CLI} is missing`);
  root = mkdtempSync(join(tmpdir(), "docdb-install-"));
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

let n = 0;
/** A fresh fixture: a home folder, a project folder, and a docdb runner bound to both. */
function fixture() {
  const base = join(root, String(n++));
  const home = join(base, "home");
  const project = join(base, "project");
  mkdirSync(home, { recursive: true });
  mkdirSync(project, { recursive: true });
  const dataDir = join(base, "data");
  const env = {
    DOCDB_HOME: home,
    HOME: home,
    XDG_CONFIG_HOME: "",
    APPDATA: "",
    CODEX_HOME: "",
    CLAUDE_CONFIG_DIR: "",
    DOCDB_HTTP_TOKEN: undefined,
  };
  const docdb = (...args: string[]) => runCli(["--data-dir", dataDir, ...args], { cwd: project, env });
  return { home, project, dataDir, docdb, env };
}

type Fixture = ReturnType<typeof fixture>;

interface Case {
  client: string;
  scope: "project" | "user";
  file: (f: Fixture) => string;
  format: "json" | "toml";
  container: string;
  stdio: (f: Fixture) => Record<string, unknown>;
  http: Record<string, unknown>;
}

const args = (f: Fixture) => [MCP_BIN, "--data-dir", f.dataDir];
const plain = (f: Fixture) => ({ command: NODE, args: args(f) });
// --token s3cret: the file names the variable where the client reads one (the token itself only in ~/.claude.json).
const literal = { Authorization: "Bearer s3cret" };
const brace = { Authorization: `Bearer \${DOCDB_HTTP_TOKEN}` };
const colon = { Authorization: `Bearer \${env:DOCDB_HTTP_TOKEN}` };
const URL_ = "http://docs.example:7411/mcp";

const CASES: Case[] = [
  {
    client: "claude-code",
    scope: "project",
    file: (f) => join(f.project, ".mcp.json"),
    format: "json",
    container: "mcpServers",
    stdio: (f) => ({ type: "stdio", command: NODE, args: args(f), env: {} }),
    http: { type: "http", url: URL_, headers: brace },
  },
  {
    client: "claude-code",
    scope: "user",
    file: (f) => join(f.home, ".claude.json"),
    format: "json",
    container: "mcpServers",
    stdio: (f) => ({ type: "stdio", command: NODE, args: args(f), env: {} }),
    http: { type: "http", url: URL_, headers: literal },
  },
  {
    client: "claude-desktop",
    scope: "user",
    file: (f) => join(f.home, ".config", "Claude", "claude_desktop_config.json"),
    format: "json",
    container: "mcpServers",
    stdio: plain,
    http: {},
  },
  {
    client: "cursor",
    scope: "project",
    file: (f) => join(f.project, ".cursor", "mcp.json"),
    format: "json",
    container: "mcpServers",
    stdio: plain,
    http: { url: URL_, headers: colon },
  },
  {
    client: "cursor",
    scope: "user",
    file: (f) => join(f.home, ".cursor", "mcp.json"),
    format: "json",
    container: "mcpServers",
    stdio: plain,
    http: { url: URL_, headers: colon },
  },
  {
    client: "vscode",
    scope: "project",
    file: (f) => join(f.project, ".vscode", "mcp.json"),
    format: "json",
    container: "servers",
    stdio: (f) => ({ type: "stdio", command: NODE, args: args(f) }),
    http: { type: "http", url: URL_, headers: colon },
  },
  {
    client: "vscode",
    scope: "user",
    file: (f) => join(f.home, ".config", "Code", "User", "mcp.json"),
    format: "json",
    container: "servers",
    stdio: (f) => ({ type: "stdio", command: NODE, args: args(f) }),
    http: { type: "http", url: URL_, headers: colon },
  },
  {
    client: "windsurf",
    scope: "user",
    file: (f) => join(f.home, ".codeium", "windsurf", "mcp_config.json"),
    format: "json",
    container: "mcpServers",
    stdio: plain,
    http: { serverUrl: URL_, headers: colon },
  },
  {
    client: "codex",
    scope: "user",
    file: (f) => join(f.home, ".codex", "config.toml"),
    format: "toml",
    container: "mcp_servers",
    stdio: plain,
    http: { url: URL_, bearer_token_env_var: "DOCDB_HTTP_TOKEN" },
  },
  {
    client: "codex",
    scope: "project",
    file: (f) => join(f.project, ".codex", "config.toml"),
    format: "toml",
    container: "mcp_servers",
    stdio: plain,
    http: { url: URL_, bearer_token_env_var: "DOCDB_HTTP_TOKEN" },
  },
  {
    client: "gemini",
    scope: "project",
    file: (f) => join(f.project, ".gemini", "settings.json"),
    format: "json",
    container: "mcpServers",
    stdio: plain,
    http: { httpUrl: URL_, headers: brace },
  },
  {
    client: "gemini",
    scope: "user",
    file: (f) => join(f.home, ".gemini", "settings.json"),
    format: "json",
    container: "mcpServers",
    stdio: plain,
    http: { httpUrl: URL_, headers: brace },
  },
];

const parseAs = (format: "json" | "toml", text: string): unknown => (format === "toml" ? parseToml(text) : parseJsonc(text));

/** An existing config with another server and other settings, in a layout of its own (4 spaces, a comment in JSONC). */
function existing(c: Case): string {
  if (c.format === "toml") {
    return `# my codex settings\nmodel = "o3"\n\n[mcp_servers.other]\ncommand = "other-server"\nargs = ["--flag"]\n\n[profiles.fast]\nmodel = "mini"\n`;
  }
  const comment = c.client === "vscode" ? "    // my servers\n" : "";
  return `{\n    "theme": "dark",\n${comment}    "${c.container}": {\n        "other": { "command": "other-server", "args": ["--flag"] }\n    }\n}\n`;
}

describe.concurrent("docdb install / uninstall, every client (built CLI, fixture home and project)", () => {
  for (const c of CASES) {
    it(`${c.client} --scope ${c.scope}: writes exactly its entry; a second run changes nothing; uninstall deletes what it created`, async () => {
      const f = fixture();
      const file = c.file(f);
      const first = await f.docdb("install", c.client, "--scope", c.scope, "--json");
      expect(first.stderr).toBe("");
      expect(first.code).toBe(0);
      expect(JSON.parse(first.stdout)).toMatchObject({
        client: c.client,
        scope: c.scope,
        changed: true,
        files: [{ path: file, action: "created" }],
      });
      const text = readFileSync(file, "utf8");
      expect(parseAs(c.format, text)).toEqual({ [c.container]: { docdb: c.stdio(f) } });

      const second = await f.docdb("install", c.client, "--scope", c.scope);
      expect(second.code).toBe(0);
      expect(second.stdout).toMatch(/already installed; nothing changed/);
      expect(readFileSync(file, "utf8")).toBe(text);
      expect(existsSync(`${file}.docdb.bak`)).toBe(false);

      const removed = await f.docdb("uninstall", c.client, "--scope", c.scope, "--json");
      expect(removed.code).toBe(0);
      const report = JSON.parse(removed.stdout) as { changed: boolean; files: { path: string; action: string }[] };
      expect(report.changed).toBe(true);
      expect(report.files[0]).toMatchObject({ path: file, action: "deleted" });
      // The instruction file (if the client has one) was never written, so it is reported absent.
      expect(report.files.slice(1).map((x) => x.action)).toEqual(report.files.length > 1 ? ["absent"] : []);
      expect(existsSync(file)).toBe(false);
      // Folders the install created (.cursor, .codex, …) go too; the project and home stay.
      if (dirname(file) !== f.project && dirname(file) !== f.home) expect(existsSync(dirname(file))).toBe(false);
      expect(existsSync(f.project) && existsSync(f.home)).toBe(true);
      const again = await f.docdb("uninstall", c.client, "--scope", c.scope);
      expect(again.stdout).toMatch(/not installed there; nothing changed/);
    });

    it(`${c.client} --scope ${c.scope}: merges into an existing file (others kept, backup first); uninstall restores the original bytes`, async () => {
      const f = fixture();
      const file = c.file(f);
      const original = existing(c);
      mkdirSync(dirname(file), { recursive: true });
      writeFileSync(file, original);

      const dry = await f.docdb("install", c.client, "--scope", c.scope, "--dry-run");
      expect(dry.code).toBe(0);
      expect(dry.stdout).toMatch(/would be updated/);
      expect(dry.stdout).toContain("dry run: nothing was written");
      expect(readFileSync(file, "utf8")).toBe(original);
      expect(existsSync(`${file}.docdb.bak`)).toBe(false);

      const installed = await f.docdb("install", c.client, "--scope", c.scope);
      expect(installed.code).toBe(0);
      expect(readFileSync(`${file}.docdb.bak`, "utf8")).toBe(original);
      const text = readFileSync(file, "utf8");
      const before = parseAs(c.format, original) as Record<string, Record<string, unknown>>;
      expect(parseAs(c.format, text)).toEqual({ ...before, [c.container]: { ...before[c.container], docdb: c.stdio(f) } });
      // Every line of the original is still there, as it was (a comma may follow the last server).
      for (const line of original.split("\n")) expect(text).toContain(line);

      const twice = await f.docdb("install", c.client, "--scope", c.scope);
      expect(twice.stdout).toMatch(/nothing changed/);
      expect(readFileSync(file, "utf8")).toBe(text);

      const removed = await f.docdb("uninstall", c.client, "--scope", c.scope);
      expect(removed.code).toBe(0);
      expect(removed.stdout).toMatch(/restored from backup/);
      expect(readFileSync(file, "utf8")).toBe(original);
      expect(existsSync(`${file}.docdb.bak`)).toBe(false);
    });

    it(`${c.client} --scope ${c.scope}: --http writes the client's remote form, or refuses clearly`, async () => {
      const f = fixture();
      const file = c.file(f);
      const result = await f.docdb("install", c.client, "--scope", c.scope, "--http", URL_, "--token", "s3cret");
      if (Object.keys(c.http).length === 0) {
        expect(result.code).toBe(2);
        expect(result.stderr).toMatch(/^INVALID_REQUEST: Claude Desktop does not read remote servers/);
        expect(existsSync(file)).toBe(false);
        return;
      }
      expect(result.code).toBe(0);
      const text = readFileSync(file, "utf8");
      expect(parseAs(c.format, text)).toEqual({ [c.container]: { docdb: c.http } });
      // The token stays out of every file but ~/.claude.json; where it stays out, one note says which variable to set.
      expect(text.includes("s3cret")).toBe(c.http.headers === literal);
      if (c.http.headers !== literal) {
        expect(result.stderr).toMatch(
          /^note: \S+ names \$DOCDB_HTTP_TOKEN, not the token: set DOCDB_HTTP_TOKEN to the token you gave in .+\n$/,
        );
      } else expect(result.stderr).toBe("");
    });
  }
});

describe.concurrent("docdb install: refusals, updates and instructions", () => {
  for (const [client, scope, name, content] of [
    ["cursor", "project", ".cursor/mcp.json", '{ "mcpServers": { "other": {} }, }'],
    ["claude-code", "project", ".mcp.json", '{ "mcpServers": { // no comments in .mcp.json\n } }'],
    ["vscode", "project", ".vscode/mcp.json", '{ "servers": [] }'],
    ["codex", "project", ".codex/config.toml", "[mcp_servers.other\ncommand = 1\n"],
  ] as const) {
    it(`a malformed ${name} is refused with a clear error and left untouched`, async () => {
      const f = fixture();
      const file = join(f.project, name);
      mkdirSync(dirname(file), { recursive: true });
      writeFileSync(file, content);
      const result = await f.docdb("install", client, "--scope", scope);
      expect(result.code).toBe(2);
      expect(result.stderr).toContain(`INVALID_REQUEST: ${file}`);
      expect(result.stderr).toMatch(/nothing was changed/);
      expect(result.stdout).toBe("");
      expect(readFileSync(file, "utf8")).toBe(content);
      expect(existsSync(`${file}.docdb.bak`)).toBe(false);
    });
  }

  it("--dry-run on a fresh project writes nothing at all", async () => {
    const f = fixture();
    const result = await f.docdb("install", "claude-code", "--instructions", "--dry-run", "--json");
    expect(result.code).toBe(0);
    const out = JSON.parse(result.stdout) as { dry_run: boolean; files: { path: string; action: string; diff: string }[] };
    expect(out.dry_run).toBe(true);
    expect(out.files.map((x) => x.action)).toEqual(["created", "created"]);
    expect(out.files[0]?.diff).toContain('+     "docdb": {');
    expect(existsSync(join(f.project, ".mcp.json"))).toBe(false);
    expect(existsSync(join(f.project, ".claude"))).toBe(false);
  });

  it("a re-install with other options keeps the first backup, so uninstall still restores the original bytes", async () => {
    const f = fixture();
    const file = join(f.project, ".cursor", "mcp.json");
    const original = '{"mcpServers":{"other":{"command":"o"}}}';
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, original);
    await f.docdb("install", "cursor");
    const changed = await f.docdb("install", "cursor", "--db", "notes");
    expect(changed.stdout).toMatch(/updated/);
    expect((parseJsonc(readFileSync(file, "utf8")) as { mcpServers: { docdb: { args: string[] } } }).mcpServers.docdb.args).toEqual([
      MCP_BIN,
      "--data-dir",
      f.dataDir,
      "--db",
      "notes",
    ]);
    expect(readFileSync(`${file}.docdb.bak`, "utf8")).toBe(original);
    await f.docdb("uninstall", "cursor");
    expect(readFileSync(file, "utf8")).toBe(original);
  });

  it("uninstall after other edits takes out only docdb's entry and keeps the rest", async () => {
    const f = fixture();
    const file = join(f.home, ".codex", "config.toml");
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, 'model = "o3"\n');
    await f.docdb("install", "codex", "--scope", "user");
    writeFileSync(file, `${readFileSync(file, "utf8")}\n[mcp_servers.added_later]\ncommand = "x"\n`);
    const removed = await f.docdb("uninstall", "codex", "--scope", "user");
    expect(removed.stdout).toMatch(/config.toml updated/);
    expect(parseToml(readFileSync(file, "utf8"))).toEqual({ model: "o3", mcp_servers: { added_later: { command: "x" } } });
    expect(existsSync(`${file}.docdb.bak`)).toBe(false);
  });

  it("--instructions: a Claude Code skill, and a marked AGENTS.md block that uninstall removes byte-for-byte", async () => {
    const f = fixture();
    const skill = await f.docdb("install", "claude-code", "--instructions", "--db", "notes");
    expect(skill.code).toBe(0);
    const skillText = readFileSync(join(f.project, ".claude", "skills", "docdb", "SKILL.md"), "utf8");
    expect(skillText).toMatch(/^---\nname: docdb\ndescription: .+\n---\n/);
    expect(skillText).toContain("database `notes`");
    expect(skillText).toContain("find_similar_documents");
    expect(skillText).toContain("store_qa {question, answer, topic}");
    await f.docdb("uninstall", "claude-code");
    expect(existsSync(join(f.project, ".claude"))).toBe(false);
    expect(existsSync(join(f.project, ".mcp.json"))).toBe(false);

    const agents = join(f.project, "AGENTS.md");
    const original = "# Agents\n\nRun `pnpm test` before committing.\n";
    writeFileSync(agents, original);
    expect((await f.docdb("install", "cursor", "--instructions")).code).toBe(0);
    const withBlock = readFileSync(agents, "utf8");
    expect(withBlock.startsWith(original)).toBe(true);
    expect(withBlock).toMatch(/<!-- docdb:begin[^\n]*-->\n## docdb\n[\s\S]*grep[\s\S]*<!-- docdb:end -->\n$/);
    expect((await f.docdb("install", "cursor", "--instructions")).stdout).toMatch(/nothing changed/);
    await f.docdb("uninstall", "cursor");
    expect(readFileSync(agents, "utf8")).toBe(original);
    expect(existsSync(join(f.project, ".cursor"))).toBe(false);
  });

  it("unknown clients, scopes a client lacks, and --token without --http are refused", async () => {
    const f = fixture();
    const unknown = await f.docdb("install", "emacs");
    expect(unknown.stderr).toMatch(
      /^INVALID_REQUEST: unknown client "emacs": use one of claude-code, claude-desktop, cursor, vscode, windsurf, codex, gemini/,
    );
    const scope = await f.docdb("install", "windsurf", "--scope", "project");
    expect(scope.stderr).toMatch(/Windsurf reads MCP servers only at user scope/);
    const token = await f.docdb("install", "cursor", "--token", "x");
    expect(token.stderr).toMatch(/--token goes with --http/);
    const blank = await f.docdb("install", "cursor", "--http", URL_, "--token", " ");
    expect(blank.stderr).toMatch(/--token must be a non-empty token/);
    for (const r of [unknown, scope, token, blank]) expect(r.code).toBe(2);
    expect(existsSync(join(f.project, ".cursor"))).toBe(false);
  });
});
