// Starts the built `docdb ui` on a free port over a data folder and talks to its API, for the
// page's HTTP and browser tests.
import { type ChildProcess, spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { CLI } from "../run-cli.js";

export const TOKEN = "ui-test-token";

export interface UiProcess {
  /** e.g. http://127.0.0.1:41234 */
  base: string;
  child: ChildProcess;
  stderr: string[];
  /** One API call with the token; answers status and parsed body. */
  api<T = Record<string, unknown>>(method: string, path: string, body?: unknown): Promise<{ status: number; body: T }>;
  stop(): Promise<void>;
}

export function startUi(dataDir: string, env: Record<string, string> = {}, args: string[] = []): Promise<UiProcess> {
  const child = spawn(process.execPath, [CLI, "--data-dir", dataDir, "ui", "--port", "0", "--token", TOKEN, ...args], {
    env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", DOCDB_EMBEDDING: "none", DOCDB_LOG_LEVEL: "warn", ...env },
    stdio: ["ignore", "ignore", "pipe"],
  });
  const stderr: string[] = [];
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`docdb ui did not start in 60 s:\n${stderr.join("\n")}`)), 60_000);
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`docdb ui exited with ${code}:\n${stderr.join("\n")}`));
    });
    createInterface({ input: child.stderr as NodeJS.ReadableStream }).on("line", (line) => {
      stderr.push(line);
      const match = /docdb page at (http:\/\/[^/\s]+)\/ui\//.exec(line);
      if (!match?.[1]) return;
      clearTimeout(timer);
      const base = match[1];
      resolve({
        base,
        child,
        stderr,
        async api<T>(method: string, path: string, body?: unknown) {
          const headers: Record<string, string> = { authorization: `Bearer ${TOKEN}` };
          if (body !== undefined) headers["content-type"] = "application/json";
          const response = await fetch(`${base}/ui/api${path}`, {
            method,
            headers,
            body: body === undefined ? undefined : JSON.stringify(body),
          });
          const text = await response.text();
          const type = response.headers.get("content-type") ?? "";
          return { status: response.status, body: (type.includes("json") ? JSON.parse(text) : text) as T };
        },
        stop: () =>
          new Promise<void>((done) => {
            if (child.exitCode !== null || child.signalCode !== null) return done();
            child.removeAllListeners("exit");
            child.once("exit", () => done());
            child.kill("SIGTERM");
          }),
      });
    });
  });
}

/** The events of a server-sent-events body, in order. */
export function parseEvents(text: string): { event: string; data: unknown }[] {
  return text
    .split("\n\n")
    .filter((block) => block.trim() !== "")
    .map((block) => ({
      event: /^event: (.*)$/m.exec(block)?.[1] ?? "message",
      data: JSON.parse(/^data: (.*)$/m.exec(block)?.[1] ?? "null") as unknown,
    }));
}
