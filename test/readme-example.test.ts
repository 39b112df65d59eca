import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";

const README = fileURLToPath(new URL("../packages/core/README.md", import.meta.url));
const CORE = pathToFileURL(fileURLToPath(new URL("../packages/core/dist/index.js", import.meta.url))).href;

describe("the @docdb/core README", () => {
  it("its first example runs as written against the built package and prints what its comments say", () => {
    const block = /```ts\n([\s\S]*?)```/.exec(readFileSync(README, "utf8"))?.[1];
    expect(block).toContain('from "@docdb/core"');
    const dir = mkdtempSync(join(tmpdir(), "docdb-readme-"));
    try {
      // The only change: the package name points at the built file, since this is not an install.
      const script = (block as string).replace('from "@docdb/core"', `from ${JSON.stringify(CORE)}`);
      writeFileSync(join(dir, "example.mjs"), script);
      const run = spawnSync(process.execPath, ["example.mjs"], {
        cwd: dir,
        encoding: "utf8",
        env: { ...process.env, DOCDB_LOG_LEVEL: "warn" },
      });
      expect(run.stderr).toBe("");
      expect(run.status).toBe(0);
      // Each console.log line carries its expected output in a trailing comment.
      const expected = [...(block as string).matchAll(/console\.log\(.*\); \/\/ (.*)$/gm)].map((m) => m[1]);
      expect(expected.length).toBe(3);
      expect(run.stdout.trim().split("\n")).toEqual(expected);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
