// Child processes for crash tests: a node script running the built engine, its stdout by line, its exit.
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";

const DIST = fileURLToPath(new URL("../../dist/index.js", import.meta.url));

/** The built engine's entry (child processes import it); throws when it was not built. */
export function builtEngine(): string {
  if (!existsSync(DIST)) throw new Error(`${DIST} is missing: run \`pnpm build\` first (the child processes use the built engine)`);
  return DIST;
}

/** A node child running an ES module script; each line of its stdout goes to `onLine`. */
export function runScript(script: string, onLine: (line: string) => void): ChildProcess {
  const proc = spawn(process.execPath, ["--input-type=module", "-e", script], { stdio: ["ignore", "pipe", "inherit"] });
  let buffered = "";
  proc.stdout?.on("data", (data: Buffer) => {
    buffered += data.toString();
    for (let nl = buffered.indexOf("\n"); nl >= 0; nl = buffered.indexOf("\n")) {
      onLine(buffered.slice(0, nl));
      buffered = buffered.slice(nl + 1);
    }
  });
  return proc;
}

/** How the child ended. */
export function exitOf(proc: ChildProcess): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  return new Promise((resolve) => proc.once("exit", (code, signal) => resolve({ code, signal })));
}
