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
  /** Whether a model that is not on this machine would be downloaded on first use (downloads on, no model folder set). */
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
  // A configured model folder is the only place looked in (LocalEmbeddingModel downloads nothing then).
  const allowDownload = config.allowDownload !== false && !config.modelDir;
  return { modelDir: config.modelDir ?? null, cacheDir, allowDownload, models };
}

/** Whether this machine can download the models a report lists as missing, asked just now. */
export interface DownloadCheck {
  /** The hub downloads come from (HF_ENDPOINT, else huggingface.co). */
  host: string;
  /** The model the hub was asked about (the current one when it is missing). */
  model: string;
  reachable: boolean;
  /** Why not, in short (e.g. "ECONNREFUSED", "no answer in time"). */
  problem?: string;
}

/**
 * Asks the hub about one missing model with the quick HEAD request a first use makes (and
 * `docdb status` through LocalEmbeddingModel.probe), so "downloads on first use" is only said
 * when it would. Undefined when downloads are off or every model is on this machine.
 */
export async function checkModelDownloads(
  report: LocalModelsReport,
  config: EmbeddingConfig = resolveEmbeddingConfig(),
  folders: ModelFolders = environmentFolders(),
): Promise<DownloadCheck | undefined> {
  if (!report.allowDownload) return undefined;
  const missing = report.models.filter((m) => m.location === null && findKnownLocalModel(m.id));
  const spec = missing.find((m) => m.isCurrent) ?? missing[0];
  if (!spec) return undefined;
  const host = (config.modelHost ?? DEFAULT_HUB).replace(/\/+$/, "");
  const model = new LocalEmbeddingModel({
    model: spec.id,
    dimensions: spec.dimensions,
    cacheDir: report.cacheDir,
    hubCacheDir: folders.hubCacheDir,
    allowDownload: true,
    remoteHost: host,
  });
  const state = await model.probe();
  if (state.ready) return { host, model: spec.id, reachable: true };
  // probe() says "it is not on disk and <host> cannot be reached to download it (<why>) (see …)".
  const why = /cannot be reached to download it \((.+?)\)(?: \(see|$)/.exec(state.problem ?? "")?.[1];
  return { host, model: spec.id, reachable: false, problem: why ?? (state.problem ?? "").replace(/ \(see `docdb models`\)$/, "") };
}

/** LocalEmbeddingModel's hub when HF_ENDPOINT names none. */
const DEFAULT_HUB = "https://huggingface.co";
