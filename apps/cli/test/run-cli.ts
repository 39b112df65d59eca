import { fileURLToPath } from "node:url";
import { expect } from "vitest";
import { type ProcessResult, runNode } from "../../../test/support/node-process.js";

export const CLI = fileURLToPath(new URL("../dist/index.js", import.meta.url));

export type CliResult = ProcessResult;

/** Runs the built `docdb` binary (or `bin`) as a process, with no embedding model unless `env` sets one. */
export function runCli(
  args: string[],
  options: { env?: Record<string, string | undefined>; input?: string; cwd?: string; bin?: string } = {},
): Promise<CliResult> {
  return runNode(options.bin ?? CLI, args, {
    cwd: options.cwd,
    env: { ...process.env, DOCDB_EMBEDDING: "none", OPENAI_API_KEY: "", DOCDB_LOG_LEVEL: "warn", ...options.env },
    input: options.input ?? "",
  });
}

/**
 * `docdb --data-dir <dataDir()> …` as `docdb(...)`, and `json(...)`: the same with `--json`,
 * parsed, failing the test on a non-zero exit. `dataDir` is read at each call (tests make a
 * fresh folder per test).
 */
export function cliAt(dataDir: () => string) {
  const docdb = (...args: string[]) => runCli(["--data-dir", dataDir(), ...args]);
  async function json<T>(...args: string[]): Promise<T> {
    const result = await docdb(...args, "--json");
    expect(result.code, `${result.stderr}${result.stdout}`).toBe(0);
    return JSON.parse(result.stdout) as T;
  }
  return { docdb, json };
}
