import { EmbeddingError } from "./errors.js";
import { type LoadSource, type LocalModelSourceOptions, LocalOnnxModel } from "./local-runtime.js";
import { type Reranker, type RerankOptions, sigmoid } from "./reranker.js";
import type { PairTokenizer, SequenceClassifier, TensorLike, TransformersRuntime } from "./transformers-runtime.js";

/**
 * The default local reranker: BAAI's bge-reranker-base as an ONNX export (XLM-RoBERTa base,
 * ~280 MB fp32 / ~280 MB quantized download). Its tokenizer covers ~100 languages; it was
 * trained on Chinese and English. For stronger Japanese and other languages pick a
 * bge-reranker-v2-m3 ONNX export with DOCDB_RERANKER_MODEL.
 */
export const DEFAULT_LOCAL_RERANKER = "Xenova/bge-reranker-base";

export interface LocalRerankerOptions extends LocalModelSourceOptions {
  /** Hugging Face id. Default: the folder's name when `modelDir` holds one model, else DEFAULT_LOCAL_RERANKER. */
  model?: string;
  /** Most (query, passage) pairs per forward pass. Default 8. */
  passSize?: number;
  /** Longest input in tokens (query and passage together); longer passages are cut. Default 512. */
  maxLength?: number;
}

interface Loaded {
  tokenizer: PairTokenizer;
  model: SequenceClassifier;
}

/**
 * A cross-encoder reranker on this machine, through the same transformers.js runtime (and the
 * same folder / cache / download rules) as the local embedding model. Nothing is loaded until
 * the first `rerank`. Scores are the sigmoid of the model's logit (for a two-label model, the
 * softmax probability of the second label).
 */
export class LocalReranker extends LocalOnnxModel<Loaded> implements Reranker {
  protected readonly label = "local reranker";
  private readonly options: LocalRerankerOptions;

  constructor(options: LocalRerankerOptions = {}) {
    super(options, options.model, DEFAULT_LOCAL_RERANKER);
    this.options = options;
  }

  async rerank(query: string, documents: string[], options: RerankOptions = {}): Promise<number[]> {
    if (documents.length === 0) return [];
    return this.use((loaded) => this.score(loaded, query, documents, options), options.signal);
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
      const output = (await loaded.model(inputs)) as { logits: TensorLike };
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

  protected unavailable(reason: string, cause?: unknown): EmbeddingError {
    return new EmbeddingError(
      `local reranker model ${this.modelId} is not available: ${reason}. Ways out: ` +
        `(1) put the model's files in a folder and set DOCDB_RERANKER_MODEL_DIR to it (a cross-encoder exported to ONNX: config.json, tokenizer.json, tokenizer_config.json, onnx/model_quantized.onnx or onnx/model.onnx); ` +
        `(2) run once with internet access, and it downloads to ${this.cacheDir} on first use; ` +
        "(3) set DOCDB_RERANKER=cohere and DOCDB_RERANKER_URL to rerank through a rerank endpoint, or search without rerank",
      { provider: this.provider, retryable: false, cause },
    );
  }

  protected async build(transformers: TransformersRuntime, { from, options }: LoadSource): Promise<Loaded> {
    const tokenizer = await transformers.AutoTokenizer.from_pretrained(from, {
      ...(options.local_files_only ? { local_files_only: true } : {}),
      ...(options.cache_dir ? { cache_dir: options.cache_dir, progress_callback: options.progress_callback } : {}),
    });
    const model = await transformers.AutoModelForSequenceClassification.from_pretrained(from, options);
    return { tokenizer, model };
  }

  protected async dispose(loaded: Loaded): Promise<void> {
    await loaded.model.dispose();
  }
}
