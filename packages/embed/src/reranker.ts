export interface RerankOptions {
  signal?: AbortSignal;
}

/**
 * A cross-encoder that reads a query together with each candidate passage and scores how well
 * the passage answers it: slower than comparing vectors, so it reorders the top few candidates
 * a search found rather than searching itself.
 */
export interface Reranker {
  /** `local`, `cohere`, … */
  readonly provider: string;
  readonly modelId: string;
  /**
   * Relevance of each document to the query, 0 to 1 (higher is better), in the order the
   * documents were given. Local models: the sigmoid of the model's logit; endpoints: their
   * `relevance_score` (passed through when every score is within 0–1, else its sigmoid).
   */
  rerank(query: string, documents: string[], options?: RerankOptions): Promise<number[]>;
  /** Frees what the reranker holds (loaded weights). Optional. */
  close?(): Promise<void>;
}

export function sigmoid(x: number): number {
  return 1 / (1 + Math.exp(-x));
}
