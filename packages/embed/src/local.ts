import { resolve } from "node:path";
import type { FeatureExtractionPipeline } from "@huggingface/transformers";
import { type DownloadProgress, stderrDownloadProgress } from "./download-progress.js";
import { EmbeddingError } from "./errors.js";
import { DEFAULT_LOCAL_MODEL, findKnownLocalModel, type Pooling, type Prefixes, withPrefix } from "./local-models.js";
import { checkModelReachable, downloadProgressCallback, onnxSessionOptions, serialisedLoad } from "./local-runtime.js";
import type { EmbeddingModel, EmbedOptions } from "./model.js";
import {
  defaultModelCacheDir,
  folderModelName,
  huggingFaceHubCacheDir,
  isSingleModelFolder,
  locateModel,
  type ModelDtype,
  type ModelLocation,
  readHiddenSize,
} from "./model-files.js";

export interface LocalEmbeddingOptions {
  /** Hugging Face id (or a known model's short name). Default: the folder's name when `modelDir` holds one model, else multilingual-e5-small. */
  model?: string;
  /** A folder holding the model's files, or a folder of `<org>/<name>/` model folders. */
  modelDir?: string;
  /** Where downloads go (and are found again). Default `defaultModelCacheDir()`. */
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
  /** Needed only for a model docdb does not know that is not on disk yet. */
  dimensions?: number;
  prefixes?: Prefixes;
  pooling?: Pooling;
  /** Intra-op threads for onnxruntime. Default: every core. */
  threads?: number;
  /** Most texts per forward pass; texts of similar length are grouped so little padding is wasted. Default 16. */
  passSize?: number;
  /**
   * Most characters per forward pass, counting each text as long as the pass's longest (the
   * padding). Short texts batch well; long ones run a few at a time, which measured faster on
   * CPU. Default 2048.
   */
  passChars?: number;
  /** Texts per `embed` call (what `embedMany` sends at once). Default 64. */
  maxBatchSize?: number;
  /** Free the loaded model after this long without use; 0 keeps it. Default 10 minutes. */
  idleUnloadMs?: number;
  /** After a failed load, calls fail at once with the same error for this long. Default 60 s. */
  retryLoadAfterMs?: number;
  /** Download progress; default a line on stderr. */
  onDownloadProgress?: (progress: DownloadProgress) => void;
}

type Transformers = typeof import("@huggingface/transformers");

/**
 * Embeddings computed on this machine with an ONNX model (transformers.js on onnxruntime-node,
 * CPU). Nothing is loaded until the first `embed`; the model then stays in memory until it has
 * been idle for `idleUnloadMs`. Vectors are mean- (or CLS-) pooled and L2-normalised.
 */
export class LocalEmbeddingModel implements EmbeddingModel {
  readonly provider = "local";
  readonly modelId: string;
  readonly dimensions: number;
  readonly maxBatchSize: number;
  readonly supportsParallelCalls = false;
  readonly prefixes: Prefixes;
  readonly pooling: Pooling;
  private readonly options: LocalEmbeddingOptions;
  private readonly modelDir: string | undefined;
  private readonly cacheDir: string;
  private readonly hubCacheDir: string | undefined;
  private readonly passSize: number;
  private readonly passChars: number;
  private extractor: FeatureExtractionPipeline | undefined;
  private loading: Promise<FeatureExtractionPipeline> | undefined;
  private failure: { error: EmbeddingError; at: number } | undefined;
  private queue: Promise<unknown> = Promise.resolve();
  private idleTimer: NodeJS.Timeout | undefined;

