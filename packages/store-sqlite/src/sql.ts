// Read-only querySql: one statement at a time in a child process (sql-child.mjs) holding a
// read-only connection, capped in rows, bytes and time.
import type { ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import { SQL_DEFAULT_MAX_BYTES, type SqlQueryOptions, type SqlQueryResult, StoreError } from "@docdb/store";

/** How long the reader process may take to start and open the file. */
const START_TIMEOUT_MS = 15_000;
/** Extra time the reader gets to report a time cap itself before it is killed. */
const KILL_GRACE_MS = 200;

type Answer =
  | { id: number; ok: true; columns: string[]; rows: unknown[][]; truncated: boolean; truncatedBy?: "rows" | "bytes" }
  | { id: number; ok: false; kind: "refused" | "sql" | "time" | "bytes"; message: string };

function childScript(): string {
  // Next to the bundle (dist/) or next to this file (src/, in tests); both hold the .mjs.
  const path = fileURLToPath(new URL("./sql-child.mjs", import.meta.url));
  if (!existsSync(path)) throw new StoreError("INTERNAL", `docdb's SQL reader script is missing (${path})`);
  return path;
}

/**
 * Read-only SQL over one database file, run in a child process (sql-child.mjs) that holds
 * a read-only `query_only` connection. Queries run one at a time. A query past its time cap is
 * stopped by killing that process (the next query starts a new one), so nothing a query does can
 * hold up or crash the caller.
 */
export class SqlReader {
  private child: ChildProcess | undefined;
  private starting: Promise<ChildProcess> | undefined;
  private queue: Promise<unknown> = Promise.resolve();
  private nextId = 1;
  private closed = false;

  constructor(private readonly path: string) {}

  query(sql: string, options: SqlQueryOptions): Promise<SqlQueryResult> {
    const run = this.queue.then(
      () => this.run(sql, options),
      () => this.run(sql, options),
    );
    this.queue = run.catch(() => undefined);
    return run;
  }

  async close(): Promise<void> {
    this.closed = true;
    const child = this.child ?? (await this.starting?.catch(() => undefined));
    this.child = undefined;
    if (child) await stop(child);
  }

  private async run(sql: string, options: SqlQueryOptions): Promise<SqlQueryResult> {
    if (this.closed) throw new StoreError("INVALID_REQUEST", "the database is closed");
    const child = await this.start();
    const id = this.nextId++;
    const answer = await new Promise<Answer | { id: number; died: string }>((resolve) => {
      const finish = (value: Answer | { id: number; died: string }) => {
        clearTimeout(timer);
        child.off("message", onMessage);
        child.off("exit", onExit);
        resolve(value);
      };
      const onMessage = (message: Answer) => {
        if (message.id === id) finish(message);
      };
      const onExit = (code: number | null, signal: string | null) =>
        finish({ id, died: `the SQL reader process ended (${signal ?? `exit code ${code}`}) while running the query` });
      const timer = setTimeout(() => {
        this.child = undefined;
        child.kill("SIGKILL");
        finish({ id, ok: false, kind: "time", message: `stopped at the ${options.timeoutMs} ms time cap` });
      }, options.timeoutMs + KILL_GRACE_MS);
      child.on("message", onMessage);
      child.once("exit", onExit);
      child.send({ id, sql, maxRows: options.maxRows, maxBytes: options.maxBytes ?? SQL_DEFAULT_MAX_BYTES, timeoutMs: options.timeoutMs });
    });
    if ("died" in answer) {
      this.child = undefined;
      throw new StoreError("INVALID_REQUEST", `query failed: ${answer.died} (it may have needed too much memory)`);
    }
    if (!answer.ok) throw new StoreError("INVALID_REQUEST", answer.kind === "sql" ? `SQL error: ${answer.message}` : answer.message);
    const result: SqlQueryResult = { columns: answer.columns, rows: answer.rows, truncated: answer.truncated };
    if (answer.truncatedBy) result.truncatedBy = answer.truncatedBy;
    return result;
  }

  private start(): Promise<ChildProcess> {
    if (this.child && this.child.exitCode === null && this.child.signalCode === null) return Promise.resolve(this.child);
    this.starting ??= new Promise<ChildProcess>((resolve, reject) => {
      // No inherited execArgv: a test runner's loaders have no business in the reader.
      // node:child_process is loaded here, on the first query: an MCP server that never runs SQL
      // starts ~4 ms sooner without it.
      const { fork } = createRequire(import.meta.url)("node:child_process") as typeof import("node:child_process");
      const child = fork(childScript(), [this.path], {
        serialization: "advanced",
        execArgv: [],
        stdio: ["ignore", "ignore", "pipe", "ipc"],
      });
      let stderr = "";
      child.stderr?.on("data", (chunk: Buffer) => {
        stderr = (stderr + chunk.toString("utf8")).slice(-2000);
      });
      const fail = (reason: string) => {
        clearTimeout(timer);
        child.kill("SIGKILL");
        reject(new StoreError("INTERNAL", `cannot start the SQL reader for ${this.path}: ${reason}`));
      };
      const timer = setTimeout(() => fail("it did not start in time"), START_TIMEOUT_MS);
      child.once("message", (message: { ready?: boolean; fatal?: string }) => {
        if (message.fatal) return fail(message.fatal);
        clearTimeout(timer);
        child.off("exit", onEarlyExit);
        // Neither the process nor its channel keeps the caller alive; a pending query's timer does.
        child.unref();
        (child.channel as { unref?: () => void } | undefined)?.unref?.();
        this.child = child;
        resolve(child);
      });
      const onEarlyExit = (code: number | null) => fail(`it exited (code ${code}) ${stderr.trim()}`);
      child.once("exit", onEarlyExit);
      child.once("error", (error) => fail(error.message));
    }).finally(() => {
      this.starting = undefined;
    });
    return this.starting;
  }
}

function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once("exit", () => resolve());
    // Held again until it is gone: an unreferenced child would let the caller's process end first.
    child.ref();
    child.kill("SIGKILL");
  });
}
