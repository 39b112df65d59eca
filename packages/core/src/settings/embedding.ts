// The embedding provider's settings: their type, the names they take, and how the environment
// and explicit settings (flags, config files, options) combine into one EmbeddingConfig.
import { DocDBError, echo } from "../errors.js";
import { type Env, flag, positiveInteger } from "./values.js";

export type ProviderName = "openai" | "local" | "ollama" | "none";
export const PROVIDER_NAMES: readonly ProviderName[] = ["openai", "local", "ollama", "none"];

export interface EmbeddingConfig {
  /** Which provider; default: OpenAI when an API key is set, else local. */
  provider?: ProviderName;
  /** Model id for the chosen provider (each has its own default). */
  model?: string;
  dimensions?: number;
  /** OpenAI (or OpenAI-compatible) base URL. */
  baseURL?: string;
  apiKey?: string;
  /** Local: a model folder, or a folder of `<org>/<name>` model folders. */
  modelDir?: string;
  /** Local: where downloaded models are kept. */
  modelCacheDir?: string;
  /** Local: download on first use when the model is not on disk. Default true. */
  allowDownload?: boolean;
  /** Local: the hub to download from (a mirror). */
  modelHost?: string;
  /** Local: free the model after this many ms unused; 0 keeps it loaded. */
  idleUnloadMs?: number;
  /** Local: onnxruntime threads. Default every core. */
  threads?: number;
  /** Ollama server. Default http://127.0.0.1:11434. */
  ollamaURL?: string;
}

export function parseProviderName(value: string, source = "DOCDB_EMBEDDING"): ProviderName {
  const name = value.trim().toLowerCase();
  if (!PROVIDER_NAMES.includes(name as ProviderName)) {
    throw new DocDBError("INVALID_REQUEST", `${source}="${echo(value)}" is not a provider: use one of ${PROVIDER_NAMES.join(", ")}`);
  }
  return name as ProviderName;
}

/**
 * The embedding settings in the environment: DOCDB_EMBEDDING, DOCDB_EMBEDDING_MODEL,
 * DOCDB_EMBEDDING_DIMENSIONS, OPENAI_API_KEY, OPENAI_BASE_URL, DOCDB_MODEL_DIR,
 * DOCDB_MODEL_CACHE, DOCDB_MODEL_DOWNLOAD (0 turns downloads off, as does HF_HUB_OFFLINE=1),
 * HF_ENDPOINT, DOCDB_MODEL_IDLE_SECONDS, DOCDB_EMBED_THREADS, DOCDB_OLLAMA_URL (or OLLAMA_HOST).
 */
export function embeddingConfigFromEnv(env: Env = process.env): EmbeddingConfig {
  const provider = env.DOCDB_EMBEDDING?.trim() ? parseProviderName(env.DOCDB_EMBEDDING) : undefined;
  const idleSeconds = positiveInteger(env.DOCDB_MODEL_IDLE_SECONDS, "DOCDB_MODEL_IDLE_SECONDS", true);
  const offline = flag(env.HF_HUB_OFFLINE) === true;
  const download = flag(env.DOCDB_MODEL_DOWNLOAD);
  const config: EmbeddingConfig = {
    provider,
    model: env.DOCDB_EMBEDDING_MODEL?.trim() || undefined,
    dimensions: positiveInteger(env.DOCDB_EMBEDDING_DIMENSIONS, "DOCDB_EMBEDDING_DIMENSIONS"),
    baseURL: env.OPENAI_BASE_URL || undefined,
    apiKey: env.OPENAI_API_KEY || undefined,
    modelDir: env.DOCDB_MODEL_DIR || undefined,
    modelCacheDir: env.DOCDB_MODEL_CACHE || undefined,
    allowDownload: download ?? (offline ? false : undefined),
    modelHost: env.HF_ENDPOINT || undefined,
    idleUnloadMs: idleSeconds !== undefined ? idleSeconds * 1000 : undefined,
    threads: positiveInteger(env.DOCDB_EMBED_THREADS, "DOCDB_EMBED_THREADS"),
    ollamaURL: env.DOCDB_OLLAMA_URL || env.OLLAMA_HOST || undefined,
  };
  return Object.fromEntries(Object.entries(config).filter(([, v]) => v !== undefined)) as EmbeddingConfig;
}

/**
 * Explicit settings over the environment's (`fromEnv`, as embeddingConfigFromEnv reads them),
 * key by key. A model or size from the environment belongs to the environment's provider, so it
 * is dropped when the explicit settings choose another provider.
 */
export function overEnvironment(explicit: EmbeddingConfig, fromEnv: EmbeddingConfig): EmbeddingConfig {
  const base = { ...fromEnv };
  const given = Object.fromEntries(Object.entries(explicit).filter(([, v]) => v !== undefined)) as EmbeddingConfig;
  if (given.provider !== undefined && given.provider !== (base.provider ?? defaultProvider(base))) {
    delete base.model;
    delete base.dimensions;
  }
  return { ...base, ...given };
}

/**
 * Explicit settings (config, flags) over the environment, key by key (see overEnvironment).
 */
export function resolveEmbeddingConfig(explicit: EmbeddingConfig = {}, env: Env = process.env): EmbeddingConfig {
  return overEnvironment(explicit, embeddingConfigFromEnv(env));
}

function defaultProvider(config: EmbeddingConfig): ProviderName {
  return config.apiKey ? "openai" : "local";
}

/** Which provider a configuration means: the named one, else OpenAI with a key, else local. */
export function providerOf(config: EmbeddingConfig): ProviderName {
  return config.provider ?? defaultProvider(config);
}
