import {
  DEFAULT_OLLAMA_URL,
  EmbeddingError,
  type EmbeddingModel,
  LocalEmbeddingModel,
  OllamaEmbeddingModel,
  OpenAIEmbeddingModel,
} from "@docdb/embed";
import { DocDBError } from "./errors.js";

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

function positiveInteger(value: string | undefined, name: string, allowZero = false): number | undefined {
  if (value === undefined || value.trim() === "") return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < (allowZero ? 0 : 1)) {
    throw new DocDBError("INVALID_REQUEST", `${name}="${value}" must be a ${allowZero ? "non-negative" : "positive"} whole number`);
  }
  return n;
}

function flag(value: string | undefined): boolean | undefined {
  if (value === undefined || value.trim() === "") return undefined;
  return !/^(0|false|no|off)$/i.test(value.trim());
}

export function parseProviderName(value: string, source = "DOCDB_EMBEDDING"): ProviderName {
  const name = value.trim().toLowerCase();
  if (!PROVIDER_NAMES.includes(name as ProviderName)) {
    throw new DocDBError("INVALID_REQUEST", `${source}="${value}" is not a provider: use one of ${PROVIDER_NAMES.join(", ")}`);
  }
  return name as ProviderName;
}

/**
 * The embedding settings in the environment: DOCDB_EMBEDDING, DOCDB_EMBEDDING_MODEL,
 * DOCDB_EMBEDDING_DIMENSIONS, OPENAI_API_KEY, OPENAI_BASE_URL, DOCDB_MODEL_DIR,
 * DOCDB_MODEL_CACHE, DOCDB_MODEL_DOWNLOAD (0 turns downloads off, as does HF_HUB_OFFLINE=1),
 * HF_ENDPOINT, DOCDB_MODEL_IDLE_SECONDS, DOCDB_EMBED_THREADS, DOCDB_OLLAMA_URL (or OLLAMA_HOST).
 */
export function embeddingConfigFromEnv(env: NodeJS.ProcessEnv = process.env): EmbeddingConfig {
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
 * Explicit settings (config, flags) over the environment, key by key. A model or size from
 * the environment belongs to the environment's provider, so it is dropped when the explicit
 * settings choose another provider.
 */
export function resolveEmbeddingConfig(explicit: EmbeddingConfig = {}, env: NodeJS.ProcessEnv = process.env): EmbeddingConfig {
  const fromEnv = embeddingConfigFromEnv(env);
  const given = Object.fromEntries(Object.entries(explicit).filter(([, v]) => v !== undefined)) as EmbeddingConfig;
  if (given.provider !== undefined && given.provider !== (fromEnv.provider ?? defaultProvider(fromEnv))) {
    delete fromEnv.model;
    delete fromEnv.dimensions;
  }
  return { ...fromEnv, ...given };
}

function defaultProvider(config: EmbeddingConfig): ProviderName {
  return config.apiKey ? "openai" : "local";
}

/** Which provider a configuration means: the named one, else OpenAI with a key, else local. */
export function providerOf(config: EmbeddingConfig): ProviderName {
  return config.provider ?? defaultProvider(config);
}

/**
 * The embedding model a configuration names, or null when embeddings are off. Nothing is
 * loaded or contacted here; a provider that cannot be set up at all is EMBEDDING_UNAVAILABLE.
 */
export function createEmbeddingModel(config: EmbeddingConfig): EmbeddingModel | null {
  const provider = providerOf(config);
  try {
    switch (provider) {
      case "none":
        return null;
      case "openai":
        if (!config.apiKey) {
          throw new DocDBError(
            "EMBEDDING_UNAVAILABLE",
            "the openai provider needs OPENAI_API_KEY: set it, or choose DOCDB_EMBEDDING=local (on this machine) or none",
          );
        }
        return new OpenAIEmbeddingModel({
          apiKey: config.apiKey,
          baseURL: config.baseURL,
          model: config.model,
          dimensions: config.dimensions,
        });
      case "ollama":
        return new OllamaEmbeddingModel({
          model: config.model,
          baseURL: config.ollamaURL ?? DEFAULT_OLLAMA_URL,
          dimensions: config.dimensions,
        });
      case "local":
        return new LocalEmbeddingModel({
          model: config.model,
          modelDir: config.modelDir,
          cacheDir: config.modelCacheDir,
          allowDownload: config.allowDownload,
          remoteHost: config.modelHost,
          dimensions: config.dimensions,
          idleUnloadMs: config.idleUnloadMs,
          threads: config.threads,
        });
    }
  } catch (error) {
    if (EmbeddingError.isInstance(error)) throw new DocDBError("EMBEDDING_UNAVAILABLE", error.message, { cause: error });
    throw error;
  }
}
