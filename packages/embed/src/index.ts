export { type EmbedManyOptions, embedMany } from "./embed-many.js";
export { EmbeddingError, isRetryableStatus, parseRetryAfter } from "./errors.js";
export type { EmbeddingKind, EmbeddingModel, EmbedOptions } from "./model.js";
export { OpenAIEmbeddingModel, type OpenAIEmbeddingOptions } from "./openai.js";
