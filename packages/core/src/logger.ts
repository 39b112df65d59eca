import { createRequire } from "node:module";
import pino, { type Logger } from "pino";

export type { Logger };

/**
 * JSON logs on stderr (stdout belongs to command output and to MCP's stdio protocol);
 * human-readable when stderr is a terminal. Level from `level`, else DOCDB_LOG_LEVEL, else info.
 */
export function createLogger(options: { level?: string; name?: string; format?: "json" | "human" } = {}): Logger {
  const level = options.level ?? process.env.DOCDB_LOG_LEVEL ?? "info";
  const base = { name: options.name ?? "docdb", level };
  if (options.format === "human" && !process.stderr.isTTY) return pino(base, { write: (line: string) => writeHuman(line) });
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

const LEVEL_NAMES: Record<number, string> = { 10: "trace", 20: "debug", 30: "info", 40: "warning", 50: "error", 60: "fatal" };
const HIDDEN_FIELDS = new Set(["level", "time", "pid", "hostname", "name", "msg", "v"]);

function show(value: unknown): string {
  if (typeof value === "string") return value;
  if (typeof value === "object" && value !== null && typeof (value as { message?: unknown }).message === "string") {
    return (value as { message: string }).message;
  }
  return JSON.stringify(value);
}

/** One JSON log line as a line a person reads: "warning: message (key value, …)". */
export function humanLogLine(json: string): string {
  let entry: Record<string, unknown>;
  try {
    entry = JSON.parse(json) as Record<string, unknown>;
  } catch {
    return json.endsWith("\n") ? json : `${json}\n`;
  }
  const level = LEVEL_NAMES[entry.level as number] ?? String(entry.level);
  const fields = Object.entries(entry)
    .filter(([key]) => !HIDDEN_FIELDS.has(key))
    .map(([key, value]) => `${key.replace(/_/g, " ")} ${show(value)}`);
  return `${level}: ${String(entry.msg ?? "")}${fields.length > 0 ? ` (${fields.join(", ")})` : ""}\n`;
}

function writeHuman(line: string): void {
  process.stderr.write(humanLogLine(line));
}
