import { resolve } from "node:path";
import type { PreTrainedModel, PreTrainedTokenizer, Tensor } from "@huggingface/transformers";
import { type DownloadProgress, stderrDownloadProgress } from "./download-progress.js";
import { EmbeddingError } from "./errors.js";
import { checkModelReachable, downloadProgressCallback, onnxSessionOptions, serialisedLoad } from "./local-runtime.js";
import {
  defaultModelCacheDir,
  folderModelName,
  huggingFaceHubCacheDir,
  isSingleModelFolder,
  locateModel,
  type ModelDtype,
  type ModelLocation,
} from "./model-files.js";
import { type Reranker, type RerankOptions, sigmoid } from "./reranker.js";

/**
 * The default local reranker: BAAI's bge-reranker-base as an ONNX export (XLM-RoBERTa base,
 * ~280 MB fp32 / ~280 MB quantized download). Its tokenizer covers ~100 languages; it was
 * trained on Chinese and English. For stronger Japanese and other languages pick a
 * bge-reranker-v2-m3 ONNX export with DOCDB_RERANKER_MODEL.
 */
export const DEFAULT_LOCAL_RERANKER = "Xenova/bge-reranker-base";

export interface LocalRerankerOptions {
  /** Hugging Face id. Default: the folder's name when `modelDir` holds one model, else DEFAULT_LOCAL_RERANKER. */
  model?: string;
  /** A folder holding the model's files, or a folder of `<org>/<name>/` model folders. */
  modelDir?: string;
  /** Where downloads go (and are found again). Default `defaultModelCacheDir()` (shared with embedding models). */
  cacheDir?: string;
  /** Also look in the Hugging Face hub cache (read only). Default `huggingFaceHubCacheDir()`; `false` to skip. */
  hubCacheDir?: string | false;
  /** Download from the hub when no local copy exists and no `modelDir` was given. Default true. */
  allowDownload?: boolean;
  /** Hub to download from (`HF_ENDPOINT` for mirrors). Default https://huggingface.co. */
  remoteHost?: string;
  /** How long the reachability check before a download may take. Default 3 s. */
  connectTimeoutMs?: number;
  /** Which ONNX file: `auto` prefers the quantized one when present (and downloads it). */
  dtype?: ModelDtype;
  /** Intra-op threads for onnxruntime. Default: every core. */
  threads?: number;
  /** Most (query, passage) pairs per forward pass. Default 8. */
  passSize?: number;
  /** Longest input in tokens (query and passage together); longer passages are cut. Default 512. */
  maxLength?: number;
  /** Free the loaded model after this long without use; 0 keeps it. Default 10 minutes. */
  idleUnloadMs?: number;
  /** After a failed load, calls fail at once with the same error for this long. Default 60 s. */
  retryLoadAfterMs?: number;
  onDownloadProgress?: (progress: DownloadProgress) => void;
}

interface Loaded {
  tokenizer: PreTrainedTokenizer;
  model: PreTrainedModel;
}

type Transformers = typeof import("@huggingface/transformers");

/**
 * A cross-encoder reranker on this machine, through the same transformers.js runtime (and the
 * same folder / cache / download rules) as the local embedding model. Nothing is loaded until
 * the first `rerank`. Scores are the sigmoid of the model's logit (for a two-label model, the
 * softmax probability of the second label).
 */
export class LocalReranker implements Reranker {
  readonly provider = "local";
  readonly modelId: string;
  private readonly options: LocalRerankerOptions;
  private readonly modelDir: string | undefined;
  private readonly cacheDir: string;
  private readonly hubCacheDir: string | undefined;
  private loaded: Loaded | undefined;
  private loading: Promise<Loaded> | undefined;
  private failure: { error: EmbeddingError; at: number } | undefined;
  private queue: Promise<unknown> = Promise.resolve();
  private idleTimer: NodeJS.Timeout | undefined;

