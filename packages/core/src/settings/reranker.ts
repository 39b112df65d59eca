// The reranker's settings: their type, the names they take, and what the environment says.
import { DocDBError, echo } from "../errors.js";
import { type Env, flag } from "./values.js";

export type RerankerName = "local" | "cohere" | "none";
export const RERANKER_NAMES: readonly RerankerName[] = ["local", "cohere", "none"];

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

export function parseRerankerName(value: string, source = "DOCDB_RERANKER"): RerankerName {
  const name = value.trim().toLowerCase();
  if (!RERANKER_NAMES.includes(name as RerankerName)) {
    throw new DocDBError("INVALID_REQUEST", `${source}="${echo(value)}" is not a reranker: use one of ${RERANKER_NAMES.join(", ")}`);
  }
  return name as RerankerName;
}

/**
 * The reranker settings in the environment: DOCDB_RERANKER (local, cohere, none),
 * DOCDB_RERANKER_MODEL, DOCDB_RERANKER_MODEL_DIR, DOCDB_RERANKER_URL, DOCDB_RERANKER_API_KEY
 * (or COHERE_API_KEY); downloads follow the embedding model's DOCDB_MODEL_CACHE,
 * DOCDB_MODEL_DOWNLOAD, HF_HUB_OFFLINE and HF_ENDPOINT.
 */
export function rerankerConfigFromEnv(env: Env = process.env): RerankerConfig {
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
