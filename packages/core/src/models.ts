import {
  DEFAULT_LOCAL_MODEL,
  findKnownLocalModel,
  isSingleModelFolder,
  KNOWN_LOCAL_MODELS,
  LocalEmbeddingModel,
  locateModel,
  type ModelLocation,
} from "@docdb/embed";
import { type EmbeddingConfig, environmentFolders, type ModelFolders, providerOf, resolveEmbeddingConfig } from "./provider.js";

export interface LocalModelStatus {
  id: string;
  dimensions: number;
  languages: string;
  license: string;
  prefixes: { query: string; document: string };
  pooling: "mean" | "cls";
  /** The model the local provider uses when none is named. */
  isDefault: boolean;
  /** The model the current configuration embeds with. */
  isCurrent: boolean;
  /** Where its files are, or null when it is not on this machine. */
  location: ModelLocation | null;
}

export interface LocalModelsReport {
  /** `DOCDB_MODEL_DIR` (or the configured folder), when set. */
  modelDir: string | null;
  /** Where downloads go. */
  cacheDir: string;
  allowDownload: boolean;
  models: LocalModelStatus[];
}

/**
 * The local models docdb knows and whether each is on this machine (model folder, download
 * cache, Hugging Face cache), plus the configured folder's own model when it is not a known
 * one. Reads the file system only.
 */
export function listLocalModels(
  config: EmbeddingConfig = resolveEmbeddingConfig(),
  folders: ModelFolders = environmentFolders(),
): LocalModelsReport {
  const cacheDir = config.modelCacheDir ?? folders.cacheDir;
  const where = { modelDir: config.modelDir, cacheDir, hubCacheDir: folders.hubCacheDir };
  let current: LocalEmbeddingModel | undefined;
  if (providerOf(config) === "local") {
    try {
      current = new LocalEmbeddingModel({ ...where, model: config.model, dimensions: config.dimensions, allowDownload: false });
    } catch {
      current = undefined; // an unknown, absent model: nothing to list for it
    }
  }
  // A folder holding one model must not make every known model look present.
  const modelsRoot = config.modelDir && !isSingleModelFolder(config.modelDir) ? config.modelDir : undefined;
  const models: LocalModelStatus[] = KNOWN_LOCAL_MODELS.map((spec) => {
    // A folder given directly for this model (DOCDB_MODEL_DIR=…/multilingual-e5-small) counts too.
    const direct = current?.modelId === spec.id ? current.locate() : undefined;
    return {
      ...spec,
      isDefault: spec.id === DEFAULT_LOCAL_MODEL,
      isCurrent: current?.modelId === spec.id,
      location: direct ?? locateModel(spec.id, { ...where, modelDir: modelsRoot }) ?? null,
    };
  });
  if (current && !findKnownLocalModel(current.modelId)) {
    models.push({
      id: current.modelId,
      dimensions: current.dimensions,
      languages: "(not in docdb's table)",
      license: "see the model's card",
      prefixes: current.prefixes,
      pooling: current.pooling,
      isDefault: false,
      isCurrent: true,
      location: current.locate() ?? null,
    });
  }
  return { modelDir: config.modelDir ?? null, cacheDir, allowDownload: config.allowDownload !== false, models };
}
