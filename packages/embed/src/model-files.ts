import { existsSync, readdirSync, readFileSync } from "node:fs";
import { homedir } from "node:os";
import { basename, join, resolve } from "node:path";

/** Which ONNX file of a model folder to run: 8-bit quantized (smaller, faster on CPU) or full fp32. */
export type ModelDtype = "auto" | "q8" | "fp32";

const ONNX_FILES: Record<"q8" | "fp32", string> = { q8: "onnx/model_quantized.onnx", fp32: "onnx/model.onnx" };
const REQUIRED_FILES = ["config.json", "tokenizer.json", "tokenizer_config.json"];

/** A model folder found on disk. */
export interface ModelLocation {
  dir: string;
  /** `model-dir`: given by the user; `cache`: docdb's download cache; `hf-cache`: the Hugging Face hub cache. */
  source: "model-dir" | "cache" | "hf-cache";
  dtype: "q8" | "fp32";
}

/** Environment variables by name, as the caller read them (this package reads no environment). */
export type EnvValues = Record<string, string | undefined>;

/**
 * docdb's download cache: `DOCDB_MODEL_CACHE`, else `$XDG_CACHE_HOME/docdb/models`, else
 * `~/.cache/docdb/models`. Laid out like a model folder root: `<cache>/<org>/<name>/…`.
 */
export function defaultModelCacheDir(env: EnvValues = {}): string {
  if (env.DOCDB_MODEL_CACHE) return resolve(env.DOCDB_MODEL_CACHE);
  const base = env.XDG_CACHE_HOME ? resolve(env.XDG_CACHE_HOME) : join(homedir(), ".cache");
  return join(base, "docdb", "models");
}

/** The Hugging Face hub cache (`HF_HUB_CACHE`, `HF_HOME/hub`, `~/.cache/huggingface/hub`), read but never written. */
export function huggingFaceHubCacheDir(env: EnvValues = {}): string {
  if (env.HF_HUB_CACHE) return resolve(env.HF_HUB_CACHE);
  if (env.HF_HOME) return join(resolve(env.HF_HOME), "hub");
  return join(homedir(), ".cache", "huggingface", "hub");
}

/** The dtype a folder can serve, or undefined when it is not a complete model folder. */
export function modelFolderDtype(dir: string, wanted: ModelDtype = "auto"): "q8" | "fp32" | undefined {
  if (!REQUIRED_FILES.every((f) => existsSync(join(dir, f)))) return undefined;
  const order: ("q8" | "fp32")[] = wanted === "auto" ? ["q8", "fp32"] : [wanted];
  return order.find((dtype) => existsSync(join(dir, ONNX_FILES[dtype])));
}

export function onnxFileOf(dtype: "q8" | "fp32"): string {
  return ONNX_FILES[dtype];
}

/** Snapshot folders of `org/name` in the hub cache, the one `refs/main` points at first. */
function hubSnapshots(hubDir: string, modelId: string): string[] {
  const repo = join(hubDir, `models--${modelId.split("/").join("--")}`);
  const snapshots = join(repo, "snapshots");
  if (!existsSync(snapshots)) return [];
  let main: string | undefined;
  try {
    main = readFileSync(join(repo, "refs", "main"), "utf8").trim();
  } catch {
    main = undefined;
  }
  const all = readdirSync(snapshots);
  return [...(main && all.includes(main) ? [main] : []), ...all.filter((s) => s !== main)].map((s) => join(snapshots, s));
}

/**
 * Where the files of `modelId` are, looking (in order) at `modelDir` itself when it holds one
 * model, `modelDir/<modelId>`, docdb's download cache, then the Hugging Face hub cache.
 * Only the file system is read: no network.
 */
export function locateModel(
  modelId: string,
  options: { modelDir?: string; cacheDir?: string; hubCacheDir?: string; dtype?: ModelDtype },
): ModelLocation | undefined {
  const candidates: { dir: string; source: ModelLocation["source"] }[] = [];
  if (options.modelDir) {
    candidates.push({ dir: resolve(options.modelDir), source: "model-dir" });
    candidates.push({ dir: resolve(options.modelDir, modelId), source: "model-dir" });
  }
  if (options.cacheDir) candidates.push({ dir: resolve(options.cacheDir, modelId), source: "cache" });
  if (options.hubCacheDir && modelId.includes("/")) {
    for (const dir of hubSnapshots(options.hubCacheDir, modelId)) candidates.push({ dir, source: "hf-cache" });
  }
  for (const candidate of candidates) {
    const dtype = modelFolderDtype(candidate.dir, options.dtype);
    if (dtype) return { ...candidate, dtype };
  }
  return undefined;
}

/** True when `dir` itself is one model's folder (rather than a folder of `<org>/<name>` models). */
export function isSingleModelFolder(dir: string): boolean {
  return modelFolderDtype(resolve(dir)) !== undefined;
}

/** A name for a model folder given without an id: its folder name. */
export function folderModelName(dir: string): string {
  return basename(resolve(dir));
}

/** The model's output size from its config.json (`hidden_size`, or `d_model`/`dim` in some exports). */
export function readHiddenSize(dir: string): number | undefined {
  try {
    const config = JSON.parse(readFileSync(join(dir, "config.json"), "utf8")) as Record<string, unknown>;
    const size = config.hidden_size ?? config.d_model ?? config.dim;
    return typeof size === "number" && Number.isInteger(size) && size > 0 ? size : undefined;
  } catch {
    return undefined;
  }
}
