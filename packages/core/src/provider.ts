import {
  DEFAULT_OLLAMA_URL,
  EmbeddingError,
  type EmbeddingModel,
  LocalEmbeddingModel,
  OllamaEmbeddingModel,
  OpenAIEmbeddingModel,
} from "@docdb/embed";
import { DocDBError } from "./errors.js";
import { type EmbeddingConfig, environmentSettings, providerOf } from "./settings/index.js";

// The embedding settings themselves (type, names, environment) live in settings/.
export {
  type EmbeddingConfig,
  embeddingConfigFromEnv,
  PROVIDER_NAMES,
  type ProviderName,
  parseProviderName,
  providerOf,
  resolveEmbeddingConfig,
} from "./settings/index.js";

/** Where local models are looked for besides the configured folder. */
export interface ModelFolders {
  /** docdb's download cache (when the config names none). */
  cacheDir: string;
  /** The Hugging Face hub cache (read only). */
  hubCacheDir: string;
}

/** The model folders of this process's environment. */
export function environmentFolders(): ModelFolders {
  const settings = environmentSettings();
  return { cacheDir: settings.modelCacheDir, hubCacheDir: settings.hubCacheDir };
}

/**
 * The embedding model a configuration names, or null when embeddings are off. Nothing is
 * loaded or contacted here; a provider that cannot be set up at all is EMBEDDING_UNAVAILABLE.
 */
export function createEmbeddingModel(config: EmbeddingConfig, folders?: ModelFolders): EmbeddingModel | null {
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
      case "local": {
        const { cacheDir, hubCacheDir } = folders ?? environmentFolders();
        return new LocalEmbeddingModel({
          model: config.model,
          modelDir: config.modelDir,
          cacheDir: config.modelCacheDir ?? cacheDir,
          hubCacheDir,
          allowDownload: config.allowDownload,
          remoteHost: config.modelHost,
          dimensions: config.dimensions,
          idleUnloadMs: config.idleUnloadMs,
          threads: config.threads,
        });
      }
    }
  } catch (error) {
    if (EmbeddingError.isInstance(error)) throw new DocDBError("EMBEDDING_UNAVAILABLE", error.message, { cause: error });
    throw error;
  }
}
