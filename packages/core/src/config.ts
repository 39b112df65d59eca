import { existsSync, readFileSync, statSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, isAbsolute, join, resolve } from "node:path";
import { z } from "zod";
import { DocDBError } from "./errors.js";
import { type EmbeddingConfig, PROVIDER_NAMES, type ProviderName, parseProviderName } from "./provider.js";
import { DB_NAME_PATTERN, DEFAULT_DB_NAME, MAX_TOP_K } from "./validate.js";

/**
 * docdb's configuration: `docdb.config.json` found from the current folder upwards (the
 * project file), `$XDG_CONFIG_HOME/docdb/config.json` or `~/.config/docdb/config.json` (the
 * user file), the environment and defaults. Precedence, key by key: flags > project file >
 * user file > environment > defaults. Relative paths in a file are relative to its folder.
 * Everything here is a function of its arguments (plus the files it reads): no process globals
 * are read when cwd, home and env are given.
 */

export const CONFIG_FILE_NAME = "docdb.config.json";

const positiveInt = (what: string, min = 1, max = Number.MAX_SAFE_INTEGER) =>
  z
    .number({ invalid_type_error: `must be a whole number (${what}), not a string or other type` })
    .int(`must be a whole number (${what})`)
    .min(min, `must be at least ${min} (${what})`)
    .max(max, `must be at most ${max} (${what})`);

const nonBlank = (what: string) =>
  z
    .string({ invalid_type_error: `must be a string (${what})` })
    .trim()
    .min(1, `must not be empty (${what})`);

const fileSchema = z
  .object({
    $schema: z.string().optional(),
    dataDir: nonBlank("a folder").optional(),
    store: nonBlank("a folder or a postgres:// URL").optional(),
    db: z
      .string({ invalid_type_error: "must be a string (a database name)" })
      .regex(DB_NAME_PATTERN, 'must be 1-64 letters, digits, "_" or "-" (a database name)')
      .optional(),
    embedding: z
      .object({
        provider: z.enum(PROVIDER_NAMES as [ProviderName, ...ProviderName[]], {
          errorMap: () => ({ message: `must be one of ${PROVIDER_NAMES.join(", ")}` }),
        }),
        model: nonBlank("a model id"),
        modelDir: nonBlank("a folder"),
      })
      .partial()
      .strict()
      .optional(),
    chunkSize: positiveInt("characters per chunk", 10).optional(),
    chunkOverlap: positiveInt("characters shared by neighbouring chunks", 0).optional(),
    topK: positiveInt("results per search", 1, MAX_TOP_K).optional(),
    http: z
      .object({
        host: nonBlank("a host name or address"),
        port: positiveInt("a port", 0, 65535),
        token: nonBlank("a bearer token"),
      })
      .partial()
      .strict()
      .optional(),
  })
  .strict();

/** What a config file (or the flags) may set; every key optional. */
export type ConfigInput = Omit<z.infer<typeof fileSchema>, "$schema">;

/** The effective settings. Paths are absolute; `store` is carried through as given (a resolved folder or a URL). */
export interface DocdbConfig {
  dataDir: string;
  store: string | undefined;
  db: string;
  embedding: { provider: ProviderName | undefined; model: string | undefined; modelDir: string | undefined };
  chunkSize: number;
  chunkOverlap: number;
  topK: number;
  http: { host: string; port: number; token: string | undefined };
}

export const CONFIG_KEYS = [
  "dataDir",
  "store",
  "db",
  "embedding.provider",
  "embedding.model",
  "embedding.modelDir",
  "chunkSize",
  "chunkOverlap",
  "topK",
  "http.host",
  "http.port",
  "http.token",
] as const;
export type ConfigKey = (typeof CONFIG_KEYS)[number];

export type ConfigSource = "flag" | "file" | "env" | "default";

/** One effective setting and where it came from: the flag, the file's path, the variable. */
export interface ConfigSetting {
  value: string | number | undefined;
  source: ConfigSource;
  /** `--data-dir`, `/path/docdb.config.json`, `DOCDB_DATA_DIR`; a note for some defaults. */
  from?: string;
}

export interface LoadedConfig {
  values: DocdbConfig;
  settings: Record<ConfigKey, ConfigSetting>;
  /** The files that were found and read. */
  files: { project: string | undefined; user: string | undefined };
}

export interface LoadConfigOptions {
  /** Where the project file search starts; relative flags resolve here. Default process.cwd(). */
  cwd?: string;
  /** Home folder for the user file. Default env DOCDB_HOME, else os.homedir(). */
  home?: string;
  /** Default process.env. */
  env?: Record<string, string | undefined>;
  /** Values given as flags (already parsed); they win over everything. */
  flags?: ConfigInput;
}

/** The CLI flag that sets each key (for messages and `docdb config`). */
export const CONFIG_FLAGS: Record<ConfigKey, string> = {
  dataDir: "--data-dir",
  store: "--store",
  db: "--db",
  "embedding.provider": "--embedding",
  "embedding.model": "--embedding-model",
  "embedding.modelDir": "--model-dir",
  chunkSize: "--chunk-size",
  chunkOverlap: "--chunk-overlap",
  topK: "--top-k",
  "http.host": "--host",
  "http.port": "--port",
  "http.token": "--token",
};

