// Settings: everything docdb takes from the environment, as one typed object. Each value is read
// and checked when first asked for (so an invalid variable fails where it is used), then kept.
import { defaultModelCacheDir, huggingFaceHubCacheDir } from "@docdb/embed";
import { DocDBError } from "../errors.js";
import { validateThreshold } from "../memory/names.js";
import type { MemoryOptions } from "../memory/types.js";
import { type EmbeddingConfig, embeddingConfigFromEnv } from "./embedding.js";
import { type RerankerConfig, rerankerConfigFromEnv } from "./reranker.js";
import type { Env } from "./values.js";

/** Default deadline of one insert's or query's provider calls. */
export const DEFAULT_EMBED_DEADLINE_MS = 15_000;

export interface Settings {
  /** DOCDB_DATA_DIR, as given: the folder of SQLite files. */
  readonly dataDir: string | undefined;
  /** DOCDB_STORE_URL: a `postgres://` URL or a folder. */
  readonly store: string | undefined;
  /** The embedding variables (see embeddingConfigFromEnv). */
  readonly embedding: EmbeddingConfig;
  /** The reranker variables (see rerankerConfigFromEnv). */
  readonly reranker: RerankerConfig;
  /** DOCDB_MEMORY_TOPIC_THRESHOLD, …_TOPIC_KEYWORD_THRESHOLD, …_MERGE_THRESHOLD, …_MERGE_KEYWORD_THRESHOLD. */
  readonly memory: MemoryOptions;
  /** DOCDB_EMBED_DEADLINE_MS, else 15,000. */
  readonly embedDeadlineMs: number;
  /** DOCDB_ANALYSIS_WORKERS (0–64), when set. */
  readonly analysisWorkers: number | undefined;
  /** DOCDB_POSTGRES_SQL_ROLE: the role read-only SQL runs as on PostgreSQL. */
  readonly postgresSqlRole: string | undefined;
  /** DOCDB_LOG_LEVEL, when set. */
  readonly logLevel: string | undefined;
  /** DOCDB_HEAL_MIN_MS and DOCDB_HEAL_MAX_MS: the background embedder's backoff, when set. */
  readonly heal: { minDelayMs?: number; maxDelayMs?: number; leaseMs?: number };
  /** DOCDB_MODEL_CACHE, else `$XDG_CACHE_HOME/docdb/models`, else `~/.cache/docdb/models`. */
  readonly modelCacheDir: string;
  /** HF_HUB_CACHE, else `$HF_HOME/hub`, else `~/.cache/huggingface/hub` (read only). */
  readonly hubCacheDir: string;
}

const MEMORY_ENV: Record<keyof MemoryOptions, string> = {
  topic_threshold: "DOCDB_MEMORY_TOPIC_THRESHOLD",
  topic_keyword_threshold: "DOCDB_MEMORY_TOPIC_KEYWORD_THRESHOLD",
  merge_threshold: "DOCDB_MEMORY_MERGE_THRESHOLD",
  merge_keyword_threshold: "DOCDB_MEMORY_MERGE_KEYWORD_THRESHOLD",
};

function memoryFromEnv(env: Env): MemoryOptions {
  const options: MemoryOptions = {};
  for (const key of Object.keys(MEMORY_ENV) as (keyof MemoryOptions)[]) {
    const raw = env[MEMORY_ENV[key]];
    if (raw !== undefined && raw.trim() !== "") options[key] = validateThreshold(Number(raw), `${MEMORY_ENV[key]}="${raw}"`);
  }
  return options;
}

function deadlineFromEnv(env: Env): number {
  const raw = env.DOCDB_EMBED_DEADLINE_MS;
  if (raw === undefined || raw.trim() === "") return DEFAULT_EMBED_DEADLINE_MS;
  const ms = Number(raw);
  if (!Number.isInteger(ms) || ms < 1) {
    throw new DocDBError("INVALID_REQUEST", `DOCDB_EMBED_DEADLINE_MS="${raw}" must be a positive whole number of milliseconds`);
  }
  return ms;
}

function workersFromEnv(env: Env): number | undefined {
  const raw = env.DOCDB_ANALYSIS_WORKERS;
  if (raw === undefined || raw.trim() === "") return undefined;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 0 || n > 64) {
    throw new DocDBError("INVALID_REQUEST", `DOCDB_ANALYSIS_WORKERS="${raw}" must be a whole number from 0 to 64`);
  }
  return n;
}

/** A non-negative number of ms; anything else counts as unset. */
function envMs(env: Env, name: string): number | undefined {
  const value = Number(env[name]);
  return env[name] && Number.isFinite(value) && value >= 0 ? value : undefined;
}

/** An object whose properties are computed on first read and kept (a failed read is tried again). */
function lazily<T extends object>(readers: { [K in keyof T]: () => T[K] }): T {
  const target = {} as T;
  for (const key of Object.keys(readers) as (keyof T)[]) {
    let done = false;
    let value: T[keyof T];
    Object.defineProperty(target, key, {
      enumerable: true,
      get() {
        if (!done) {
          value = readers[key]();
          done = true;
        }
        return value;
      },
    });
  }
  return target;
}

/** The settings an environment holds (process.env, or a record standing in for it). */
export function settingsFromEnv(env: Env): Settings {
  return lazily<Settings>({
    dataDir: () => env.DOCDB_DATA_DIR,
    store: () => env.DOCDB_STORE_URL || undefined,
    embedding: () => embeddingConfigFromEnv(env),
    reranker: () => rerankerConfigFromEnv(env),
    memory: () => memoryFromEnv(env),
    embedDeadlineMs: () => deadlineFromEnv(env),
    analysisWorkers: () => workersFromEnv(env),
    postgresSqlRole: () => env.DOCDB_POSTGRES_SQL_ROLE?.trim() || undefined,
    logLevel: () => env.DOCDB_LOG_LEVEL,
    heal: () => ({
      minDelayMs: envMs(env, "DOCDB_HEAL_MIN_MS"),
      maxDelayMs: envMs(env, "DOCDB_HEAL_MAX_MS"),
      leaseMs: envMs(env, "DOCDB_EMBED_LEASE_MS"),
    }),
    modelCacheDir: () => defaultModelCacheDir(env),
    hubCacheDir: () => huggingFaceHubCacheDir(env),
  });
}

/** The settings of this process's environment: what docdb uses when it is handed none. */
export function environmentSettings(): Settings {
  return settingsFromEnv(process.env);
}
