import type { Readable, Writable } from "node:stream";
import type { Logger } from "@docdb/core";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { DEFAULT_MAX_LINE_BYTES, LineGuard } from "./line-guard.js";
import type { ToolRegistry } from "./registry.js";
import type { DocdbResources } from "./resources.js";
import { createServer } from "./server.js";

export interface StdioOptions {
  registry: ToolRegistry;
  logger: Logger;
  /** Documents and agent memory (knowledge://) as resources, the search prompt and argument completion. */
  resources?: DocdbResources;
  stdin?: Readable;
  stdout?: Writable;
  /** Longest message accepted; longer lines are dropped. Default 8 MiB. */
  maxLineBytes?: number;
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
  stdin.pipe(guard);

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

  const transport = new StdioServerTransport(guard, stdout);
  // Invalid JSON lines and messages that are not JSON-RPC: the SDK skips them and reports here.
  transport.onerror = (error) =>
    logger.warn({ err: error.message.replace(/\s+/g, " ").slice(0, 300) }, "ignored an unreadable stdin message");
  const server = createServer(options.registry, { resources: options.resources });
  await server.connect(transport);

  return {
    done,
    async close() {
      stdin.unpipe(guard);
      await server.close().catch(() => undefined);
      finish();
    },
  };
}
