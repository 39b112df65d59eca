export type { DownloadProgress } from "./download-progress.js";
export { type EmbedManyOptions, embedMany } from "./embed-many.js";
export { EmbeddingError, isRetryableStatus, parseRetryAfter } from "./errors.js";
export { DEFAULT_HTTP_RERANK_MODEL, HttpReranker, type HttpRerankerOptions } from "./http-reranker.js";
export { LocalEmbeddingModel, type LocalEmbeddingOptions } from "./local.js";
export {
  DEFAULT_LOCAL_MODEL,
  findKnownLocalModel,
  KNOWN_LOCAL_MODELS,
  type LocalModelSpec,
  type Pooling,
  type Prefixes,
} from "./local-models.js";
export { DEFAULT_LOCAL_RERANKER, LocalReranker, type LocalRerankerOptions } from "./local-reranker.js";
export type { EmbeddingKind, EmbeddingModel, EmbedOptions } from "./model.js";
export {
  defaultModelCacheDir,
  type EnvValues,
  huggingFaceHubCacheDir,
  isSingleModelFolder,
  locateModel,
  type ModelDtype,
  type ModelLocation,
} from "./model-files.js";
export { DEFAULT_OLLAMA_MODEL, DEFAULT_OLLAMA_URL, OllamaEmbeddingModel, type OllamaEmbeddingOptions } from "./ollama.js";
export { OpenAIEmbeddingModel, type OpenAIEmbeddingOptions } from "./openai.js";
export { type Reranker, type RerankOptions, sigmoid } from "./reranker.js";
