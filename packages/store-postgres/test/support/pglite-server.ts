import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

/**
 * A PGlite server (PostgreSQL 18 with pgvector, over TCP on loopback) in a child process, for
 * tests: `url` connects to it. With `persistent`, its data lives in a scratch folder, so
 * `kill()` (SIGKILL, as a crash) and `restart()` keep what was committed.
 */
export interface PgliteServer {
  url: string;
  port: number;
  /** Kills the server process at once (SIGKILL). */
  kill(): Promise<void>;
  /** Starts it again on the same port (and data folder). */
  restart(): Promise<void>;
  /** Stops it and removes its data folder. */
  stop(): Promise<void>;
}

const MAIN = fileURLToPath(new URL("./pglite-server-main.mjs", import.meta.url));

function start(port: number, dataDir: string | undefined): Promise<{ child: ChildProcess; port: number }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [MAIN, String(port), dataDir ?? ""], { stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    let err = "";
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`PGlite server did not start in time: ${err}`));
    }, 60_000);
    child.stdout?.on("data", (data: Buffer) => {
      out += data.toString();
      const match = /listening (\d+)/.exec(out);
      if (match) {
        clearTimeout(timer);
        resolve({ child, port: Number(match[1]) });
      }
    });
    child.stderr?.on("data", (data: Buffer) => {
      err += data.toString();
    });
    child.on("exit", (code, signal) => {
      clearTimeout(timer);
      // A server that dies on its own (not killed by a test) says why.
      if (signal === null && code !== 0) process.stderr.write(`PGlite server exited (${code}): ${err}\n`);
      reject(new Error(`PGlite server exited (${code}): ${err}`));
    });
  });
}

function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once("exit", () => resolve()));
}

export async function startPgliteServer(options: { persistent?: boolean } = {}): Promise<PgliteServer> {
  const dataDir = options.persistent ? mkdtempSync(join(tmpdir(), "docdb-pglite-")) : undefined;
  let current = await start(0, dataDir ? join(dataDir, "pgdata") : undefined);
  const port = current.port;
  return {
    url: `postgres://postgres:postgres@127.0.0.1:${port}/postgres`,
    port,
    async kill() {
      current.child.kill("SIGKILL");
      await exited(current.child);
    },
    async restart() {
      current = await start(port, dataDir ? join(dataDir, "pgdata") : undefined);
    },
    async stop() {
      current.child.kill("SIGTERM");
      const timer = setTimeout(() => current.child.kill("SIGKILL"), 5_000);
      await exited(current.child);
      clearTimeout(timer);
      if (dataDir) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** Servers the tests run against: a fresh PGlite one, and DOCDB_TEST_POSTGRES_URL when set. */
export function testServers(): { name: string; url?: string }[] {
  const external = process.env.DOCDB_TEST_POSTGRES_URL;
  return [{ name: "pglite" }, ...(external ? [{ name: "DOCDB_TEST_POSTGRES_URL", url: external }] : [])];
}
