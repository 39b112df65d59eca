import { type EmbeddingModel, OpenAIEmbeddingModel } from "@docdb/embed";
import { DocDBError } from "./errors.js";

export type ProviderName = "openai" | "none";

export interface EmbeddingConfig {
  /** Which provider; default: OpenAI when an API key is set, else none. */
  provider?: ProviderName;
  model?: string;
  dimensions?: number;
  baseURL?: string;
  apiKey?: string;
}

const PROVIDERS: readonly string[] = ["openai", "none"];

/** Reads DOCDB_EMBEDDING, DOCDB_EMBEDDING_MODEL, OPENAI_API_KEY, OPENAI_BASE_URL. */
export function embeddingConfigFromEnv(env: NodeJS.ProcessEnv = process.env): EmbeddingConfig {
  const provider = env.DOCDB_EMBEDDING?.trim().toLowerCase();
  if (provider && !PROVIDERS.includes(provider)) {
    throw new DocDBError("INVALID_REQUEST", `DOCDB_EMBEDDING="${provider}" is not a provider: use one of ${PROVIDERS.join(", ")}`);
  }
  return {
    provider: provider as ProviderName | undefined,
    model: env.DOCDB_EMBEDDING_MODEL || undefined,
    dimensions: env.DOCDB_EMBEDDING_DIMENSIONS ? Number(env.DOCDB_EMBEDDING_DIMENSIONS) : undefined,
    baseURL: env.OPENAI_BASE_URL || undefined,
    apiKey: env.OPENAI_API_KEY || undefined,
  };
}

/** The embedding model a configuration names, or null when embeddings are off. */
export function createEmbeddingModel(config: EmbeddingConfig): EmbeddingModel | null {
  const provider = config.provider ?? (config.apiKey ? "openai" : "none");
  if (provider === "none") return null;
  if (!config.apiKey) {
    throw new DocDBError("EMBEDDING_UNAVAILABLE", "the openai provider needs OPENAI_API_KEY: set it, or choose DOCDB_EMBEDDING=none");
  }
  return new OpenAIEmbeddingModel({ apiKey: config.apiKey, baseURL: config.baseURL, model: config.model, dimensions: config.dimensions });
}
