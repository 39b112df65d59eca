import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
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

// Rooms, not halls (issue 22): files small enough to read, no import circles, and both engines
// naming the same concerns the same way.
describe("the code is in rooms", () => {
  const packageSources = () =>
    [...readdirSync(join(root, "packages")).map((p) => `packages/${p}/src`), ...readdirSync(join(root, "apps")).map((a) => `apps/${a}/src`)]
      .filter((dir) => existsSync(join(root, dir)))
      .flatMap((dir) => sources(join(root, dir)));
  // Data tables (a language table) are exempt from the size rule.
  const DATA_TABLES = ["packages/chunker/src/code-languages.ts"];

  it("no source file is over 400 lines, and Database is under 300", () => {
    const files = packageSources();
    expect(files.length).toBeGreaterThan(100);
    const long = files
      .filter((file) => !DATA_TABLES.some((table) => file.endsWith(table)))
      .map((file) => ({ file: file.slice(root.length), lines: readFileSync(file, "utf8").split("\n").length }))
      .filter(({ lines }) => lines > 400);
    expect(long).toEqual([]);
    expect(readFileSync(join(root, "packages/core/src/database/database.ts"), "utf8").split("\n").length).toBeLessThan(300);
  });

  it("no module imports itself through others (relative imports, types included)", () => {
    const files = new Set(packageSources());
    const edges = new Map<string, string[]>();
    for (const file of files) {
      const targets: string[] = [];
      for (const match of readFileSync(file, "utf8").matchAll(/(?:from|import)\s*\(?\s*["'](\.{1,2}\/[^"']+)["']/g)) {
        const target = join(dirname(file), match[1] as string).replace(/\.js$/, ".ts");
        if (files.has(target)) targets.push(target);
      }
      edges.set(file, targets);
    }
    const circles: string[] = [];
    const state = new Map<string, "open" | "done">();
    const visit = (file: string, path: string[]): void => {
      state.set(file, "open");
      for (const next of edges.get(file) ?? []) {
        if (state.get(next) === "open")
          circles.push([...path.slice(path.indexOf(next)), next].map((f) => f.slice(root.length)).join(" → "));
        else if (!state.has(next)) visit(next, [...path, next]);
      }
      state.set(file, "done");
    };
    for (const file of files) if (!state.has(file)) visit(file, [file]);
    expect(circles).toEqual([]);
  });

  it("both engines name the shared concerns alike and ship their own migrations", () => {
    const shared = ["engine", "store", "rows", "write", "read", "keyword", "vector", "filter", "collections", "meta", "migrate", "sql"];
    for (const engine of ["store-sqlite", "store-postgres"]) {
      const names = readdirSync(join(root, "packages", engine, "src"));
      for (const concern of shared) expect(names, `${engine}/src/${concern}.ts`).toContain(`${concern}.ts`);
      const migrations = readdirSync(join(root, "packages", engine, "migrations"));
      expect(migrations.filter((name) => /^\d{4}_\w+\.sql$/.test(name)).length).toBeGreaterThanOrEqual(5);
      const manifest = JSON.parse(readFileSync(join(root, "packages", engine, "package.json"), "utf8")) as { files: string[] };
      expect(manifest.files).toContain("migrations");
    }
    expect(existsSync(join(root, "migrations"))).toBe(false);
  });
});