/** The environment variable read for each key, where there is one. */
export const CONFIG_ENV: Partial<Record<ConfigKey, string>> = {
  dataDir: "DOCDB_DATA_DIR",
  store: "DOCDB_STORE_URL",
  "embedding.provider": "DOCDB_EMBEDDING",
  "embedding.model": "DOCDB_EMBEDDING_MODEL",
  "embedding.modelDir": "DOCDB_MODEL_DIR",
  "http.host": "DOCDB_HTTP_HOST",
  "http.port": "DOCDB_HTTP_PORT",
  "http.token": "DOCDB_HTTP_TOKEN",
};

const PATH_KEYS: ReadonlySet<ConfigKey> = new Set(["dataDir", "embedding.modelDir"]);
const URL_PATTERN = /^[a-z][a-z0-9+.-]*:\/\//i;

function nonEmpty(value: string | undefined): string | undefined {
  return value !== undefined && value.trim() !== "" ? value : undefined;
}

/** The user-level file: `$XDG_CONFIG_HOME/docdb/config.json`, else `<home>/.config/docdb/config.json`. */
export function userConfigPath(home: string, env: Record<string, string | undefined> = {}): string {
  const xdg = nonEmpty(env.XDG_CONFIG_HOME);
  return xdg && isAbsolute(xdg) ? join(xdg, "docdb", "config.json") : join(home, ".config", "docdb", "config.json");
}

/** The nearest `docdb.config.json` in `cwd` or a folder above it. */
export function findProjectConfig(cwd: string): string | undefined {
  let dir = resolve(cwd);
  for (;;) {
    const candidate = join(dir, CONFIG_FILE_NAME);
    if (existsSync(candidate) && statSync(candidate).isFile()) return candidate;
    const parent = dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
}

function invalid(file: string, problems: string[]): DocDBError {
  return new DocDBError("INVALID_REQUEST", `invalid config file ${file}: ${problems.join("; ")}`);
}

/**
 * Validates a config file's text. Relative paths become absolute against the file's folder.
 * Errors are INVALID_REQUEST naming the file, each key and its problem.
 */
export function parseConfigFile(file: string, text: string): ConfigInput {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    throw invalid(file, [`not valid JSON (${(error as Error).message})`]);
  }
  if (typeof raw !== "object" || raw === null || Array.isArray(raw))
    throw invalid(file, ['must be a JSON object like {"dataDir": "data"}']);
  const parsed = fileSchema.safeParse(raw);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => {
      if (issue.code === "unrecognized_keys") {
        return issue.keys.map((k) => `key "${[...issue.path, k].join(".")}": unknown key (known: ${knownKeys(issue.path)})`).join("; ");
      }
      const key = issue.path.join(".") || "(top level)";
      return `key "${key}": ${issue.message}`;
    });
    throw invalid(file, problems);
  }
  const { $schema: _schema, ...input } = parsed.data;
  const base = dirname(file);
  if (input.dataDir !== undefined) input.dataDir = resolve(base, input.dataDir);
  if (input.store !== undefined && !URL_PATTERN.test(input.store)) input.store = resolve(base, input.store);
  if (input.embedding?.modelDir !== undefined) input.embedding = { ...input.embedding, modelDir: resolve(base, input.embedding.modelDir) };
  if (input.chunkSize !== undefined && input.chunkOverlap !== undefined && input.chunkOverlap >= input.chunkSize / 2) {
    throw invalid(file, [`key "chunkOverlap": must be less than half of chunkSize (${input.chunkSize})`]);
  }
  return input;
}

function knownKeys(path: (string | number)[]): string {
  const top = ["dataDir", "store", "db", "embedding", "chunkSize", "chunkOverlap", "topK", "http"];
  if (path[0] === "embedding") return "provider, model, modelDir";
  if (path[0] === "http") return "host, port, token";
  return top.join(", ");
}

function readConfigFile(file: string): ConfigInput {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    throw invalid(file, [`cannot read it (${(error as Error).message})`]);
  }
  return parseConfigFile(file, text);
}

function get(input: ConfigInput | undefined, key: ConfigKey): string | number | undefined {
  if (!input) return undefined;
  const [head, tail] = key.split(".") as [string, string | undefined];
  const value = (input as Record<string, unknown>)[head];
  if (tail === undefined) return value as string | number | undefined;
  return (value as Record<string, unknown> | undefined)?.[tail] as string | number | undefined;
}

