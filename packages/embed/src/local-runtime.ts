import { availableParallelism } from "node:os";
import { resolve } from "node:path";
import { type DownloadProgress, stderrDownloadProgress } from "./download-progress.js";
import { EmbeddingError } from "./errors.js";
import {
  defaultModelCacheDir,
  folderModelName,
  huggingFaceHubCacheDir,
  isSingleModelFolder,
  locateModel,
  type ModelDtype,
  type ModelLocation,
} from "./model-files.js";
import { importTransformers, type LoadOptions, type OnnxSessionOptions, type TransformersRuntime } from "./transformers-runtime.js";

/**
 * What the local embedding model and the local reranker share: both run on transformers.js,
 * whose settings live in one global `env`, so every load (folder or download) goes through one
 * queue; the same session options; the same quick reachability check before a download.
 */

let loadChain: Promise<unknown> = Promise.resolve();

/** Runs `fn` after every load queued before it (transformers.js keeps its settings in one global `env`). */
export function serialisedLoad<T>(fn: () => Promise<T>): Promise<T> {
  const run = loadChain.then(fn, fn);
  loadChain = run.catch(() => undefined);
  return run;
}

export function onnxSessionOptions(threads: number | undefined): OnnxSessionOptions {
  return { intraOpNumThreads: threads ?? availableParallelism(), interOpNumThreads: 1, logSeverityLevel: 3 as const };
}

/**
 * A quick HEAD request before a download, so an offline machine fails in seconds instead of
 * hanging. Throws what `unavailable(reason)` makes.
 */
export async function checkModelReachable(
  host: string,
  modelId: string,
  timeoutMs: number,
  unavailable: (reason: string, cause?: unknown) => Error,
): Promise<void> {
  const url = `${host}/${modelId}/resolve/main/config.json`;
  let status: number;
  try {
    const response = await fetch(url, { method: "HEAD", signal: AbortSignal.timeout(timeoutMs) });
    status = response.status;
  } catch (error) {
    const cause = (error as { cause?: { code?: string } }).cause?.code;
    const why = (error as Error).name === "TimeoutError" ? "no answer in time" : (cause ?? (error as Error).message);
    throw unavailable(`it is not on disk and ${host} cannot be reached to download it (${why})`, error);
  }
  if (status === 401 || status === 403 || status === 404) {
    throw unavailable(`${host} has no model "${modelId}" (HTTP ${status}); check the name`);
  }
  if (status >= 400) throw unavailable(`${host} answered HTTP ${status} when asked for it`);
}

/** A transformers.js `progress_callback` that reports per-file download progress. */
export function downloadProgressCallback(modelId: string, report: (progress: DownloadProgress) => void) {
  const sizes = new Map<string, { loaded: number; total: number }>();
  return (event: { status: string; file?: string; loaded?: number; total?: number }) => {
    if (event.status === "progress" && event.file !== undefined) {
      const size = { loaded: event.loaded ?? 0, total: event.total ?? 0 };
      sizes.set(event.file, size);
      report({ model: modelId, file: event.file, ...size, done: false });
    } else if (event.status === "done" && event.file !== undefined && sizes.has(event.file)) {
      const size = sizes.get(event.file) ?? { loaded: 0, total: 0 };
      report({ model: modelId, file: event.file, ...size, done: true });
    }
  };
}

/** Where a local model comes from and how it runs: what the embedding model and the reranker share. */
export interface LocalModelSourceOptions {
  /** A folder holding the model's files, or a folder of `<org>/<name>/` model folders. */
  modelDir?: string;
  /** Where downloads go (and are found again). Default `defaultModelCacheDir()` (no environment: the caller passes the configured folder). */
  cacheDir?: string;
  /** Also look in the Hugging Face hub cache (read only). Default `huggingFaceHubCacheDir()` (no environment: the caller passes it); `false` to skip. */
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
  /** Free the loaded model after this long without use; 0 keeps it. Default 10 minutes. */
  idleUnloadMs?: number;
  /** After a failed load, calls fail at once with the same error for this long. Default 60 s. */
  retryLoadAfterMs?: number;
  /** Download progress; default a line on stderr. */
  onDownloadProgress?: (progress: DownloadProgress) => void;
}