  constructor(options: LocalEmbeddingOptions = {}) {
    this.options = options;
    this.modelDir = options.modelDir ? resolve(options.modelDir) : undefined;
    this.cacheDir = resolve(options.cacheDir ?? defaultModelCacheDir());
    this.hubCacheDir = options.hubCacheDir === false ? undefined : (options.hubCacheDir ?? huggingFaceHubCacheDir());
    const named = options.model?.trim() || undefined;
    const singleFolder = this.modelDir && isSingleModelFolder(this.modelDir) ? this.modelDir : undefined;
    const wanted = named ?? (singleFolder ? folderModelName(singleFolder) : DEFAULT_LOCAL_MODEL);
    const known = findKnownLocalModel(wanted);
    this.modelId = known?.id ?? wanted;
    this.prefixes = options.prefixes ?? known?.prefixes ?? { query: "", document: "" };
    this.pooling = options.pooling ?? known?.pooling ?? "mean";
    const location = this.locate();
    const dimensions = options.dimensions ?? (location ? readHiddenSize(location.dir) : undefined) ?? known?.dimensions;
    if (dimensions === undefined) {
      throw new EmbeddingError(
        `unknown local model "${this.modelId}": docdb cannot tell its dimensions before it is on disk. ` +
          "Put its files in DOCDB_MODEL_DIR (config.json gives the size), set DOCDB_EMBEDDING_DIMENSIONS, or pick a model from `docdb models`",
        { provider: this.provider, retryable: false },
      );
    }
    this.dimensions = dimensions;
    this.maxBatchSize = Math.max(1, options.maxBatchSize ?? 64);
    this.passSize = Math.max(1, options.passSize ?? 16);
    this.passChars = Math.max(1, options.passChars ?? 2048);
  }

  /** Whether the model is in memory now. */
  get loaded(): boolean {
    return this.extractor !== undefined;
  }

  /** Where the model's files are on disk, if they are. */
  /**
   * Whether the model could load, without loading it: on disk, or its hub answers (a quick
   * HEAD request). `problem` says why not, in short.
   */
  async probe(): Promise<{ ready: boolean; problem?: string; note?: string }> {
    const { onDisk, canDownload } = this.availability();
    if (onDisk) return { ready: true };
    if (!canDownload) return { ready: false, problem: `it is not on this machine and downloads are off (see \`docdb models\`)` };
    const host = (this.options.remoteHost ?? "https://huggingface.co").replace(/\/+$/, "");
    try {
      await this.checkReachable(host);
      return { ready: true, note: "not on this machine yet: downloaded on first use" };
    } catch (error) {
      const reason = /is not available: (.*?)\. Ways out/.exec((error as Error).message)?.[1] ?? (error as Error).message;
      return { ready: false, problem: `${reason} (see \`docdb models\`)` };
    }
  }

  /** Whether the model can be used without loading it: on disk, or downloadable on first use. */
  availability(): { onDisk: boolean; canDownload: boolean } {
    return { onDisk: this.locate() !== undefined, canDownload: !this.modelDir && this.options.allowDownload !== false };
  }

  locate(): ModelLocation | undefined {
    return locateModel(this.modelId, {
      modelDir: this.modelDir,
      cacheDir: this.cacheDir,
      hubCacheDir: this.hubCacheDir,
      dtype: this.options.dtype,
    });
  }

