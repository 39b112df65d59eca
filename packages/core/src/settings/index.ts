// The settings layer: the environment, docdb.config.json and defaults, read here and nowhere else
// in the packages; every other module is handed what it needs.
export * from "./config.js";
export {
  CONFIG_FILE_NAME,
  type ConfigInput,
  findProjectConfig,
  parseConfigFile,
  userConfigPath,
} from "./config-file.js";
export {
  type EmbeddingConfig,
  embeddingConfigFromEnv,
  overEnvironment,
  PROVIDER_NAMES,
  type ProviderName,
  parseProviderName,
  providerOf,
  resolveEmbeddingConfig,
} from "./embedding.js";
export {
  DEFAULT_EMBED_BATCH_DEADLINE_MS,
  DEFAULT_EMBED_DEADLINE_MS,
  DEFAULT_RERANK_DEADLINE_MS,
  DEFAULT_SAMPLING_TIMEOUT_MS,
  environmentSettings,
  type Settings,
  settingsFromEnv,
} from "./environment.js";
export { parseRerankerName, RERANKER_NAMES, type RerankerConfig, type RerankerName, rerankerConfigFromEnv } from "./reranker.js";
export type { Env } from "./values.js";
