// docdb.config.json: the file's schema, where the project and user files are, and reading one
// (relative paths in a file become absolute against its folder).
import { existsSync, readFileSync, statSync } from "node:fs";
import { dirname, isAbsolute, join, resolve } from "node:path";
import { z } from "zod";
import { DocDBError } from "../errors.js";
import { DB_NAME_PATTERN, MAX_TOP_K } from "../validate.js";
import { PROVIDER_NAMES, type ProviderName } from "./embedding.js";
import { type Env, nonEmpty } from "./values.js";

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

export const URL_PATTERN = /^[a-z][a-z0-9+.-]*:\/\//i;

/** The user-level file: `$XDG_CONFIG_HOME/docdb/config.json`, else `<home>/.config/docdb/config.json`. */
export function userConfigPath(home: string, env: Env = {}): string {
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

export function readConfigFile(file: string): ConfigInput {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    throw invalid(file, [`cannot read it (${(error as Error).message})`]);
  }
  return parseConfigFile(file, text);
}