/** How a subclass builds its model from transformers.js: from a folder, or from the hub into the cache. */
export interface LoadSource {
  /** A folder path (`local_files_only`) or a hub id (downloaded into `cache_dir`). */
  from: string;
  options: LoadOptions;
}

/**
 * A model run on this machine through transformers.js: found in a folder, docdb's cache or the
 * Hugging Face cache, or downloaded on first use; loaded lazily, one call at a time, unloaded
 * after being idle; a failed load fails fast for a while. Subclasses say how to build the model
 * (`build`), free it (`dispose`) and what to tell a person when it is missing (`unavailable`).
 */
export abstract class LocalOnnxModel<Loaded> {
  readonly provider = "local";
  readonly modelId: string;
  protected readonly modelDir: string | undefined;
  protected readonly cacheDir: string;
  private readonly hubCacheDir: string | undefined;
  private current: Loaded | undefined;
  private loading: Promise<Loaded> | undefined;
  private failure: { error: EmbeddingError; at: number } | undefined;
  private queue: Promise<unknown> = Promise.resolve();
  private idleTimer: NodeJS.Timeout | undefined;

  /**
   * @param name the model asked for (a hub id), if any
   * @param resolveId turns the wanted name (asked for, else the folder's model, else `fallback`) into the id used
   */
  constructor(
    protected readonly source: LocalModelSourceOptions,
    name: string | undefined,
    fallback: string,
    resolveId: (wanted: string) => string = (wanted) => wanted,
  ) {
    this.modelDir = source.modelDir ? resolve(source.modelDir) : undefined;
    this.cacheDir = resolve(source.cacheDir ?? defaultModelCacheDir());
    this.hubCacheDir = source.hubCacheDir === false ? undefined : (source.hubCacheDir ?? huggingFaceHubCacheDir());
    const named = name?.trim() || undefined;
    const singleFolder = this.modelDir && isSingleModelFolder(this.modelDir) ? this.modelDir : undefined;
    this.modelId = resolveId(named ?? (singleFolder ? folderModelName(singleFolder) : fallback));
  }

  /** What this is, in messages: "local model", "local reranker". */
  protected abstract readonly label: string;
  /** Builds the model with transformers.js (`from` is a folder or a hub id). */
  protected abstract build(transformers: TransformersRuntime, source: LoadSource): Promise<Loaded>;
  protected abstract dispose(loaded: Loaded): Promise<void>;
  /** The error for a model that is not there, with the ways out. */
  protected abstract unavailable(reason: string, cause?: unknown): EmbeddingError;

  /** Whether the model is in memory now. */
  get loaded(): boolean {
    return this.current !== undefined;
  }

  /** Where the model's files are on disk, if they are. */
  locate(): ModelLocation | undefined {
    return locateModel(this.modelId, {
      modelDir: this.modelDir,
      cacheDir: this.cacheDir,
      hubCacheDir: this.hubCacheDir,
      dtype: this.source.dtype,
    });
  }

  /** Whether the model can be used without loading it: on disk, or downloadable on first use. */
  availability(): { onDisk: boolean; canDownload: boolean } {
    return { onDisk: this.locate() !== undefined, canDownload: !this.modelDir && this.source.allowDownload !== false };
  }

  async close(): Promise<void> {
    clearTimeout(this.idleTimer);
    await this.exclusive(() => this.unload());
  }

  /** Runs `work` on the loaded model, one call at a time; its failures become `EmbeddingError`s. */
  protected use<T>(work: (loaded: Loaded) => Promise<T>, signal?: AbortSignal): Promise<T> {
    return this.exclusive(async () => {
      const loaded = await this.ready();
      try {
        return await work(loaded);
      } catch (error) {
        if (signal?.aborted || EmbeddingError.isInstance(error)) throw error;
        throw new EmbeddingError(`${this.label} ${this.modelId} failed: ${(error as Error).message}`, {
          provider: this.provider,
          retryable: false,
          cause: error,
        });
      } finally {
        this.scheduleUnload();
      }
    });
  }

