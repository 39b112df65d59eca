import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readlinkSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { parse as parseJsonc } from "jsonc-parser";
import { parse as parseToml } from "smol-toml";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CLI, runCli } from "./run-cli.js";

// `docdb install` edits a config file in place: through a symbolic link (the link stays), never
// a read-only file, keeping a byte-order mark and every earlier backup, and with a clear error
// for a folder where the file should be. The built CLI, run as a process in fixture folders.

const MCP_BIN = fileURLToPath(new URL("../../mcp-server/dist/bin.js", import.meta.url));
const BOM = "\uFEFF";

let root: string;
beforeAll(() => {
  if (!existsSync(CLI)) throw new Error(`build the CLI first (pnpm build): ${CLI} is missing`);
  root = mkdtempSync(join(tmpdir(), "docdb-install-in-place-"));
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

let n = 0;
/** A home, a project and a dotfiles folder, and a docdb runner bound to the first two. */
function fixture() {
  const base = join(root, String(n++));
  const [home, project, dotfiles] = ["home", "project", "dotfiles"].map((d) => join(base, d)) as [string, string, string];
  for (const dir of [home, project, dotfiles]) mkdirSync(dir, { recursive: true });
  const dataDir = join(base, "data");
  const env = { DOCDB_HOME: home, HOME: home, XDG_CONFIG_HOME: "", CODEX_HOME: "", CLAUDE_CONFIG_DIR: "", DOCDB_HTTP_TOKEN: undefined };
  const docdb = (...args: string[]) => runCli(["--data-dir", dataDir, ...args], { cwd: project, env });
  return { home, project, dotfiles, dataDir, docdb };
}
type Fixture = ReturnType<typeof fixture>;

const write = (file: string, text: string) => {
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, text);
};
const docdbEntry = (format: "json" | "toml", text: string): unknown => {
  const doc = (format === "toml" ? parseToml(text) : parseJsonc(text)) as Record<string, Record<string, unknown>>;
  return doc.mcp_servers?.docdb ?? doc.mcpServers?.docdb ?? doc.servers?.docdb;
};

const LINKED = [
  { client: "claude-code", scope: "project", file: (f: Fixture) => join(f.project, ".mcp.json"), format: "json" },
  { client: "cursor", scope: "user", file: (f: Fixture) => join(f.home, ".cursor", "mcp.json"), format: "json" },
  { client: "codex", scope: "user", file: (f: Fixture) => join(f.home, ".codex", "config.toml"), format: "toml" },
] as const;

const ORIGINAL = {
  json: '{\n  "theme": "dark",\n  "mcpServers": { "other": { "command": "o" } }\n}\n',
  toml: '# mine\nmodel = "o3"\n\n[mcp_servers.other]\ncommand = "o"\n',
};

describe.concurrent("docdb install edits in place", () => {
  for (const c of LINKED) {
    it(`${c.client} --scope ${c.scope}: a symlinked config keeps its link; the target is updated, and restored by uninstall`, async () => {
      const f = fixture();
      const link = c.file(f);
      const target = join(f.dotfiles, c.format === "toml" ? "codex.toml" : "mcp.json");
      const original = ORIGINAL[c.format];
      write(target, original);
      mkdirSync(dirname(link), { recursive: true });
      symlinkSync(target, link);

      const installed = await f.docdb("install", c.client, "--scope", c.scope);
      expect(installed.stderr).toBe("");
      expect(installed.code).toBe(0);
      expect(lstatSync(link).isSymbolicLink()).toBe(true);
      expect(readlinkSync(link)).toBe(target);
      const text = readFileSync(target, "utf8");
      expect(docdbEntry(c.format, text)).toMatchObject({ args: [MCP_BIN, "--data-dir", f.dataDir] });
      expect(text).toContain(c.format === "toml" ? "[mcp_servers.other]" : '"other"');
      expect(readFileSync(`${link}.docdb.bak`, "utf8")).toBe(original);

      const removed = await f.docdb("uninstall", c.client, "--scope", c.scope);
      expect(removed.stdout).toMatch(/restored from backup/);
      expect(lstatSync(link).isSymbolicLink()).toBe(true);
      expect(readFileSync(target, "utf8")).toBe(original);
    });
  }

  it("a dangling link: install creates the file it points at, uninstall deletes that file and keeps the link", async () => {
    const f = fixture();
    const link = join(f.project, ".mcp.json");
    const target = join(f.dotfiles, "new", "mcp.json");
    symlinkSync(target, link);
    const installed = await f.docdb("install", "claude-code");
    expect(installed.code).toBe(0);
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    expect(docdbEntry("json", readFileSync(target, "utf8"))).toBeDefined();
    expect((await f.docdb("uninstall", "claude-code")).code).toBe(0);
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    expect(existsSync(target)).toBe(false);
  });

  it("a read-only (0444) config is refused with a clear message, on install and uninstall, and left as it was", async () => {
    const f = fixture();
    const file = join(f.home, ".cursor", "mcp.json");
    write(file, ORIGINAL.json);
    chmodSync(file, 0o444);
    const refused = await f.docdb("install", "cursor", "--scope", "user");
    expect(refused.code).toBe(2);
    expect(refused.stdout).toBe("");
    expect(refused.stderr).toBe(
      `INVALID_REQUEST: ${file} is read-only (mode 0444), so docdb leaves it as it is: make it writable (chmod u+w ${file}) and run again, or edit it by hand (nothing was changed)\n`,
    );
    expect(readFileSync(file, "utf8")).toBe(ORIGINAL.json);
    expect(statSync(file).mode & 0o777).toBe(0o444);
    expect(existsSync(`${file}.docdb.bak`)).toBe(false);

    // Made writable, installed, then made read-only again: uninstall refuses the same way.
    chmodSync(file, 0o644);
    expect((await f.docdb("install", "cursor", "--scope", "user")).code).toBe(0);
    const installed = readFileSync(file, "utf8");
    chmodSync(file, 0o444);
    const kept = await f.docdb("uninstall", "cursor", "--scope", "user");
    expect(kept.code).toBe(2);
    expect(kept.stderr).toMatch(/is read-only \(mode 0444\)/);
    expect(readFileSync(file, "utf8")).toBe(installed);
  });

  it("a read-only file behind a link is refused, naming the link and its target", async () => {
    const f = fixture();
    const link = join(f.home, ".codex", "config.toml");
    const target = join(f.dotfiles, "codex.toml");
    write(target, ORIGINAL.toml);
    chmodSync(target, 0o400);
    mkdirSync(dirname(link), { recursive: true });
    symlinkSync(target, link);
    const refused = await f.docdb("install", "codex", "--scope", "user");
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(`INVALID_REQUEST: ${link} (a link to ${target}) is read-only (mode 0400)`);
    expect(readFileSync(target, "utf8")).toBe(ORIGINAL.toml);
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
  });

  // (Codex's TOML reader takes a byte-order mark as it is; the JSON files are where it was refused.)
  // VS Code's file here has no "servers" object yet: the one install adds does not stop the restore.
  for (const [client, name, format] of [
    ["claude-code", ".mcp.json", "json"],
    ["vscode", ".vscode/mcp.json", "json"],
  ] as const) {
    it(`${name} with a UTF-8 byte-order mark: accepted, the mark kept, uninstall restores the exact bytes`, async () => {
      const f = fixture();
      const file = join(f.project, name);
      const original = BOM + ORIGINAL[format];
      write(file, original);
      const installed = await f.docdb("install", client, "--scope", "project");
      expect(installed.stderr).toBe("");
      expect(installed.code).toBe(0);
      const text = readFileSync(file, "utf8");
      expect(text.startsWith(BOM)).toBe(true);
      expect(text.startsWith(BOM + BOM)).toBe(false);
      expect(docdbEntry(format, text.slice(1))).toBeDefined();
      expect(readFileSync(`${file}.docdb.bak`, "utf8")).toBe(original);
      expect((await f.docdb("install", client, "--scope", "project")).stdout).toMatch(/nothing changed/);
      expect((await f.docdb("uninstall", client, "--scope", "project")).code).toBe(0);
      expect(readFileSync(file, "utf8")).toBe(original);
    });
  }

  it("an earlier backup is kept (numbered), never overwritten; uninstall still restores the original bytes", async () => {
    const f = fixture();
    const file = join(f.project, ".cursor", "mcp.json");
    const bak = `${file}.docdb.bak`;
    write(file, ORIGINAL.json);
    writeFileSync(bak, "an older backup of mine\n");

    const first = await f.docdb("install", "cursor", "--json");
    expect(first.code).toBe(0);
    expect(JSON.parse(first.stdout).files[0]).toMatchObject({ action: "updated", backup: bak, earlier_backup: `${bak}.1` });
    expect(readFileSync(bak, "utf8")).toBe(ORIGINAL.json);
    expect(readFileSync(`${bak}.1`, "utf8")).toBe("an older backup of mine\n");

    expect((await f.docdb("uninstall", "cursor")).stdout).toMatch(/restored from backup/);
    expect(readFileSync(file, "utf8")).toBe(ORIGINAL.json);
    expect(existsSync(bak)).toBe(false);
    expect(readFileSync(`${bak}.1`, "utf8")).toBe("an older backup of mine\n");

    // Another backup in the way: it goes to the next free number.
    writeFileSync(bak, "yet another\n");
    const second = await f.docdb("install", "cursor");
    expect(second.stdout).toContain(`the earlier backup there was kept as ${bak}.2`);
    expect(readFileSync(bak, "utf8")).toBe(ORIGINAL.json);
    expect(readFileSync(`${bak}.1`, "utf8")).toBe("an older backup of mine\n");
    expect(readFileSync(`${bak}.2`, "utf8")).toBe("yet another\n");
    expect((await f.docdb("uninstall", "cursor")).code).toBe(0);
    expect(readFileSync(file, "utf8")).toBe(ORIGINAL.json);
  });

  it("a folder where the config should be, or a file where its folder should be: a clear error naming the path", async () => {
    const f = fixture();
    const folder = join(f.project, ".cursor", "mcp.json");
    mkdirSync(folder, { recursive: true });
    for (const verb of ["install", "uninstall"]) {
      const result = await f.docdb(verb, "cursor");
      expect(result.code).toBe(2);
      expect(result.stderr).toBe(
        `INVALID_REQUEST: cannot read ${folder}: it is a folder, not a file: move the folder away (or choose another --scope), then run again (nothing was changed)\n`,
      );
    }
    expect(statSync(folder).isDirectory()).toBe(true);

    writeFileSync(join(f.project, ".codex"), "a file\n");
    const blocked = await f.docdb("install", "codex", "--json");
    expect(blocked.code).toBe(2);
    expect(JSON.parse(blocked.stdout).error).toEqual({
      code: "INVALID_REQUEST",
      message: `cannot read ${join(f.project, ".codex", "config.toml")}: part of that path is a file where a folder should be: move that file away, then run again (nothing was changed)`,
    });
    expect(readFileSync(join(f.project, ".codex"), "utf8")).toBe("a file\n");
  });
});
