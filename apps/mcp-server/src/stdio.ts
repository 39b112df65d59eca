import type { Readable, Writable } from "node:stream";
import type { Logger } from "@docdb/core";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import type { AuditSink } from "./auth/audit.js";
import { JsonRpcGate } from "./jsonrpc-gate.js";
import { DEFAULT_MAX_LINE_BYTES, LineGuard } from "./line-guard.js";
import type { ToolRegistry } from "./registry.js";
import type { DocdbResources } from "./resources.js";
import { createServer } from "./server.js";

export interface StdioOptions {
  registry: ToolRegistry;
  logger: Logger;
  /** Documents and agent memory (knowledge://) as resources, the search prompt and argument completion. */
  resources?: DocdbResources;
  /** How long a client has to answer a sampling request (merge_knowledge), in ms. */
  samplingTimeoutMs?: number;
  stdin?: Readable;
  stdout?: Writable;
  /** Longest message accepted; longer lines are dropped. Default 8 MiB. */
  maxLineBytes?: number;
  /** Where successful writes are recorded (as the local user, from "stdio"). */
  audit?: AuditSink;
  /** The database of tool calls without db_name. */
  defaultDb?: string;
}

export interface StdioHandle {
  /** Resolves when the client goes away (stdin ends or stdout breaks). */
  readonly done: Promise<void>;
  close(): Promise<void>;
}

/**
 * Serves MCP over stdin/stdout. stdout carries protocol messages only: everything else
 * (logs, warnings) goes to the logger, which writes to stderr.
 */
export async function serveStdio(options: StdioOptions): Promise<StdioHandle> {
  const stdin = options.stdin ?? process.stdin;
  const stdout = options.stdout ?? process.stdout;
  const { logger } = options;
  const guard = new LineGuard(options.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES, (bytes) =>
    logger.warn({ bytes }, "dropped a stdin message larger than the limit"),
  );
  // Messages that are not valid JSON-RPC are answered by the gate (the SDK would skip them).
  const gate = new JsonRpcGate((response) => {
    logger.debug({ code: response.error.code, id: response.id }, "answered an invalid JSON-RPC message");
    if (stdout.writable) stdout.write(`${JSON.stringify(response)}\n`);
  });
  stdin.pipe(guard).pipe(gate);

  let finish: () => void = () => undefined;
  const done = new Promise<void>((resolve) => {
    finish = resolve;
  });
  stdin.once("end", () => finish());
  stdin.once("close", () => finish());
  // A client that exits closes our stdout; writing to it then must end the session, not crash.
  stdout.on("error", (error) => {
    logger.debug({ err: error.message }, "stdout closed");
    finish();
  });

  const transport = new StdioServerTransport(gate, stdout);
  // What still fails the SDK's reading (nothing the gate lets through should): reported here.
  transport.onerror = (error) =>
    logger.warn({ err: error.message.replace(/\s+/g, " ").slice(0, 300) }, "ignored an unreadable stdin message");
  const server = createServer(options.registry, {
    resources: options.resources,
    audit: options.audit,
    defaultDb: options.defaultDb,
    origin: "stdio",
    samplingTimeoutMs: options.samplingTimeoutMs,
  });
  await server.connect(transport);

  return {
    done,
    async close() {
      stdin.unpipe(guard);
      guard.unpipe(gate);
      await server.close().catch(() => undefined);
      finish();
    },
  };
}
