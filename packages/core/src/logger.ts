import { createRequire } from "node:module";
import pino, { type Logger } from "pino";

export type { Logger };

/**
 * JSON logs on stderr (stdout belongs to command output and to MCP's stdio protocol);
 * human-readable when stderr is a terminal. Level from `level`, else DOCDB_LOG_LEVEL, else info.
 */
export function createLogger(options: { level?: string; name?: string } = {}): Logger {
  const level = options.level ?? process.env.DOCDB_LOG_LEVEL ?? "info";
  const base = { name: options.name ?? "docdb", level };
  if (process.stderr.isTTY) {
    // Loaded only for a terminal: pino-pretty costs start-up time that servers and scripts never need.
    const pretty = createRequire(import.meta.url)("pino-pretty") as typeof import("pino-pretty");
    return pino(base, pretty({ destination: 2, sync: true, colorize: true, ignore: "pid,hostname" }));
  }
  return pino(base, pino.destination({ dest: 2, sync: true }));
}

/** A logger that writes nothing. */
export function silentLogger(): Logger {
  return pino({ level: "silent" });
}
