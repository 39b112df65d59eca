// The embedding model and reranker a DocDB opens with: given ones as they are, configs over the
// environment's settings, and why either is missing when it cannot be set up.
import type { EmbeddingModel, Reranker } from "@docdb/embed";
import { DocDBError } from "./errors.js";
import { createEmbeddingModel, type EmbeddingConfig, type ModelFolders } from "./provider.js";
import { createReranker, type RerankerConfig } from "./reranker.js";
import { overEnvironment, type Settings } from "./settings/index.js";

export function isReranker(value: unknown): value is Reranker {
  return typeof value === "object" && value !== null && typeof (value as Reranker).rerank === "function";
}

function isModel(value: unknown): value is EmbeddingModel {
  return typeof value === "object" && value !== null && typeof (value as EmbeddingModel).embed === "function";
}

export function definedOnly<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}

function foldersOf(settings: Settings): ModelFolders {
  return { cacheDir: settings.modelCacheDir, hubCacheDir: settings.hubCacheDir };
}

/** The embedding model `option` means (null for none), and why there is none when it cannot be set up. */
export function embeddingFrom(
  option: EmbeddingModel | EmbeddingConfig | null | undefined,
  settings: Settings,
): { embedding: EmbeddingModel | null; problem: string | undefined } {
  if (isModel(option)) return { embedding: option, problem: undefined };
  if (option === null) return { embedding: null, problem: undefined };
  try {
    return { embedding: createEmbeddingModel(overEnvironment(option ?? {}, settings.embedding), foldersOf(settings)), problem: undefined };
  } catch (error) {
    if (!DocDBError.isInstance(error) || error.code !== "EMBEDDING_UNAVAILABLE") throw error;
    return { embedding: null, problem: error.message };
  }
}

/** The reranker `option` means (null for none), and why there is none. */
export function rerankerFrom(
  option: Reranker | RerankerConfig | null | undefined,
  settings: Settings,
): { reranker: Reranker | null; problem: string | undefined } {
  if (isReranker(option)) return { reranker: option, problem: undefined };
  if (option === null) return { reranker: null, problem: "reranking is turned off" };
  try {
    const config = { ...settings.reranker, ...definedOnly(option ?? {}) };
    const reranker = createReranker(config, foldersOf(settings));
    return { reranker, problem: reranker ? undefined : "reranking is turned off (DOCDB_RERANKER=none)" };
  } catch (error) {
    if (!DocDBError.isInstance(error) || (error.code !== "RERANKER_UNAVAILABLE" && error.code !== "INVALID_REQUEST")) throw error;
    return { reranker: null, problem: error.message };
  }
}