function fromEnv(key: ConfigKey, env: Record<string, string | undefined>, cwd: string): string | number | undefined {
  const name = CONFIG_ENV[key];
  const raw = name ? nonEmpty(env[name]) : undefined;
  if (raw === undefined || name === undefined) return undefined;
  if (key === "embedding.provider") return parseProviderName(raw, name);
  if (key === "http.port") {
    const port = Number(raw);
    if (!Number.isInteger(port) || port < 0 || port > 65535) {
      throw new DocDBError("INVALID_REQUEST", `${name}="${raw}" must be a port number from 0 to 65535`);
    }
    return port;
  }
  if (PATH_KEYS.has(key)) return resolve(cwd, raw);
  return raw.trim();
}

function defaultFor(key: ConfigKey, cwd: string, env: Record<string, string | undefined>): ConfigSetting {
  switch (key) {
    case "dataDir":
      return { value: resolve(cwd, "data"), source: "default" };
    case "db":
      return { value: DEFAULT_DB_NAME, source: "default" };
    case "embedding.provider":
      return {
        value: nonEmpty(env.OPENAI_API_KEY) ? "openai" : "local",
        source: "default",
        from: "openai with OPENAI_API_KEY, else local",
      };
    case "chunkSize":
      return { value: 700, source: "default" };
    case "chunkOverlap":
      return { value: 100, source: "default" };
    case "topK":
      return { value: 10, source: "default" };
    case "http.host":
      return { value: "127.0.0.1", source: "default" };
    case "http.port":
      return { value: 7411, source: "default" };
    default:
      return { value: undefined, source: "default" };
  }
}

/** Loads and merges flags, the project file, the user file, the environment and defaults. */
export function loadConfig(options: LoadConfigOptions = {}): LoadedConfig {
  const env = options.env ?? process.env;
  const cwd = resolve(options.cwd ?? process.cwd());
  const home = options.home ?? nonEmpty(env.DOCDB_HOME) ?? homedir();
  const projectFile = findProjectConfig(cwd);
  const userFile = userConfigPath(home, env);
  const project = projectFile ? readConfigFile(projectFile) : undefined;
  const userExists = existsSync(userFile) && userFile !== projectFile;
  const user = userExists ? readConfigFile(userFile) : undefined;
  const flags = options.flags;

  const settings = {} as Record<ConfigKey, ConfigSetting>;
  for (const key of CONFIG_KEYS) {
    let flag = get(flags, key);
    if (typeof flag === "string" && flag.trim() === "") {
      // An empty --data-dir would otherwise mean the current folder.
      throw new DocDBError(
        "INVALID_REQUEST",
        `${CONFIG_FLAGS[key]} is empty: give a value${key === "dataDir" ? " (a folder, e.g. --data-dir ./data)" : ""}, or leave the flag out`,
      );
    }
    if (typeof flag === "string" && (PATH_KEYS.has(key) || (key === "store" && !URL_PATTERN.test(flag)))) flag = resolve(cwd, flag);
    const envValue = fromEnv(key, env, cwd);
    const candidates: [string | number | undefined, ConfigSetting][] = [
      [flag, { value: flag, source: "flag", from: CONFIG_FLAGS[key] }],
      [get(project, key), { value: get(project, key), source: "file", from: projectFile }],
      [get(user, key), { value: get(user, key), source: "file", from: userFile }],
      [envValue, { value: envValue, source: "env", from: CONFIG_ENV[key] }],
    ];
    const chosen = candidates.find(([value]) => value !== undefined);
    settings[key] = chosen ? chosen[1] : defaultFor(key, cwd, env);
  }

  const str = (key: ConfigKey) => settings[key].value as string | undefined;
  const num = (key: ConfigKey) => settings[key].value as number;
  const provider = settings["embedding.provider"];
  const values: DocdbConfig = {
    dataDir: str("dataDir") as string,
    store: str("store"),
    db: str("db") as string,
    embedding: {
      provider: provider.source === "default" ? undefined : (provider.value as ProviderName),
      model: str("embedding.model"),
      modelDir: str("embedding.modelDir"),
    },
    chunkSize: num("chunkSize"),
    chunkOverlap: num("chunkOverlap"),
    topK: num("topK"),
    http: { host: str("http.host") as string, port: num("http.port"), token: str("http.token") },
  };
  return { values, settings, files: { project: projectFile, user: userExists ? userFile : undefined } };
}

/**
 * The embedding settings given by flags or files, for `openDocDB({ embedding })`: the
 * environment is left to `resolveEmbeddingConfig`, which puts these over it key by key.
 */
export function explicitEmbeddingConfig(loaded: LoadedConfig): EmbeddingConfig {
  const pick = (key: ConfigKey) => {
    const setting = loaded.settings[key];
    return setting.source === "flag" || setting.source === "file" ? (setting.value as string) : undefined;
  };
  return {
    provider: pick("embedding.provider") as ProviderName | undefined,
    model: pick("embedding.model"),
    modelDir: pick("embedding.modelDir"),
  };
}

/** A connection URL with its password replaced by `***`, safe to print or log. */
export function redactUrl(value: string): string {
  try {
    const url = new URL(value);
    if (url.password === "") return value;
    url.password = "***";
    return url.toString();
  } catch {
    return value.replace(/(\/\/[^:/@]*:)[^@]*@/, "$1***@");
  }
}