  async embed(texts: string[], options: EmbedOptions): Promise<Float32Array[]> {
    if (texts.length === 0) return [];
    return this.exclusive(async () => {
      const extractor = await this.ready();
      try {
        return await this.run(extractor, texts, options);
      } catch (error) {
        if (options.signal?.aborted || EmbeddingError.isInstance(error)) throw error;
        throw new EmbeddingError(`local model ${this.modelId} failed: ${(error as Error).message}`, {
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

  /** Longest texts first, in passes of similar length, results put back in input order. */
  private async run(extractor: FeatureExtractionPipeline, texts: string[], options: EmbedOptions): Promise<Float32Array[]> {
    const inputs = texts.map((text) => withPrefix(this.prefixes, options.kind, text));
    const order = inputs.map((_, i) => i).sort((a, b) => (inputs[b] as string).length - (inputs[a] as string).length || a - b);
    const vectors: Float32Array[] = new Array(texts.length);
    for (let start = 0; start < order.length; ) {
      options.signal?.throwIfAborted();
      // The first text of a pass is its longest: every other one is padded to its length.
      const longest = Math.max(1, (inputs[order[start] as number] as string).length);
      const size = Math.max(1, Math.min(this.passSize, Math.floor(this.passChars / longest)));
      const pass = order.slice(start, start + size);
      start += pass.length;
      const output = await extractor(
        pass.map((i) => inputs[i] as string),
        { pooling: this.pooling, normalize: true },
      );
      const width = output.dims[1] as number;
      if (width !== this.dimensions) {
        throw new EmbeddingError(
          `local model ${this.modelId} makes ${width}-dimension vectors, but ${this.dimensions} were expected (check DOCDB_EMBEDDING_DIMENSIONS and the model folder)`,
          { provider: this.provider, retryable: false },
        );
      }
      const data = output.data as Float32Array;
      pass.forEach((original, row) => {
        vectors[original] = data.slice(row * width, (row + 1) * width);
      });
      output.dispose();
    }
    return vectors;
  }

  private exclusive<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.queue.then(fn, fn);
    this.queue = run.catch(() => undefined);
    return run;
  }

  private ready(): Promise<FeatureExtractionPipeline> {
    if (this.extractor) return Promise.resolve(this.extractor);
    const retryAfter = this.options.retryLoadAfterMs ?? 60_000;
    // A model that just failed to load fails again at once, so a burst of inserts is not slowed by retries.
    if (this.failure && Date.now() - this.failure.at < retryAfter) return Promise.reject(this.failure.error);
    this.loading ??= serialisedLoad(() => this.load())
      .then((extractor) => {
        this.extractor = extractor;
        this.failure = undefined;
        return extractor;
      })
      .catch((error: unknown) => {
        const failure = EmbeddingError.isInstance(error)
          ? error
          : new EmbeddingError(`cannot load local model ${this.modelId}: ${(error as Error).message}`, {
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

  private async load(): Promise<FeatureExtractionPipeline> {
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

  private sessionOptions() {
    return onnxSessionOptions(this.options.threads);
  }

  private async loadFolder(transformers: Transformers, location: ModelLocation): Promise<FeatureExtractionPipeline> {
    transformers.env.allowLocalModels = true;
    transformers.env.allowRemoteModels = false;
    try {
      return await transformers.pipeline("feature-extraction", location.dir, {
        dtype: location.dtype,
        device: "cpu",
        local_files_only: true,
        session_options: this.sessionOptions(),
      });
    } catch (error) {
      throw new EmbeddingError(`cannot load the model in ${location.dir}: ${(error as Error).message}`, {
        provider: this.provider,
        retryable: false,
        cause: error,
      });
    }
  }

  private async download(transformers: Transformers): Promise<FeatureExtractionPipeline> {
    const host = (this.options.remoteHost ?? "https://huggingface.co").replace(/\/+$/, "");
    await this.checkReachable(host);
    transformers.env.allowLocalModels = false;
    transformers.env.allowRemoteModels = true;
    transformers.env.remoteHost = `${host}/`;
    const report = this.options.onDownloadProgress ?? stderrDownloadProgress();
    try {
      return await transformers.pipeline("feature-extraction", this.modelId, {
        dtype: this.options.dtype === "fp32" ? "fp32" : "q8",
        device: "cpu",
        cache_dir: this.cacheDir,
        session_options: this.sessionOptions(),
        progress_callback: downloadProgressCallback(this.modelId, report),
      });
    } catch (error) {
      throw this.unavailable(`downloading it from ${host} failed (${(error as Error).message})`, error);
    } finally {
      transformers.env.allowRemoteModels = false;
    }
  }

  /** A quick HEAD request first, so an offline machine fails in seconds instead of hanging in a download. */
  private checkReachable(host: string): Promise<void> {
    return checkModelReachable(host, this.modelId, this.options.connectTimeoutMs ?? 3000, (reason, cause) =>
      this.unavailable(reason, cause),
    );
  }

  private unavailable(reason: string, cause?: unknown): EmbeddingError {
    return new EmbeddingError(
      `local embedding model ${this.modelId} is not available: ${reason}. Ways out: ` +
        `(1) put the model's files in a folder and set DOCDB_MODEL_DIR to it (\`docdb models\` shows what is expected); ` +
        `(2) run once with internet access, and it downloads to ${this.cacheDir} on first use; ` +
        "(3) set OPENAI_API_KEY to embed with OpenAI instead",
      { provider: this.provider, retryable: false, cause },
    );
  }

  private scheduleUnload(): void {
    const idle = this.options.idleUnloadMs ?? 10 * 60_000;
    if (idle <= 0) return;
    clearTimeout(this.idleTimer);
    this.idleTimer = setTimeout(() => void this.exclusive(() => this.unload()), idle);
    // An idle timer must not keep a finished CLI process alive.
    this.idleTimer.unref();
  }

  private async unload(): Promise<void> {
    const extractor = this.extractor;
    this.extractor = undefined;
    await extractor?.dispose();
  }
}
