import { sleep } from "./embed-many.js";
import { EmbeddingError, isRetryableStatus, parseRetryAfter } from "./errors.js";
import { type Reranker, type RerankOptions, sigmoid } from "./reranker.js";

export const DEFAULT_HTTP_RERANK_MODEL = "rerank-v3.5";

export interface HttpRerankerOptions {
  /**
   * The endpoint: a base URL such as `https://api.cohere.com/v1` (`/rerank` is added) or the full
   * `…/rerank` URL. Any server speaking Cohere's rerank wire format works (Cohere, Jina, vLLM,
   * text-embeddings-inference behind a compatible route, …).
   */
  url: string;
  /** Sent as `Authorization: Bearer <key>` when given. */
  apiKey?: string;
  /** Default `rerank-v3.5` (Cohere's multilingual reranker). */
  model?: string;
  /** Per-request timeout. Default 30 s. */
  timeoutMs?: number;
  /** Attempts for a retryable failure (429, 5xx, network). Default 3. */
  maxAttempts?: number;
}

interface RerankResponse {
  results?: { index?: unknown; relevance_score?: unknown }[];
}

/**
 * Reranking through a Cohere-style endpoint: `POST {model, query, documents, top_n}` answered by
 * `{results: [{index, relevance_score}]}`. Scores within 0–1 (Cohere's) are used as they are;
 * when any falls outside, every score goes through a sigmoid (servers that return logits).
 */
export class HttpReranker implements Reranker {
  readonly provider = "cohere";
  readonly modelId: string;
  private readonly url: string;

  constructor(private readonly options: HttpRerankerOptions) {
    if (typeof options.url !== "string" || options.url.trim() === "") {
      throw new EmbeddingError("the rerank endpoint needs a URL: set DOCDB_RERANKER_URL (e.g. https://api.cohere.com/v1)", {
        provider: "cohere",
        retryable: false,
      });
    }
    const base = options.url.trim().replace(/\/+$/, "");
    this.url = /\/rerank$/.test(base) ? base : `${base}/rerank`;
    this.modelId = options.model?.trim() || DEFAULT_HTTP_RERANK_MODEL;
  }

  async rerank(query: string, documents: string[], options: RerankOptions = {}): Promise<number[]> {
    if (documents.length === 0) return [];
    const attempts = Math.max(1, this.options.maxAttempts ?? 3);
    let last: EmbeddingError | undefined;
    for (let attempt = 1; attempt <= attempts; attempt++) {
      options.signal?.throwIfAborted();
      try {
        return await this.call(query, documents, options);
      } catch (error) {
        if (!EmbeddingError.isInstance(error) || !error.retryable || attempt === attempts) throw error;
        last = error;
        const delay = Math.min(error.retryAfterMs ?? 250 * 2 ** (attempt - 1), 5000);
        await sleep(delay, options.signal);
      }
    }
    throw last as EmbeddingError;
  }

  private async call(query: string, documents: string[], options: RerankOptions): Promise<number[]> {
    const signals = [AbortSignal.timeout(this.options.timeoutMs ?? 30_000), ...(options.signal ? [options.signal] : [])];
    let response: Response;
    try {
      response = await fetch(this.url, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          accept: "application/json",
          ...(this.options.apiKey ? { authorization: `Bearer ${this.options.apiKey}` } : {}),
        },
        body: JSON.stringify({ model: this.modelId, query, documents, top_n: documents.length }),
        signal: AbortSignal.any(signals),
      });
    } catch (error) {
      if (options.signal?.aborted) throw error;
      const cause = (error as { cause?: { code?: string } }).cause?.code;
      const why = (error as Error).name === "TimeoutError" ? "no answer in time" : (cause ?? (error as Error).message);
      throw new EmbeddingError(`rerank endpoint ${this.url} cannot be reached (${why})`, {
        provider: this.provider,
        retryable: true,
        cause: error,
      });
    }
    let text: string;
    try {
      // Read under the same signal: a body that stalls after the headers times out too.
      text = await response.text();
    } catch (error) {
      if (options.signal?.aborted) throw error;
      throw new EmbeddingError(`rerank endpoint ${this.url} stopped sending its answer (${(error as Error).message})`, {
        provider: this.provider,
        retryable: true,
        cause: error,
      });
    }
    if (!response.ok) {
      let detail = text.slice(0, 300);
      try {
        const body = JSON.parse(text) as { message?: string; error?: { message?: string } | string };
        detail = body.message ?? (typeof body.error === "string" ? body.error : body.error?.message) ?? detail;
      } catch {
        // not JSON: keep the text
      }
      throw new EmbeddingError(`rerank endpoint ${this.url} answered HTTP ${response.status}: ${detail}`, {
        provider: this.provider,
        status: response.status,
        retryable: isRetryableStatus(response.status),
        retryAfterMs: parseRetryAfter(response.headers),
      });
    }
    let body: RerankResponse;
    try {
      body = JSON.parse(text) as RerankResponse;
    } catch {
      throw new EmbeddingError(`rerank endpoint ${this.url} did not answer JSON`, { provider: this.provider, retryable: false });
    }
    const scores = new Array<number>(documents.length).fill(Number.NaN);
    for (const result of body.results ?? []) {
      const { index, relevance_score } = result;
      if (
        typeof index === "number" &&
        Number.isInteger(index) &&
        index >= 0 &&
        index < documents.length &&
        typeof relevance_score === "number"
      ) {
        scores[index] = relevance_score;
      }
    }
    const missing = scores.filter((s) => !Number.isFinite(s)).length;
    if (missing > 0) {
      throw new EmbeddingError(
        `rerank endpoint ${this.url} scored ${documents.length - missing} of ${documents.length} documents: expected {results: [{index, relevance_score}]} for every one`,
        { provider: this.provider, retryable: false },
      );
    }
    const inRange = scores.every((s) => s >= 0 && s <= 1);
    return inRange ? scores : scores.map(sigmoid);
  }
}
