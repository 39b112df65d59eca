import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";

/** The built server; tests run the real binary, so `pnpm build` comes first. */
export const BIN = fileURLToPath(new URL("../../dist/bin.js", import.meta.url));
export const CLI = fileURLToPath(new URL("../../../cli/dist/index.js", import.meta.url));

export function assertBuilt(path: string = BIN): string {
  if (!existsSync(path)) throw new Error(`${path} is missing: run \`pnpm build\` before these tests`);
  return path;
}

/** A fresh data folder inside a fresh parent (so tests can check nothing lands next to it). */
export function tempDataDir(): { dir: string; parent: string; remove(): void } {
  const parent = mkdtempSync(join(tmpdir(), "docdb-mcp-test-"));
  return { dir: join(parent, "data"), parent, remove: () => rmSync(parent, { recursive: true, force: true }) };
}

/** Environment for a server process: no embedding model, quiet logs, nothing inherited that could change behaviour. */
export function serverEnv(extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = { PATH: process.env.PATH ?? "", DOCDB_EMBEDDING: "none", DOCDB_LOG_LEVEL: "warn" };
  if (process.env.HOME) env.HOME = process.env.HOME;
  return { ...env, ...extra };
}

export interface HttpServerProcess {
  url: string;
  base: string;
  child: ChildProcess;
  stderr: string[];
  stop(): Promise<void>;
}

/** Starts `docdb-mcp --http --port 0 …` and waits for the line that says where it listens. */
export function startHttpServer(args: string[], env: Record<string, string> = serverEnv()): Promise<HttpServerProcess> {
  const child = spawn(process.execPath, [assertBuilt(), "--http", "--port", "0", ...args], { env, stdio: ["ignore", "pipe", "pipe"] });
  const stderr: string[] = [];
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start:\n${stderr.join("\n")}`)), 20_000);
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`server exited with ${code}:\n${stderr.join("\n")}`));
    });
    createInterface({ input: child.stderr as NodeJS.ReadableStream }).on("line", (line) => {
      stderr.push(line);
      const match = /listening on (http:\/\/\S+\/mcp)/.exec(line);
      if (!match?.[1]) return;
      clearTimeout(timer);
      const url = match[1];
      resolve({
        url,
        base: url.slice(0, -"/mcp".length),
        child,
        stderr,
        stop: () => stopProcess(child),
      });
    });
  });
}

/** SIGTERM, then wait for exit (the server closes its databases first). */
export function stopProcess(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once("exit", () => resolve());
    child.kill("SIGTERM");
  });
}
