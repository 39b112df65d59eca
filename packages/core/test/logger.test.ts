import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { createLogger, DocDBError } from "../src/index.js";

// The logger loads pino with its first line (issue 12: start-up). These tests run core's built
// ES module in a child process, as a program importing @docdb/core would, so that stderr is the
// real stream pino writes to.
const CORE = fileURLToPath(new URL("../dist/index.js", import.meta.url));

/** Runs `body` as an ES module with createLogger, silentLogger and pinoLoaded() in scope. */
function runWithCore(body: string): { stdout: string; stderr: string[] } {
  if (!existsSync(CORE)) throw new Error(`${CORE} is missing: run \`pnpm build\` before these tests`);
  const script = `import { createRequire } from "node:module";
import { createLogger, silentLogger } from ${JSON.stringify(CORE)};
const cache = createRequire(import.meta.url).cache;
const pinoLoaded = () => Object.keys(cache).some((file) => /[\\\\/]pino[\\\\/]pino\\.js$/.test(file));
${body}`;
  const child = spawnSync(process.execPath, ["--input-type=module", "-e", script], {
    env: { PATH: process.env.PATH ?? "" },
    encoding: "utf8",
  });
  if (child.status !== 0) throw new Error(`the script failed (${child.status}):\n${child.stderr}`);
  return { stdout: child.stdout, stderr: child.stderr.split("\n").filter((line) => line !== "") };
}

describe("createLogger", () => {
  it("refuses an unknown level when it is made, naming the levels", () => {
    let thrown: unknown;
    try {
      createLogger({ level: "loud" });
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(DocDBError);
    expect((thrown as DocDBError).code).toBe("INVALID_REQUEST");
    expect((thrown as DocDBError).message).toMatch(/unknown log level "loud".*trace, debug, info, warn, error, fatal, silent/);
  });

  it("loads pino with its first line at or above its level and writes JSON lines on stderr", () => {
    const { stdout, stderr } = runWithCore(`
const logger = createLogger({ level: "warn", name: "logger-test" });
const child = logger.child({ part: "child" });
logger.info("below the level");
silentLogger().error("never written");
const beforeFirstLine = pinoLoaded();
logger.warn({ n: 1 }, "first line");
child.error("from the child");
process.stdout.write(JSON.stringify({ beforeFirstLine, afterFirstLine: pinoLoaded() }));`);
    expect(JSON.parse(stdout)).toEqual({ beforeFirstLine: false, afterFirstLine: true });
    const lines = stderr.map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(lines).toEqual([
      expect.objectContaining({ level: 40, name: "logger-test", n: 1, msg: "first line" }),
      expect.objectContaining({ level: 50, name: "logger-test", part: "child", msg: "from the child" }),
    ]);
  });

  it("writes lines a person reads in the human format", () => {
    const { stderr } = runWithCore(`
const logger = createLogger({ level: "debug", format: "human" });
logger.trace("below the level");
logger.debug({ file_name: "a.md" }, "skipped");
logger.error({ err: new Error("disk full") }, "write failed");`);
    expect(stderr).toEqual(["debug: skipped (file name a.md)", "error: write failed (err disk full)"]);
  });
});

describe("openDocDB's logging", () => {
  /** Inserts and finds with the built core, no logger given; the environment is only PATH plus `env`. */
  function insertAndFind(env: Record<string, string>): { stdout: string; stderr: string } {
    if (!existsSync(CORE)) throw new Error(`${CORE} is missing: run \`pnpm build\` before these tests`);
    const dir = mkdtempSync(join(tmpdir(), "docdb-quiet-"));
    try {
      const script = `import { openDocDB } from ${JSON.stringify(CORE)};
const docdb = openDocDB({ dataDir: ${JSON.stringify(dir)}, embedding: null });
const db = await docdb.database("vectors", { create: true });
await db.insertDocument({ text: "quiet libraries write nothing" });
const { results: hits } = await db.findSimilar({ query: "quiet", mode: "keyword" });
await docdb.close();
process.stdout.write(String(hits.length));`;
      const child = spawnSync(process.execPath, ["--input-type=module", "-e", script], {
        env: { PATH: process.env.PATH ?? "", ...env },
        encoding: "utf8",
      });
      if (child.status !== 0) throw new Error(`the script failed (${child.status}):\n${child.stderr}`);
      return { stdout: child.stdout, stderr: child.stderr };
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }

  it("writes nothing on stderr without a logger or DOCDB_LOG_LEVEL", () => {
    const { stdout, stderr } = insertAndFind({});
    expect(stdout).toBe("1");
    expect(stderr).toBe("");
  });

  it("logs JSON lines at DOCDB_LOG_LEVEL when it is set", () => {
    const { stdout, stderr } = insertAndFind({ DOCDB_LOG_LEVEL: "info" });
    expect(stdout).toBe("1");
    const lines = stderr.split("\n").filter((line) => line !== "");
    expect(lines.length).toBeGreaterThan(0);
    expect(lines.map((line) => JSON.parse(line) as { level: number; msg: string })).toContainEqual(
      expect.objectContaining({ level: 30, msg: "insert" }),
    );
  });
});
