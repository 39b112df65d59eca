import pino, { type Logger } from "pino";
import pretty from "pino-pretty";

export type { Logger };

/**
 * JSON logs on stderr (stdout belongs to command output and to MCP's stdio protocol);
 * human-readable when stderr is a terminal. Level from `level`, else DOCDB_LOG_LEVEL, else info.
 */
export function createLogger(options: { level?: string; name?: string } = {}): Logger {
  const level = options.level ?? process.env.DOCDB_LOG_LEVEL ?? "info";
  const base = { name: options.name ?? "docdb", level };
  if (process.stderr.isTTY) {
    return pino(base, pretty({ destination: 2, sync: true, colorize: true, ignore: "pid,hostname" }));
  }
  return pino(base, pino.destination({ dest: 2, sync: true }));
}

/** A logger that writes nothing. */
export function silentLogger(): Logger {
  return pino({ level: "silent" });
}
