// The effective configuration, key by key: flags > project file > user file > environment >
// defaults, with where each value came from (for `docdb config`). Everything here is a function
// of its arguments (plus the files it reads): no process globals are read when cwd, home and env
// are given.
import { existsSync } from "node:fs";
import { homedir } from "node:os";
import { resolve } from "node:path";
import { DocDBError, echo } from "../errors.js";
import { DEFAULT_DB_NAME } from "../validate.js";
import { type ConfigInput, findProjectConfig, readConfigFile, URL_PATTERN, userConfigPath } from "./config-file.js";
import { type EmbeddingConfig, type ProviderName, parseProviderName } from "./embedding.js";
import { type Env, nonEmpty } from "./values.js";

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
  env?: Env;
  /** Values given as flags (already parsed); they win over everything. */
  flags?: ConfigInput;
  /**
   * The flag that sets each key in the program reading the flags (for messages and `docdb
   * config`); a key without one is named by its key.
   */
  flagNames?: Partial<Record<ConfigKey, string>>;
}

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
function get(input: ConfigInput | undefined, key: ConfigKey): string | number | undefined {
  if (!input) return undefined;
  const [head, tail] = key.split(".") as [string, string | undefined];
  const value = (input as Record<string, unknown>)[head];
  if (tail === undefined) return value as string | number | undefined;
  return (value as Record<string, unknown> | undefined)?.[tail] as string | number | undefined;
}

function fromEnv(key: ConfigKey, env: Env, cwd: string): string | number | undefined {
  const name = CONFIG_ENV[key];
  const raw = name ? nonEmpty(env[name]) : undefined;
  if (raw === undefined || name === undefined) return undefined;
  if (key === "embedding.provider") return parseProviderName(raw, name);
  if (key === "http.port") {
    const port = Number(raw);
    if (!Number.isInteger(port) || port < 0 || port > 65535) {
      throw new DocDBError("INVALID_REQUEST", `${name}="${echo(raw)}" must be a port number from 0 to 65535`);
    }
    return port;
  }
  if (PATH_KEYS.has(key)) return resolve(cwd, raw);
  return raw.trim();
}

function defaultFor(key: ConfigKey, cwd: string, env: Env): ConfigSetting {
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
  const flagName = (key: ConfigKey) => options.flagNames?.[key] ?? key;

  const settings = {} as Record<ConfigKey, ConfigSetting>;
  for (const key of CONFIG_KEYS) {
    let flag = get(flags, key);
    if (typeof flag === "string" && flag.trim() === "") {
      // An empty --data-dir would otherwise mean the current folder.
      throw new DocDBError(
        "INVALID_REQUEST",
        `${flagName(key)} is empty: give a value${key === "dataDir" ? ` (a folder, e.g. ${flagName(key)} ./data)` : ""}, or leave the flag out`,
      );
    }
    if (typeof flag === "string" && (PATH_KEYS.has(key) || (key === "store" && !URL_PATTERN.test(flag)))) flag = resolve(cwd, flag);
    const envValue = fromEnv(key, env, cwd);
    const candidates: [string | number | undefined, ConfigSetting][] = [
      [flag, { value: flag, source: "flag", from: flagName(key) }],
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
