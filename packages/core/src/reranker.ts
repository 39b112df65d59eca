import { EmbeddingError, HttpReranker, LocalReranker, type Reranker } from "@docdb/embed";
import { DocDBError } from "./errors.js";
import { environmentFolders, type ModelFolders } from "./provider.js";
import type { RerankerConfig, RerankerName } from "./settings/index.js";

// The reranker settings themselves (type, names, environment) live in settings/.
export {
  parseRerankerName,
  RERANKER_NAMES,
  type RerankerConfig,
  type RerankerName,
  rerankerConfigFromEnv,
} from "./settings/index.js";

/** How many of the best candidates `rerank: true` reorders (at least top_k). */
export const RERANK_CANDIDATES = 50;

/** Which reranker a configuration means: the named one, else cohere with a URL, else local. */
export function rerankerProviderOf(config: RerankerConfig): RerankerName {
  return config.provider ?? (config.url ? "cohere" : "local");
}

/**
 * The reranker a configuration names, or null when reranking is off. Nothing is loaded or
 * contacted here; a reranker that cannot be set up at all is RERANKER_UNAVAILABLE.
 */
export function createReranker(config: RerankerConfig, folders?: ModelFolders): Reranker | null {
  try {
    switch (rerankerProviderOf(config)) {
      case "none":
        return null;
      case "cohere":
        return new HttpReranker({ url: config.url ?? "", apiKey: config.apiKey, model: config.model });
      case "local": {
        const { cacheDir, hubCacheDir } = folders ?? environmentFolders();
        return new LocalReranker({
          model: config.model,
          modelDir: config.modelDir,
          cacheDir: config.modelCacheDir ?? cacheDir,
          hubCacheDir,
          allowDownload: config.allowDownload,
          remoteHost: config.modelHost,
          threads: config.threads,
        });
      }
    }
  } catch (error) {
    if (EmbeddingError.isInstance(error)) throw new DocDBError("RERANKER_UNAVAILABLE", error.message, { cause: error });
    throw error;
  }
}