  constructor(options: LocalRerankerOptions = {}) {
    this.options = options;
    this.modelDir = options.modelDir ? resolve(options.modelDir) : undefined;
    this.cacheDir = resolve(options.cacheDir ?? defaultModelCacheDir());
    this.hubCacheDir = options.hubCacheDir === false ? undefined : (options.hubCacheDir ?? huggingFaceHubCacheDir());
    const named = options.model?.trim() || undefined;
    const singleFolder = this.modelDir && isSingleModelFolder(this.modelDir) ? this.modelDir : undefined;
    this.modelId = named ?? (singleFolder ? folderModelName(singleFolder) : DEFAULT_LOCAL_RERANKER);
  }

  /** Where the model's files are on disk, if they are. */
  locate(): ModelLocation | undefined {
    return locateModel(this.modelId, {
      modelDir: this.modelDir,
      cacheDir: this.cacheDir,
      hubCacheDir: this.hubCacheDir,
      dtype: this.options.dtype,
    });
  }

  async rerank(query: string, documents: string[], options: RerankOptions = {}): Promise<number[]> {
    if (documents.length === 0) return [];
    return this.exclusive(async () => {
      const loaded = await this.ready();
      try {
        return await this.score(loaded, query, documents, options);
      } catch (error) {
        if (options.signal?.aborted || EmbeddingError.isInstance(error)) throw error;
        throw new EmbeddingError(`local reranker ${this.modelId} failed: ${(error as Error).message}`, {
          provider: this.provider,
          retryable: false,
          cause: error,
        });
      } finally {
        this.scheduleUnload();
      }
    });
  }

  async close(): Promise<void> {
    clearTimeout(this.idleTimer);
    await this.exclusive(() => this.unload());
  }

  private async score(loaded: Loaded, query: string, documents: string[], options: RerankOptions): Promise<number[]> {
    const passSize = Math.max(1, this.options.passSize ?? 8);
    const scores: number[] = [];
    for (let start = 0; start < documents.length; start += passSize) {
      options.signal?.throwIfAborted();
      const pass = documents.slice(start, start + passSize);
      const inputs = loaded.tokenizer(
        pass.map(() => query),
        { text_pair: pass, padding: true, truncation: true, max_length: this.options.maxLength ?? 512 },
      );
      const output = (await loaded.model(inputs)) as { logits: Tensor };
      const logits = output.logits;
      const labels = (logits.dims[1] as number | undefined) ?? 1;
      const data = logits.data as Float32Array;
      for (let row = 0; row < pass.length; row++) {
        if (labels === 1) scores.push(sigmoid(data[row] as number));
        else {
          // Two labels (irrelevant, relevant): the probability of "relevant".
          const a = data[row * labels] as number;
          const b = data[row * labels + 1] as number;
          scores.push(sigmoid(b - a));
        }
      }
      logits.dispose();
    }
    return scores;
  }

