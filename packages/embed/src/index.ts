export type { EmbeddingKind, EmbeddingModel, EmbedOptions } from "./model.js";
export { EmbeddingError, isRetryableStatus, parseRetryAfter } from "./errors.js";
export { embedMany, type EmbedManyOptions } from "./embed-many.js";
export { OpenAIEmbeddingModel, type OpenAIEmbeddingOptions } from "./openai.js";
