import {
  createLogger,
  type Database,
  type DocDB,
  DocDBError,
  type EmbeddingConfig,
  echo,
  explicitEmbeddingConfig,
  type LoadedConfig,
  loadConfig,
  openDocDB,
  parseProviderName,
  settingsFromEnv,
  toDocDBError,
} from "@docdb/core";
import { CONFIG_FLAGS } from "@docdb/mcp-server/flags";
import type { Command } from "commander";
import { recordCliWrite } from "./cli-audit.js";
import { jsonRequested, USAGE_EXIT_CODE } from "./usage.js";

export interface GlobalOptions {
  dataDir?: string;
  store?: string;
  verbose?: boolean;
  embedding?: string;
  embeddingModel?: string;
  modelDir?: string;
}

/** Embedding settings given as flags; they override the environment key by key. */
export function embeddingFromFlags(command: Command): EmbeddingConfig {
  const globals = command.optsWithGlobals<GlobalOptions>();
  return {
    provider: globals.embedding !== undefined ? parseProviderName(globals.embedding, "--embedding") : undefined,
    model: globals.embeddingModel,
    modelDir: globals.modelDir,
  };
}

/**
 * The effective settings: flags > docdb.config.json (project, then user) > environment > defaults.
 * A command's --db and --top-k left at their defaults take the configured values.
 */
export function configFromCommand(command: Command): LoadedConfig {
  const config = loadConfig({
    env: process.env,
    flagNames: CONFIG_FLAGS,
    flags: {
      dataDir: command.optsWithGlobals<GlobalOptions>().dataDir,
      store: command.optsWithGlobals<GlobalOptions>().store,
      embedding: embeddingFromFlags(command),
    },
  });
  for (const [option, key] of [
    ["db", "db"],
    ["topK", "topK"],
  ] as const) {
    if (command.getOptionValueSource(option) === "default" && config.settings[key].source !== "default") {
      command.setOptionValueWithSource(option, String(config.values[key]), "config");
    }
  }
  return config;
}

/** Opens docdb from the global flags and the configuration (see configFromCommand). */
export function openFromCommand(command: Command): DocDB {
  const globals = command.optsWithGlobals<GlobalOptions>();
  const level = globals.verbose ? "debug" : (process.env.DOCDB_LOG_LEVEL ?? "warn");
  const config = configFromCommand(command);
  return openDocDB({
    settings: settingsFromEnv(process.env),
    store: config.values.store,
    dataDir: config.values.dataDir,
    // Plain lines on a pipe or file too: a person reads the CLI's warnings (servers keep JSON logs).
    logger: createLogger({ level, format: "human" }),
    embedding: explicitEmbeddingConfig(config),
    chunkOptions: { size: config.values.chunkSize, overlap: config.values.chunkOverlap },
  });
}

/**
 * The database a writing command (insert, collection add, qa add/knowledge) writes to. A
 * missing one is created only when it is the default database (the one used without --db) or
 * `--create` was given; otherwise NOT_FOUND naming the command that creates it: a typo in
 * --db never makes a new, empty database.
 */
export async function writableDatabase(docdb: DocDB, command: Command, options: { db: string; create?: boolean }): Promise<Database> {
  const create = options.create === true || options.db === configFromCommand(command).values.db;
  try {
    return await docdb.database(options.db, { create });
  } catch (error) {
    if (DocDBError.isInstance(error) && error.code === "NOT_FOUND" && error.details?.database === options.db) {
      throw new DocDBError(
        "NOT_FOUND",
        `database "${options.db}" does not exist in ${String(error.details.location)}: create it with \`docdb db create ${options.db}\`, or run again with --create`,
        { cause: error, details: error.details },
      );
    }
    throw error;
  }
}

/** The --create flag of the writing commands. */
export const CREATE_FLAG = ["--create", "create the database when it does not exist (the default database always is)"] as const;

/**
 * Reports an error the one way and sets the exit code (2 for INVALID_REQUEST, 1 otherwise):
 * `CODE: message` on stderr with nothing on stdout, or with --json the object
 * `{"error":{"code","message"}}` on stdout (and nothing on stderr).
 */
export function reportError(error: unknown, json: boolean = jsonRequested()): void {
  const e = toDocDBError(error);
  if (json) {
    printJson({ error: { code: e.code, message: e.message, ...(e.details !== undefined ? { details: e.details } : {}) } });
  } else {
    process.stderr.write(`${e.code}: ${e.message}\n`);
  }
  if (e.code === "INTERNAL" && process.env.DOCDB_DEBUG && error instanceof Error && error.stack) process.stderr.write(`${error.stack}\n`);
  process.exitCode = e.code === "INVALID_REQUEST" ? USAGE_EXIT_CODE : 1;
}

/** Wraps a command action: opens docdb, runs, closes, and reports any error the one way. */
export function action<A extends unknown[]>(fn: (docdb: DocDB, ...args: A) => Promise<void> | void) {
  return async (...args: A) => {
    const command = args[args.length - 1] as Command;
    let docdb: DocDB | undefined;
    try {
      docdb = openFromCommand(command);
      await fn(docdb, ...args);
      await recordCliWrite(docdb, command, args);
    } catch (error) {
      reportError(error, command.opts<{ json?: boolean }>().json === true || jsonRequested());
    } finally {
      await docdb?.close().catch(() => undefined);
    }
  };
}

/**
 * A value with every object key in snake_case (`savedAt` → `saved_at`), for the JSON of
 * objects whose keys are docdb's own names. Not for values holding the user's keys (metadata).
 */
export function snakeKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(snakeKeys);
  if (typeof value !== "object" || value === null) return value;
  return Object.fromEntries(Object.entries(value).map(([key, v]) => [key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`), snakeKeys(v)]));
}

export function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

export function warn(messages: string[]): void {
  for (const m of messages) process.stderr.write(`warning: ${m}\n`);
}

export function parseJsonOption(value: string | undefined, flag: string): Record<string, unknown> | undefined {
  if (value === undefined) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch (error) {
    throw new DocDBError("INVALID_REQUEST", `${flag} is not valid JSON (${(error as Error).message}): pass an object like '{"lang":"ja"}'`);
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
    throw new DocDBError("INVALID_REQUEST", `${flag} must be a JSON object like '{"lang":"ja"}'`);
  }
  return parsed as Record<string, unknown>;
}

export function parseInteger(value: string, flag: string): number {
  const n = Number(value);
  if (!Number.isInteger(n)) throw new DocDBError("INVALID_REQUEST", `${flag} must be an integer, got "${echo(value)}"`);
  return n;
}

export function parseNumber(value: string, flag: string): number {
  const n = Number(value);
  if (value.trim() === "" || !Number.isFinite(n)) throw new DocDBError("INVALID_REQUEST", `${flag} must be a number, got "${echo(value)}"`);
  return n;
}
