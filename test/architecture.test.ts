import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const root = fileURLToPath(new URL("..", import.meta.url));

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sources(path);
    return /\.ts$/.test(name) && !/\.test\.ts$/.test(name) ? [path] : [];
  });
}

// DESIGN.md: core composes the contract and never names an engine's library; apps only call core.
describe("dependencies point one way", () => {
  const engineLibraries = /from\s+["'](better-sqlite3|sqlite-vec|pg|@electric-sql\/[^"']+|usearch|hnswlib-node)["']/;

  it("core speaks the storage contract only: no database driver, no SQL, no FTS5 syntax", () => {
    const files = sources(join(root, "packages/core/src"));
    expect(files.length).toBeGreaterThan(10);
    for (const file of files) {
      const text = readFileSync(file, "utf8");
      expect(text, file).not.toMatch(engineLibraries);
      expect(text, file).not.toMatch(/\.prepare\(/);
      expect(text, file).not.toMatch(/\bMATCH\b/);
      // sql.ts checks and documents the read-only SQL a user sends to the engine's views; it
      // builds no query of its own.
      if (!file.endsWith("/sql.ts")) expect(text, file).not.toMatch(/\b(SELECT|INSERT INTO|DELETE FROM|UPDATE \w+ SET)\b/);
    }
    const manifest = JSON.parse(readFileSync(join(root, "packages/core/package.json"), "utf8")) as { dependencies: Record<string, string> };
    expect(Object.keys(manifest.dependencies)).not.toContain("better-sqlite3");
    expect(Object.keys(manifest.dependencies)).not.toContain("sqlite-vec");
    // PostgreSQL is an optional peer, loaded when a postgres:// location asks for it (engines.ts).
    expect(Object.keys(manifest.dependencies)).not.toContain("@docdb/store-postgres");
  });

  it("the contract and the analyzer know nothing of engines; apps know nothing of storage", () => {
    for (const dir of ["packages/store/src", "packages/analyzer/src", "apps/cli/src", "apps/mcp-server/src"]) {
      for (const file of sources(join(root, dir))) {
        const text = readFileSync(file, "utf8");
        expect(text, file).not.toMatch(engineLibraries);
        expect(text, file).not.toMatch(/from\s+["']@docdb\/store-(sqlite|postgres)["']/);
      }
    }
  });
});

// One settings layer: the environment is read by core's settings module and by the programs;
// every other module is handed its settings.
describe("settings are read in one place", () => {
  it("process.env appears in packages/*/src only inside packages/core/src/settings/", () => {
    const settingsDir = join(root, "packages/core/src/settings/");
    const readers: string[] = [];
    for (const pkg of readdirSync(join(root, "packages"))) {
      const dir = join(root, "packages", pkg, "src");
      if (!existsSync(dir)) continue;
      for (const file of sources(dir)) {
        if (/process\.env\b/.test(readFileSync(file, "utf8")) && !file.startsWith(settingsDir)) readers.push(file.slice(root.length));
      }
    }
    expect(readers).toEqual([]);
    expect(sources(settingsDir).some((file) => /process\.env\b/.test(readFileSync(file, "utf8")))).toBe(true);
  });
});
