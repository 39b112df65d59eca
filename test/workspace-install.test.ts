// The clone as a developer meets it: `pnpm install` asks nothing about build scripts, npm finds
// no project setting it does not know, and `pnpm -s docdb` reads relative paths from the folder
// it was typed in.
import { execFile } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL("..", import.meta.url));

/** The environment of a developer's shell, not of the pnpm/vitest run this test is part of. */
function shellEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env = Object.fromEntries(Object.entries(process.env).filter(([key]) => !/^(npm_|pnpm_|DOCDB_|INIT_CWD$)/i.test(key)));
  return { ...env, ...extra };
}

/** A top-level list of pnpm-workspace.yaml (`key:` followed by `  - item` lines). */
function workspaceList(key: string): string[] {
  const lines = readFileSync(join(ROOT, "pnpm-workspace.yaml"), "utf8").split("\n");
  const start = lines.indexOf(`${key}:`);
  if (start < 0) return [];
  const items: string[] = [];
  for (const line of lines.slice(start + 1)) {
    const item = /^\s+-\s+"?([^"\s]+)"?\s*$/.exec(line);
    if (item) items.push(item[1] as string);
    else if (!/^\s*(#.*)?$/.test(line)) break;
  }
  return items;
}

/** Every installed package (pnpm's virtual store) that has an install step pnpm would run. */
function packagesWithBuildScripts(): string[] {
  const store = join(ROOT, "node_modules/.pnpm");
  const names = new Set<string>();
  for (const entry of readdirSync(store)) {
    const modules = join(store, entry, "node_modules");
    if (!existsSync(modules)) continue;
    for (const top of readdirSync(modules)) {
      for (const name of top.startsWith("@") ? readdirSync(join(modules, top)).map((n) => `${top}/${n}`) : [top]) {
        const dir = join(modules, name);
        if (!existsSync(join(dir, "package.json"))) continue;
        const { scripts = {} } = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as { scripts?: Record<string, string> };
        // A binding.gyp without an install script means `node-gyp rebuild` to pnpm.
        if (scripts.preinstall || scripts.install || scripts.postinstall || existsSync(join(dir, "binding.gyp"))) names.add(name);
      }
    }
  }
  return [...names].sort();
}

describe("a fresh clone", () => {
  it("names every dependency with an install script as built or ignored, so pnpm install asks about none", () => {
    const decided = new Set([...workspaceList("onlyBuiltDependencies"), ...workspaceList("ignoredBuiltDependencies")]);
    expect(decided.size).toBeGreaterThan(0);
    const undecided = packagesWithBuildScripts().filter((name) => !decided.has(name));
    expect(undecided, "add these to onlyBuiltDependencies or ignoredBuiltDependencies in pnpm-workspace.yaml").toEqual([]);
  });

  it("gives npm no project setting it warns about", async () => {
    const { stderr } = await run("npm", ["config", "get", "registry"], { cwd: ROOT, env: shellEnv() });
    expect(stderr).not.toMatch(/Unknown project config/);
  });

  it("pnpm -s docdb reads a relative path from the folder it was typed in", async () => {
    // Inside the clone (pnpm finds the script there), in its git-ignored scratch folder.
    mkdirSync(join(ROOT, ".tmp"), { recursive: true });
    const scratch = mkdtempSync(join(ROOT, ".tmp", "pnpm-docdb-"));
    try {
      const folder = join(scratch, "notes");
      mkdirSync(folder);
      writeFileSync(join(folder, "only-here.md"), "# Only here\n\nThis file exists only in the notes folder.\n");
      const env = shellEnv({ DOCDB_DATA_DIR: join(scratch, "data"), DOCDB_EMBEDDING: "none" });
      const { stdout } = await run("pnpm", ["-s", "docdb", "insert", "./only-here.md", "--json"], { cwd: folder, env });
      const inserted = JSON.parse(stdout) as { doc_id: string };
      const got = await run("pnpm", ["-s", "docdb", "get", inserted.doc_id, "--json"], { cwd: folder, env });
      expect(got.stdout).toContain("only in the notes folder");
    } finally {
      rmSync(scratch, { recursive: true, force: true });
    }
  });
});
