import { EmbeddingError } from "./errors.js";
import { DEFAULT_LOCAL_MODEL, findKnownLocalModel, type Pooling, type Prefixes, withPrefix } from "./local-models.js";
import { type LoadSource, type LocalModelSourceOptions, LocalOnnxModel } from "./local-runtime.js";
import type { EmbeddingModel, EmbedOptions } from "./model.js";
import { readHiddenSize } from "./model-files.js";
import type { FeatureExtractor, TransformersRuntime } from "./transformers-runtime.js";

export interface LocalEmbeddingOptions extends LocalModelSourceOptions {
  /** Hugging Face id (or a known model's short name). Default: the folder's name when `modelDir` holds one model, else multilingual-e5-small. */
  model?: string;
  /** Needed only for a model docdb does not know that is not on disk yet. */
  dimensions?: number;
  prefixes?: Prefixes;
  pooling?: Pooling;
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
}

/**
 * Embeddings computed on this machine with an ONNX model (transformers.js on onnxruntime-node,
 * CPU). Nothing is loaded until the first `embed`; the model then stays in memory until it has
 * been idle for `idleUnloadMs`. Vectors are mean- (or CLS-) pooled and L2-normalised.
 */
export class LocalEmbeddingModel extends LocalOnnxModel<FeatureExtractor> implements EmbeddingModel {
  protected readonly label = "local model";
  readonly dimensions: number;
  readonly maxBatchSize: number;
  readonly supportsParallelCalls = false;
  readonly prefixes: Prefixes;
  readonly pooling: Pooling;
  private readonly passSize: number;
  private readonly passChars: number;

  constructor(options: LocalEmbeddingOptions = {}) {
    super(options, options.model, DEFAULT_LOCAL_MODEL, (wanted) => findKnownLocalModel(wanted)?.id ?? wanted);
    const known = findKnownLocalModel(this.modelId);
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

  /**
   * Whether the model could load, without loading it: on disk, or its hub answers (a quick
   * HEAD request). `problem` says why not, in short.
   */
  async probe(): Promise<{ ready: boolean; problem?: string; note?: string }> {
    const { onDisk, canDownload } = this.availability();
    if (onDisk) return { ready: true };
    if (!canDownload) return { ready: false, problem: `it is not on this machine and downloads are off (see \`docdb models\`)` };
    const host = this.remoteHost();
    try {
      await this.checkReachable(host);
      return { ready: true, note: "not on this machine yet: downloaded on first use" };
    } catch (error) {
      const reason = /is not available: (.*?)\. Ways out/.exec((error as Error).message)?.[1] ?? (error as Error).message;
      return { ready: false, problem: `${reason} (see \`docdb models\`)` };
    }
  }

  async embed(texts: string[], options: EmbedOptions): Promise<Float32Array[]> {
    if (texts.length === 0) return [];
    return this.use((extractor) => this.run(extractor, texts, options), options.signal);
  }

  /** Longest texts first, in passes of similar length, results put back in input order. */
  private async run(extractor: FeatureExtractor, texts: string[], options: EmbedOptions): Promise<Float32Array[]> {
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

  protected unavailable(reason: string, cause?: unknown): EmbeddingError {
    return new EmbeddingError(
      `local embedding model ${this.modelId} is not available: ${reason}. Ways out: ` +
        `(1) put the model's files in a folder and set DOCDB_MODEL_DIR to it (\`docdb models\` shows what is expected); ` +
        `(2) run once with internet access, and it downloads to ${this.cacheDir} on first use; ` +
        "(3) set OPENAI_API_KEY to embed with OpenAI instead",
      { provider: this.provider, retryable: false, cause },
    );
  }

  protected build(transformers: TransformersRuntime, { from, options }: LoadSource): Promise<FeatureExtractor> {
    return transformers.pipeline("feature-extraction", from, options);
  }

  protected async dispose(extractor: FeatureExtractor): Promise<void> {
    await extractor.dispose();
  }
}
