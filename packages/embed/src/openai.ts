import type OpenAI from "openai";
import { EmbeddingError, isRetryableStatus, parseRetryAfter } from "./errors.js";
import type { EmbeddingModel, EmbedOptions } from "./model.js";

export interface OpenAIEmbeddingOptions {
  apiKey?: string;
  /** For OpenAI-compatible servers. Default: the SDK's (`OPENAI_BASE_URL`, else OpenAI's own). */
  baseURL?: string;
  /** Default `text-embedding-3-small`. */
  model?: string;
  /** Output size. Default: the model's own (1536 for text-embedding-3-small). */
  dimensions?: number;
  /** Texts per request, at most 100 here by design. */
  maxBatchSize?: number;
  /** Per-request timeout in ms, the answer's body included. Default 60 s. */
  timeoutMs?: number;
}

const KNOWN_DIMENSIONS: Record<string, number> = {
  "text-embedding-3-small": 1536,
  "text-embedding-3-large": 3072,
  "text-embedding-ada-002": 1536,
};

/** Embeddings through the official `openai` SDK; retries are left to `embedMany`. */
export class OpenAIEmbeddingModel implements EmbeddingModel {
  readonly provider = "openai";
  readonly modelId: string;
  readonly dimensions: number;
  readonly maxBatchSize: number;
  readonly supportsParallelCalls = true;
  private client: OpenAI | undefined;
  private readonly clientOptions: ConstructorParameters<typeof OpenAI>[0];
  private readonly requestDimensions: number | undefined;
  private readonly timeoutMs: number;

  constructor(options: OpenAIEmbeddingOptions = {}) {
    this.modelId = options.model ?? "text-embedding-3-small";
    const dimensions = options.dimensions ?? KNOWN_DIMENSIONS[this.modelId];
    if (dimensions === undefined) {
      throw new EmbeddingError(`unknown dimensions for OpenAI model "${this.modelId}": set them explicitly`, {
        provider: this.provider,
        retryable: false,
      });
    }
    this.dimensions = dimensions;
    this.requestDimensions = options.dimensions !== undefined && this.modelId.startsWith("text-embedding-3") ? dimensions : undefined;
    this.maxBatchSize = Math.min(100, options.maxBatchSize ?? 100);
    this.timeoutMs = options.timeoutMs ?? 60_000;
    this.clientOptions = { apiKey: options.apiKey ?? "", baseURL: options.baseURL, maxRetries: 0, timeout: this.timeoutMs };
  }

  /** The SDK is imported on first use: it is a large module and many runs never embed. */
  private async getClient(): Promise<OpenAI> {
    if (!this.client) {
      const { default: OpenAISDK } = await import("openai");
      sdk = OpenAISDK;
      this.client = new OpenAISDK(this.clientOptions);
    }
    return this.client;
  }

  async embed(texts: string[], options: EmbedOptions): Promise<Float32Array[]> {
    // The SDK's own timeout ends when the headers arrive; this one also covers reading the body,
    // which the SDK does under the signal it is given.
    const timeout = AbortSignal.timeout(this.timeoutMs);
    const signal = options.signal ? AbortSignal.any([options.signal, timeout]) : timeout;
    try {
      const client = await this.getClient();
      const response = await client.embeddings.create(
        {
          model: this.modelId,
          input: texts,
          encoding_format: "float",
          ...(this.requestDimensions !== undefined ? { dimensions: this.requestDimensions } : {}),
        },
        { signal },
      );
      const vectors: Float32Array[] = new Array(texts.length);
      const data: unknown = (response as { data?: unknown }).data;
      if (!Array.isArray(data)) {
        throw new EmbeddingError("OpenAI answered without a data list (a malformed response)", {
          provider: this.provider,
          retryable: true,
        });
      }
      for (const item of data as { index?: unknown; embedding?: unknown }[]) {
        if (typeof item?.index !== "number" || !Array.isArray(item.embedding)) {
          throw new EmbeddingError("OpenAI answered with a malformed embedding item", { provider: this.provider, retryable: true });
        }
        vectors[item.index] = Float32Array.from(item.embedding as number[]);
      }
      for (let i = 0; i < texts.length; i++) {
        const vector = vectors[i];
        // A malformed answer is retried like a 5xx: the next one is usually whole.
        if (!vector) throw new EmbeddingError(`openai returned no embedding for input ${i}`, { provider: this.provider, retryable: true });
        if (vector.length !== this.dimensions) {
          throw new EmbeddingError(`openai returned ${vector.length} dimensions, expected ${this.dimensions} for ${this.modelId}`, {
            provider: this.provider,
            retryable: false,
          });
        }
      }
      return vectors;
    } catch (error) {
      if (timeout.aborted && !options.signal?.aborted) {
        throw new EmbeddingError(`the OpenAI request got no complete answer within ${this.timeoutMs} ms`, {
          provider: this.provider,
          retryable: true,
          cause: error,
        });
      }
      throw toEmbeddingError(error, this.provider);
    }
  }
}

let sdk: typeof OpenAI | undefined;

function toEmbeddingError(error: unknown, provider: string): EmbeddingError {
  if (EmbeddingError.isInstance(error)) return error;
  const OpenAI = sdk;
  if (!OpenAI) {
    const message = error instanceof Error ? error.message : String(error);
    return new EmbeddingError(`OpenAI embedding failed: ${message}`, { provider, retryable: false, cause: error });
  }
  if (error instanceof OpenAI.APIConnectionTimeoutError) {
    return new EmbeddingError("the OpenAI request timed out", { provider, retryable: true, cause: error });
  }
  if (error instanceof OpenAI.APIConnectionError) {
    return new EmbeddingError(`cannot reach the OpenAI API: ${error.message}`, { provider, retryable: true, cause: error });
  }
  if (error instanceof OpenAI.APIUserAbortError) {
    return new EmbeddingError("the embedding request was aborted", { provider, retryable: false, cause: error });
  }
  if (error instanceof OpenAI.APIError && typeof error.status === "number") {
    const hint = error.status === 401 ? " (check OPENAI_API_KEY)" : "";
    // The SDK's message starts with the status already ("429 Rate limit…"): say it once.
    const detail = error.message.replace(new RegExp(`^${error.status}\\s*`), "") || "no details";
    return new EmbeddingError(`OpenAI API error ${error.status}: ${detail}${hint}`, {
      provider,
      status: error.status,
      retryable: isRetryableStatus(error.status),
      retryAfterMs: parseRetryAfter(error.headers as { get(name: string): string | null } | undefined),
      cause: error,
    });
  }
  const message = error instanceof Error ? error.message : String(error);
  // Not an API error: the answer could not be read (invalid JSON, wrong shape). Retried like a 5xx.
  const malformed = error instanceof SyntaxError || error instanceof TypeError;
  return new EmbeddingError(`OpenAI embedding failed${malformed ? " (a malformed response)" : ""}: ${message}`, {
    provider,
    retryable: malformed,
    cause: error,
  });
}
