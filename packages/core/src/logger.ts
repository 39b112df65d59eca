import { createRequire } from "node:module";
import type { LogFn, Logger as PinoLogger } from "pino";
import { DocDBError, echo } from "./errors.js";
import { environmentSettings } from "./settings/environment.js";

/**
 * What docdb logs through: pino's level methods. Any pino logger is one (pass your own to
 * `openDocDB`); `createLogger` makes one that loads pino when it first writes a line.
 */
export interface Logger {
  trace: LogFn;
  debug: LogFn;
  info: LogFn;
  warn: LogFn;
  error: LogFn;
  fatal: LogFn;
  child(bindings: Record<string, unknown>): Logger;
}

/** pino's levels. */
const LEVELS = { trace: 10, debug: 20, info: 30, warn: 40, error: 50, fatal: 60, silent: Number.POSITIVE_INFINITY } as const;
type LevelName = keyof typeof LEVELS;
const METHODS = ["trace", "debug", "info", "warn", "error", "fatal"] as const;

function levelNamed(level: string): LevelName {
  if (Object.hasOwn(LEVELS, level)) return level as LevelName;
  throw new DocDBError(
    "INVALID_REQUEST",
    `unknown log level "${echo(level)}" (DOCDB_LOG_LEVEL): use one of ${Object.keys(LEVELS).join(", ")}`,
  );
}

/** Defined (true) by the programs' bundle build (scripts/tsup-bundle.ts), undefined elsewhere. */
declare const __DOCDB_IN_BUNDLE__: boolean | undefined;

/**
 * pino, loaded when the first line is written: pino, its stream and the built-ins they load
 * (node:worker_threads) cost a server ~8 ms of start-up, and most starts log nothing before the
 * first tools/list (issue 12). The programs' bundles compile core from these sources, and
 * esbuild turns this `require` into the bundled pino, initialised here; the library (an ES
 * module) and the tests require pino from this file's place instead.
 */
function loadPino(): typeof import("pino") {
  if (typeof __DOCDB_IN_BUNDLE__ !== "undefined") return require("pino") as typeof import("pino");
  return createRequire(import.meta.url)("pino") as typeof import("pino");
}

/** A logger whose pino is made by `make` on the first line at or above `level`. */
function deferred(level: LevelName, make: () => PinoLogger): Logger {
  let real: PinoLogger | undefined;
  const get = () => {
    real ??= make();
    return real;
  };
  const logger = { child: (bindings: Record<string, unknown>): Logger => deferred(level, () => get().child(bindings)) } as Logger;
  for (const method of METHODS) {
    const enabled = LEVELS[method] >= LEVELS[level];
    logger[method] = ((...args: Parameters<LogFn>) => {
      if (enabled) get()[method](...args);
    }) as LogFn;
  }
  return logger;
}

/**
 * JSON logs on stderr (stdout belongs to command output and to MCP's stdio protocol);
 * human-readable when stderr is a terminal. Level from `level`, else DOCDB_LOG_LEVEL, else info.
 * An unknown level is an INVALID_REQUEST error here, not at the first line.
 */
export function createLogger(options: { level?: string; name?: string; format?: "json" | "human" } = {}): Logger {
  const level = levelNamed(options.level ?? environmentSettings().logLevel ?? "info");
  return deferred(level, () => {
    const pino = loadPino();
    const base = { name: options.name ?? "docdb", level };
    if (options.format === "human" && !process.stderr.isTTY) return pino(base, { write: (line: string) => writeHuman(line) });
    if (process.stderr.isTTY) {
      // Loaded only for a terminal: pino-pretty costs start-up time that servers and scripts never need.
      const pretty = createRequire(import.meta.url)("pino-pretty") as typeof import("pino-pretty");
      return pino(base, pretty({ destination: 2, sync: true, colorize: true, ignore: "pid,hostname" }));
    }
    return pino(base, pino.destination({ dest: 2, sync: true }));
  });
}

/** A logger that writes nothing (and never loads pino). */
export function silentLogger(): Logger {
  return deferred("silent", () => {
    throw new Error("a silent logger never writes");
  });
}

/** Level numbers as a person reads them ("warning" for warn). */
const LEVEL_NAMES: Record<number, string> = Object.fromEntries(
  METHODS.map((method) => [LEVELS[method], method === "warn" ? "warning" : method]),
);
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
