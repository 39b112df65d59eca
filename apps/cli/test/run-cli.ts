import { fileURLToPath } from "node:url";
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
