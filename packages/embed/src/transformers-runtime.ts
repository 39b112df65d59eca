import type { Pooling } from "./local-models.js";

/**
 * The few parts of transformers.js that docdb calls, typed here. The local model classes are
 * public, and their protected members show in this package's declarations: typed with
 * transformers.js's own types, every consumer would type-check those too, which needs
 * `skipLibCheck` (they name `Float16Array`, and some of their classes do not check). So the
 * declarations name only these; `load()` checks that the real module fits them
 * (`importTransformers`), so a transformers.js upgrade that changes them fails to compile here.
 */

/** A tensor, as far as docdb reads one. */
export interface TensorLike {
  dims: number[];
  data: ArrayLike<number | bigint> | ArrayLike<string> | ArrayLike<boolean>;
  dispose(): void;
}

/** transformers.js's session options, as docdb sets them. */
export interface OnnxSessionOptions {
  intraOpNumThreads: number;
  interOpNumThreads: number;
  logSeverityLevel: 3;
}

/** Where a model is loaded from and how (`pipeline` / `from_pretrained` options). */
export interface LoadOptions {
  dtype: "q8" | "fp32";
  device: "cpu";
  session_options: OnnxSessionOptions;
  local_files_only?: true;
  cache_dir?: string;
  progress_callback?: (event: { status: string; file?: string; loaded?: number; total?: number }) => void;
}

/** The feature-extraction pipeline: texts in, one pooled (and normalised) row per text out. */
export interface FeatureExtractor {
  (texts: string[], options: { pooling: Pooling; normalize: boolean }): Promise<TensorLike>;
  dispose(): Promise<void>;
}

/** A tokenizer called on (query, passage) pairs. */
export type PairTokenizer = (
  texts: string[],
  options: { text_pair: string[]; padding: boolean; truncation: boolean; max_length: number },
) => unknown;

/** A sequence-classification model: the tokenizer's output in, logits out. */
export interface SequenceClassifier {
  (inputs: unknown): Promise<unknown>;
  dispose(): Promise<unknown>;
}

/** The module, as far as docdb uses it. */
export interface TransformersRuntime {
  env: {
    allowLocalModels: boolean;
    allowRemoteModels: boolean;
    remoteHost: string;
    backends: { onnx: { logLevel?: "verbose" | "info" | "warning" | "error" | "fatal" } };
  };
  pipeline(task: "feature-extraction", model: string, options: LoadOptions): Promise<FeatureExtractor>;
  AutoTokenizer: {
    from_pretrained(
      model: string,
      options: { local_files_only?: boolean; cache_dir?: string; progress_callback?: LoadOptions["progress_callback"] },
    ): Promise<PairTokenizer>;
  };
  AutoModelForSequenceClassification: {
    from_pretrained(model: string, options: LoadOptions): Promise<SequenceClassifier>;
  };
}

/** transformers.js, loaded on first use (a large module that many runs never need). */
export async function importTransformers(): Promise<TransformersRuntime> {
  const transformers: TransformersRuntime = await import("@huggingface/transformers");
  return transformers;
}
