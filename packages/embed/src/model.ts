export type EmbeddingKind = "query" | "document";

export interface EmbedOptions {
  /** Queries and documents may be embedded differently (e.g. e5's `query: ` / `passage: `). */
  kind: EmbeddingKind;
  signal?: AbortSignal;
}

/** One embedding model behind one provider. Implementations embed one batch per call. */
export interface EmbeddingModel {
  /** `openai`, `local`, `ollama`, … */
  readonly provider: string;
  readonly modelId: string;
  readonly dimensions: number;
  /** Most texts one `embed` call accepts. */
  readonly maxBatchSize: number;
  /** Whether several `embed` calls may run at once. */
  readonly supportsParallelCalls: boolean;
  embed(texts: string[], options: EmbedOptions): Promise<Float32Array[]>;
  /** Frees what the model holds (loaded weights, sockets). Optional. */
  close?(): Promise<void>;
}