  private exclusive<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.queue.then(fn, fn);
    this.queue = run.catch(() => undefined);
    return run;
  }

  private ready(): Promise<Loaded> {
    if (this.loaded) return Promise.resolve(this.loaded);
    const retryAfter = this.options.retryLoadAfterMs ?? 60_000;
    if (this.failure && Date.now() - this.failure.at < retryAfter) return Promise.reject(this.failure.error);
    this.loading ??= serialisedLoad(() => this.load())
      .then((loaded) => {
        this.loaded = loaded;
        this.failure = undefined;
        return loaded;
      })
      .catch((error: unknown) => {
        const failure = EmbeddingError.isInstance(error)
          ? error
          : new EmbeddingError(`cannot load local reranker ${this.modelId}: ${(error as Error).message}`, {
              provider: this.provider,
              retryable: false,
              cause: error,
            });
        this.failure = { error: failure, at: Date.now() };
        throw failure;
      })
      .finally(() => {
        this.loading = undefined;
      });
    return this.loading;
  }

  private async load(): Promise<Loaded> {
    const location = this.locate();
    if (!location) {
      if (this.modelDir) {
        throw this.unavailable(
          `${this.modelDir} holds no copy of it: a model folder needs config.json, tokenizer.json, tokenizer_config.json and onnx/model_quantized.onnx or onnx/model.onnx (in the folder itself, or in ${this.modelDir}/${this.modelId}/)`,
        );
      }
      if (this.options.allowDownload === false) throw this.unavailable(`it is not in ${this.cacheDir} and downloads are turned off`);
    }
    const transformers = await import("@huggingface/transformers");
    transformers.env.backends.onnx.logLevel = "error";
    return location ? this.loadFolder(transformers, location) : this.download(transformers);
  }

  private async loadFolder(transformers: Transformers, location: ModelLocation): Promise<Loaded> {
    transformers.env.allowLocalModels = true;
    transformers.env.allowRemoteModels = false;
    try {
      const tokenizer = await transformers.AutoTokenizer.from_pretrained(location.dir, { local_files_only: true });
      const model = await transformers.AutoModelForSequenceClassification.from_pretrained(location.dir, {
        dtype: location.dtype,
        device: "cpu",
        local_files_only: true,
        session_options: onnxSessionOptions(this.options.threads),
      });
      return { tokenizer, model };
    } catch (error) {
      throw new EmbeddingError(`cannot load the reranker in ${location.dir}: ${(error as Error).message}`, {
        provider: this.provider,
        retryable: false,
        cause: error,
      });
    }
  }

  private async download(transformers: Transformers): Promise<Loaded> {
    const host = (this.options.remoteHost ?? "https://huggingface.co").replace(/\/+$/, "");
    await checkModelReachable(host, this.modelId, this.options.connectTimeoutMs ?? 3000, (reason, cause) =>
      this.unavailable(reason, cause),
    );
    transformers.env.allowLocalModels = false;
    transformers.env.allowRemoteModels = true;
    transformers.env.remoteHost = `${host}/`;
    const progress_callback = downloadProgressCallback(this.modelId, this.options.onDownloadProgress ?? stderrDownloadProgress());
    try {
      const tokenizer = await transformers.AutoTokenizer.from_pretrained(this.modelId, { cache_dir: this.cacheDir, progress_callback });
      const model = await transformers.AutoModelForSequenceClassification.from_pretrained(this.modelId, {
        dtype: this.options.dtype === "fp32" ? "fp32" : "q8",
        device: "cpu",
        cache_dir: this.cacheDir,
        session_options: onnxSessionOptions(this.options.threads),
        progress_callback,
      });
      return { tokenizer, model };
    } catch (error) {
      throw this.unavailable(`downloading it from ${host} failed (${(error as Error).message})`, error);
    } finally {
      transformers.env.allowRemoteModels = false;
    }
  }

  private unavailable(reason: string, cause?: unknown): EmbeddingError {
    return new EmbeddingError(
      `local reranker model ${this.modelId} is not available: ${reason}. Ways out: ` +
        `(1) put the model's files in a folder and set DOCDB_RERANKER_MODEL_DIR to it (a cross-encoder exported to ONNX: config.json, tokenizer.json, tokenizer_config.json, onnx/model_quantized.onnx or onnx/model.onnx); ` +
        `(2) run once with internet access, and it downloads to ${this.cacheDir} on first use; ` +
        "(3) set DOCDB_RERANKER=cohere and DOCDB_RERANKER_URL to rerank through a rerank endpoint, or search without rerank",
      { provider: this.provider, retryable: false, cause },
    );
  }

  private scheduleUnload(): void {
    const idle = this.options.idleUnloadMs ?? 10 * 60_000;
    if (idle <= 0) return;
    clearTimeout(this.idleTimer);
    this.idleTimer = setTimeout(() => void this.exclusive(() => this.unload()), idle);
    this.idleTimer.unref();
  }

  private async unload(): Promise<void> {
    const loaded = this.loaded;
    this.loaded = undefined;
    await loaded?.model.dispose();
  }
}
