// Every built file that loads the ICU words addon (the analyzer, bundled into core's worker and
// the two programs) can resolve @docdb/icu-words from where it lies, so no thread of docdb falls
// back to Intl.Segmenter because of where its code was bundled.
import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const ROOT = fileURLToPath(new URL("..", import.meta.url));

/** Built JavaScript files of the workspace's packages that name the addon. */
function loaders(): string[] {
  return ["packages", "apps"].flatMap((group) =>
    readdirSync(join(ROOT, group)).flatMap((name) => {
      const dist = join(ROOT, group, name, "dist");
      let files: string[];
      try {
        files = readdirSync(dist, { recursive: true, encoding: "utf8" });
      } catch {
        return [];
      }
      return files
        .filter((file) => /\.(m|c)?js$/.test(file))
        .map((file) => join(dist, file))
        .filter((file) => readFileSync(file, "utf8").includes('"@docdb/icu-words"'));
    }),
  );
}

describe("the ICU words addon, from every built file that loads it", () => {
  it("resolves and loads with words", () => {
    const files = loaders();
    const where = files.map((file) => file.slice(ROOT.length));
    // The analyzer itself, core's analysis worker and the programs' bundles at least.
    expect(where).toEqual(
      expect.arrayContaining(["packages/analyzer/dist/index.js", "packages/core/dist/analysis-worker.mjs", "apps/cli/dist/docdb.cjs"]),
    );
    expect(where.some((file) => file.startsWith("apps/mcp-server/dist/"))).toBe(true);
    // In a process of its own without NODE_PATH (pnpm's bin shims set it to every workspace
    // package), as a user's process resolves.
    const { NODE_PATH: _, ...env } = process.env;
    const script = `const { createRequire } = require("node:module");
      console.log(JSON.stringify(JSON.parse(process.argv[1]).map((file) => {
        try { const addon = createRequire(file)("@docdb/icu-words"); return [file, typeof addon.words, String(addon.error ?? "")]; }
        catch (error) { return [file, "missing", error.message.split("\\n")[0]]; }
      })));`;
    const loaded = JSON.parse(
      execFileSync(process.execPath, ["-e", script, JSON.stringify(files)], { env, encoding: "utf8" }),
    ) as string[][];
    expect(loaded).toEqual(files.map((file) => [file, "function", ""]));
  });
});
