import { EmbeddingError, HttpReranker, LocalReranker, type Reranker } from "@docdb/embed";
import { DocDBError } from "./errors.js";

export type RerankerName = "local" | "cohere" | "none";
export const RERANKER_NAMES: readonly RerankerName[] = ["local", "cohere", "none"];

/** How many of the best candidates `rerank: true` reorders (at least top_k). */
export const RERANK_CANDIDATES = 50;

export interface RerankerConfig {
  /** Default: `cohere` when a URL is set, else `local`. `none` turns reranking off. */
  provider?: RerankerName;
  /** Local: a Hugging Face id of a cross-encoder ONNX export; cohere: the endpoint's model name. */
  model?: string;
  /** Local: a model folder, or a folder of `<org>/<name>` model folders. */
  modelDir?: string;
  /** Local: where downloaded models are kept (shared with embedding models). */
  modelCacheDir?: string;
  /** Local: download on first use when the model is not on disk. Default true. */
  allowDownload?: boolean;
  /** Local: the hub to download from (a mirror). */
  modelHost?: string;
  /** Local: onnxruntime threads. */
  threads?: number;
  /** Cohere-style endpoint: base URL (`/rerank` is added) or the full `…/rerank` URL. */
  url?: string;
  apiKey?: string;
}

function flag(value: string | undefined): boolean | undefined {
  if (value === undefined || value.trim() === "") return undefined;
  return !/^(0|false|no|off)$/i.test(value.trim());
}

export function parseRerankerName(value: string, source = "DOCDB_RERANKER"): RerankerName {
  const name = value.trim().toLowerCase();
  if (!RERANKER_NAMES.includes(name as RerankerName)) {
    throw new DocDBError("INVALID_REQUEST", `${source}="${value}" is not a reranker: use one of ${RERANKER_NAMES.join(", ")}`);
  }
  return name as RerankerName;
}

/**
 * The reranker settings in the environment: DOCDB_RERANKER (local, cohere, none),
 * DOCDB_RERANKER_MODEL, DOCDB_RERANKER_MODEL_DIR, DOCDB_RERANKER_URL, DOCDB_RERANKER_API_KEY
 * (or COHERE_API_KEY); downloads follow the embedding model's DOCDB_MODEL_CACHE,
 * DOCDB_MODEL_DOWNLOAD, HF_HUB_OFFLINE and HF_ENDPOINT.
 */
export function rerankerConfigFromEnv(env: NodeJS.ProcessEnv = process.env): RerankerConfig {
  const offline = flag(env.HF_HUB_OFFLINE) === true;
  const download = flag(env.DOCDB_MODEL_DOWNLOAD);
  const threads = env.DOCDB_EMBED_THREADS?.trim() ? Number(env.DOCDB_EMBED_THREADS) : undefined;
  const config: RerankerConfig = {
    provider: env.DOCDB_RERANKER?.trim() ? parseRerankerName(env.DOCDB_RERANKER) : undefined,
    model: env.DOCDB_RERANKER_MODEL?.trim() || undefined,
    modelDir: env.DOCDB_RERANKER_MODEL_DIR || undefined,
    modelCacheDir: env.DOCDB_MODEL_CACHE || undefined,
    allowDownload: download ?? (offline ? false : undefined),
    modelHost: env.HF_ENDPOINT || undefined,
    threads: threads !== undefined && Number.isInteger(threads) && threads > 0 ? threads : undefined,
    url: env.DOCDB_RERANKER_URL?.trim() || undefined,
    apiKey: env.DOCDB_RERANKER_API_KEY || env.COHERE_API_KEY || undefined,
  };
  return Object.fromEntries(Object.entries(config).filter(([, v]) => v !== undefined)) as RerankerConfig;
}

/** Which reranker a configuration means: the named one, else cohere with a URL, else local. */
export function rerankerProviderOf(config: RerankerConfig): RerankerName {
  return config.provider ?? (config.url ? "cohere" : "local");
}

/**
 * The reranker a configuration names, or null when reranking is off. Nothing is loaded or
 * contacted here; a reranker that cannot be set up at all is RERANKER_UNAVAILABLE.
 */
export function createReranker(config: RerankerConfig): Reranker | null {
  try {
    switch (rerankerProviderOf(config)) {
      case "none":
        return null;
      case "cohere":
        return new HttpReranker({ url: config.url ?? "", apiKey: config.apiKey, model: config.model });
      case "local":
        return new LocalReranker({
          model: config.model,
          modelDir: config.modelDir,
          cacheDir: config.modelCacheDir,
          allowDownload: config.allowDownload,
          remoteHost: config.modelHost,
          threads: config.threads,
        });
    }
  } catch (error) {
    if (EmbeddingError.isInstance(error)) throw new DocDBError("RERANKER_UNAVAILABLE", error.message, { cause: error });
    throw error;
  }
}
