// Settings: everything docdb takes from the environment, as one typed object. Each value is read
// and checked when first asked for (so an invalid variable fails where it is used), then kept.
import { defaultModelCacheDir, huggingFaceHubCacheDir } from "@docdb/embed";
import { DocDBError, echo } from "../errors.js";
import { validateThreshold } from "../memory/names.js";
import type { MemoryOptions } from "../memory/types.js";
import { type EmbeddingConfig, embeddingConfigFromEnv } from "./embedding.js";
import { type RerankerConfig, rerankerConfigFromEnv } from "./reranker.js";
import type { Env } from "./values.js";

/** Default deadline of one insert's, query's or memory operation's provider calls. */
export const DEFAULT_EMBED_DEADLINE_MS = 15_000;
/** Default deadline of one batch of bulk embedding (embed --pending, import, reembed), retries included. */
export const DEFAULT_EMBED_BATCH_DEADLINE_MS = 120_000;
/** Default deadline of one rerank (the reranker's calls, retries included). */
export const DEFAULT_RERANK_DEADLINE_MS = 30_000;
/** Default time an MCP client has to answer a sampling request (merge_knowledge). */
export const DEFAULT_SAMPLING_TIMEOUT_MS = 60_000;

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
  /** DOCDB_EMBED_BATCH_DEADLINE_MS, else 120,000: each batch of bulk embedding. */
  readonly embedBatchDeadlineMs: number;
  /** DOCDB_RERANK_DEADLINE_MS, else 30,000. */
  readonly rerankDeadlineMs: number;
  /** DOCDB_SAMPLING_TIMEOUT_MS, else 60,000: an MCP client's answer to a sampling request. */
  readonly samplingTimeoutMs: number;
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
  /** DOCDB_OAUTH_ISSUER, DOCDB_OAUTH_AUDIENCE, DOCDB_OAUTH_JWKS_URL: OAuth access tokens an HTTP server accepts. */
  readonly oauth: { issuer?: string; audience?: string; jwksUrl?: string };
  /** DOCDB_MCP_ALLOW_FETCH=1: the MCP server may fetch web pages (`insert_url`); off by default. */
  readonly mcpAllowFetch: boolean;
  /**
   * DOCDB_MCP_FETCH_PRIVATE=1: those fetches may also reach loopback, link-local and private
   * addresses (never by default: a server must not be a way into its own network).
   */
  readonly mcpFetchPrivate: boolean;
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

/** A deadline variable: a positive whole number of milliseconds, else the default. */
function deadlineFromEnv(env: Env, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw.trim() === "") return fallback;
  const ms = Number(raw);
  if (!Number.isInteger(ms) || ms < 1) {
    throw new DocDBError("INVALID_REQUEST", `${name}="${echo(raw)}" must be a positive whole number of milliseconds`);
  }
  return ms;
}

function workersFromEnv(env: Env): number | undefined {
  const raw = env.DOCDB_ANALYSIS_WORKERS;
  if (raw === undefined || raw.trim() === "") return undefined;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 0 || n > 64) {
    throw new DocDBError("INVALID_REQUEST", `DOCDB_ANALYSIS_WORKERS="${echo(raw)}" must be a whole number from 0 to 64`);
  }
  return n;
}

/** A non-negative number of ms; anything else counts as unset. */
function envMs(env: Env, name: string): number | undefined {
  const value = Number(env[name]);
  return env[name] && Number.isFinite(value) && value >= 0 ? value : undefined;
}

/** A yes/no variable: 1/true/yes/on or 0/false/no/off (or unset: no); anything else is an error naming it. */
function envFlag(env: Env, name: string): boolean {
  const raw = env[name]?.trim().toLowerCase();
  if (raw === undefined || raw === "") return false;
  if (["1", "true", "yes", "on"].includes(raw)) return true;
  if (["0", "false", "no", "off"].includes(raw)) return false;
  throw new DocDBError("INVALID_REQUEST", `${name}="${env[name]}" must be 1 or 0 (true/false, yes/no, on/off)`);
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
    embedDeadlineMs: () => deadlineFromEnv(env, "DOCDB_EMBED_DEADLINE_MS", DEFAULT_EMBED_DEADLINE_MS),
    embedBatchDeadlineMs: () => deadlineFromEnv(env, "DOCDB_EMBED_BATCH_DEADLINE_MS", DEFAULT_EMBED_BATCH_DEADLINE_MS),
    rerankDeadlineMs: () => deadlineFromEnv(env, "DOCDB_RERANK_DEADLINE_MS", DEFAULT_RERANK_DEADLINE_MS),
    samplingTimeoutMs: () => deadlineFromEnv(env, "DOCDB_SAMPLING_TIMEOUT_MS", DEFAULT_SAMPLING_TIMEOUT_MS),
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
    oauth: () => ({
      issuer: env.DOCDB_OAUTH_ISSUER?.trim() || undefined,
      audience: env.DOCDB_OAUTH_AUDIENCE?.trim() || undefined,
      jwksUrl: env.DOCDB_OAUTH_JWKS_URL?.trim() || undefined,
    }),
    mcpAllowFetch: () => envFlag(env, "DOCDB_MCP_ALLOW_FETCH"),
    mcpFetchPrivate: () => envFlag(env, "DOCDB_MCP_FETCH_PRIVATE"),
  });
}

/** The settings of this process's environment: what docdb uses when it is handed none. */
export function environmentSettings(): Settings {
  return settingsFromEnv(process.env);
}