  /** A quick HEAD request first, so an offline machine fails in seconds instead of hanging in a download. */
  protected checkReachable(host: string): Promise<void> {
    return checkModelReachable(host, this.modelId, this.source.connectTimeoutMs ?? 3000, (reason, cause) =>
      this.unavailable(reason, cause),
    );
  }

  protected remoteHost(): string {
    return (this.source.remoteHost ?? "https://huggingface.co").replace(/\/+$/, "");
  }

  private exclusive<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.queue.then(fn, fn);
    this.queue = run.catch(() => undefined);
    return run;
  }

  private ready(): Promise<Loaded> {
    if (this.current !== undefined) return Promise.resolve(this.current);
    const retryAfter = this.source.retryLoadAfterMs ?? 60_000;
    // A model that just failed to load fails again at once, so a burst of calls is not slowed by retries.
    if (this.failure && Date.now() - this.failure.at < retryAfter) return Promise.reject(this.failure.error);
    this.loading ??= serialisedLoad(() => this.load())
      .then((loaded) => {
        this.current = loaded;
        this.failure = undefined;
        return loaded;
      })
      .catch((error: unknown) => {
        const failure = EmbeddingError.isInstance(error)
          ? error
          : new EmbeddingError(`cannot load ${this.label} ${this.modelId}: ${(error as Error).message}`, {
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
      if (this.source.allowDownload === false) throw this.unavailable(`it is not in ${this.cacheDir} and downloads are turned off`);
    }
    const transformers = await importTransformers();
    transformers.env.backends.onnx.logLevel = "error";
    return location ? this.loadFolder(transformers, location) : this.download(transformers);
  }

  private async loadFolder(transformers: TransformersRuntime, location: ModelLocation): Promise<Loaded> {
    transformers.env.allowLocalModels = true;
    transformers.env.allowRemoteModels = false;
    try {
      return await this.build(transformers, {
        from: location.dir,
        options: {
          dtype: location.dtype,
          device: "cpu",
          local_files_only: true,
          session_options: onnxSessionOptions(this.source.threads),
        },
      });
    } catch (error) {
      throw new EmbeddingError(`cannot load the ${this.label} in ${location.dir}: ${(error as Error).message}`, {
        provider: this.provider,
        retryable: false,
        cause: error,
      });
    }
  }

  private async download(transformers: TransformersRuntime): Promise<Loaded> {
    const host = this.remoteHost();
    await this.checkReachable(host);
    transformers.env.allowLocalModels = false;
    transformers.env.allowRemoteModels = true;
    transformers.env.remoteHost = `${host}/`;
    const report = this.source.onDownloadProgress ?? stderrDownloadProgress();
    try {
      return await this.build(transformers, {
        from: this.modelId,
        options: {
          dtype: this.source.dtype === "fp32" ? "fp32" : "q8",
          device: "cpu",
          cache_dir: this.cacheDir,
          session_options: onnxSessionOptions(this.source.threads),
          progress_callback: downloadProgressCallback(this.modelId, report),
        },
      });
    } catch (error) {
      throw this.unavailable(`downloading it from ${host} failed (${(error as Error).message})`, error);
    } finally {
      transformers.env.allowRemoteModels = false;
    }
  }

  private scheduleUnload(): void {
    const idle = this.source.idleUnloadMs ?? 10 * 60_000;
    if (idle <= 0) return;
    clearTimeout(this.idleTimer);
    this.idleTimer = setTimeout(() => void this.exclusive(() => this.unload()), idle);
    // An idle timer must not keep a finished CLI process alive.
    this.idleTimer.unref();
  }

  private async unload(): Promise<void> {
    const loaded = this.current;
    this.current = undefined;
    if (loaded !== undefined) await this.dispose(loaded);
  }
}
