import { EmbeddingError, isRetryableStatus, parseRetryAfter } from "./errors.js";
import type { Prefixes } from "./local-models.js";
import { withPrefix } from "./local-models.js";
import type { EmbeddingModel, EmbedOptions } from "./model.js";

export interface OllamaEmbeddingOptions {
  /** An embedding model pulled into Ollama. Default `bge-m3` (multilingual, 1024 dims). */
  model?: string;
  /** Default http://127.0.0.1:11434. */
  baseURL?: string;
  /** Needed for models not in the table below (see `ollama show MODEL`, "embedding length"). */
  dimensions?: number;
  prefixes?: Prefixes;
  /** Texts per request. Default 32. */
  maxBatchSize?: number;
  /** Per-request timeout; the first call also loads the model into Ollama. Default 120 s. */
  timeoutMs?: number;
  /** How long Ollama keeps the model loaded after a call (its `keep_alive`, e.g. "5m"). */
  keepAlive?: string;
}

export const DEFAULT_OLLAMA_URL = "http://127.0.0.1:11434";
export const DEFAULT_OLLAMA_MODEL = "bge-m3";

/** Embedding models in Ollama's library that docdb can size and prefix without asking. */
const KNOWN_OLLAMA_MODELS: Record<string, { dimensions: number; prefixes?: Prefixes }> = {
  "bge-m3": { dimensions: 1024 },
  "nomic-embed-text": { dimensions: 768, prefixes: { query: "search_query: ", document: "search_document: " } },
  "mxbai-embed-large": {
    dimensions: 1024,
    prefixes: { query: "Represent this sentence for searching relevant passages: ", document: "" },
  },
  "all-minilm": { dimensions: 384 },
};

/** Ollama's own names carry a tag (`bge-m3:latest`, `nomic-embed-text:v1.5`); the table is by name. */
function knownOllamaModel(model: string) {
  return KNOWN_OLLAMA_MODELS[model.split(":")[0]?.toLowerCase() ?? ""];
}

/** Embeddings from a local Ollama server through its `/api/embed` route. */
export class OllamaEmbeddingModel implements EmbeddingModel {
  readonly provider = "ollama";
  readonly modelId: string;
  readonly dimensions: number;
  readonly maxBatchSize: number;
  // One Ollama instance computes one batch at a time; parallel requests only queue there.
  readonly supportsParallelCalls = false;
  readonly baseURL: string;
  private readonly prefixes: Prefixes;
  private readonly timeoutMs: number;
  private readonly keepAlive: string | undefined;

  constructor(options: OllamaEmbeddingOptions = {}) {
    this.modelId = options.model?.trim() || DEFAULT_OLLAMA_MODEL;
    this.baseURL = normaliseBaseURL(options.baseURL ?? DEFAULT_OLLAMA_URL);
    const known = knownOllamaModel(this.modelId);
    const dimensions = options.dimensions ?? known?.dimensions;
    if (dimensions === undefined) {
      throw new EmbeddingError(
        `unknown dimensions for Ollama model "${this.modelId}": set DOCDB_EMBEDDING_DIMENSIONS to its "embedding length" (\`ollama show ${this.modelId}\`)`,
        { provider: this.provider, retryable: false },
      );
    }
    this.dimensions = dimensions;
    this.prefixes = options.prefixes ?? known?.prefixes ?? { query: "", document: "" };
    this.maxBatchSize = Math.max(1, options.maxBatchSize ?? 32);
    this.timeoutMs = options.timeoutMs ?? 120_000;
    this.keepAlive = options.keepAlive;
  }

  async embed(texts: string[], options: EmbedOptions): Promise<Float32Array[]> {
    if (texts.length === 0) return [];
    const url = `${this.baseURL}/api/embed`;
    const timeout = AbortSignal.timeout(this.timeoutMs);
    const signal = options.signal ? AbortSignal.any([options.signal, timeout]) : timeout;
    let response: Response;
    try {
      response = await fetch(url, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({
          model: this.modelId,
          input: texts.map((text) => withPrefix(this.prefixes, options.kind, text)),
          truncate: true,
          ...(this.keepAlive !== undefined ? { keep_alive: this.keepAlive } : {}),
        }),
        signal,
      });
    } catch (error) {
      throw this.connectionError(error, options.signal);
    }
    let body: string;
    try {
      // Read under the same signal, so a body that stalls after the headers times out too.
      body = await response.text();
    } catch (error) {
      throw this.connectionError(error, options.signal, "stopped sending its answer");
    }
    if (!response.ok) throw this.httpError(response, body);
    return this.parse(body, texts.length);
  }

  private parse(body: string, count: number): Float32Array[] {
    let embeddings: unknown;
    try {
      embeddings = (JSON.parse(body) as { embeddings?: unknown }).embeddings;
    } catch {
      embeddings = undefined;
    }
    if (!Array.isArray(embeddings) || embeddings.length !== count) {
      throw new EmbeddingError(
        `Ollama at ${this.baseURL} answered without ${count} embeddings (is "${this.modelId}" an embedding model?)`,
        // A malformed answer is retried like a 5xx.
        { provider: this.provider, retryable: true },
      );
    }
    return embeddings.map((vector: unknown, i) => {
      if (!Array.isArray(vector) || vector.length !== this.dimensions) {
        const got = Array.isArray(vector) ? `${vector.length} dimensions` : "no vector";
        throw new EmbeddingError(
          `Ollama model "${this.modelId}" returned ${got} for input ${i}, expected ${this.dimensions} (set DOCDB_EMBEDDING_DIMENSIONS to match the model)`,
          { provider: this.provider, retryable: false },
        );
      }
      return Float32Array.from(vector as number[]);
    });
  }

  private connectionError(error: unknown, callerSignal: AbortSignal | undefined, midAnswer?: string): EmbeddingError {
    if (callerSignal?.aborted) {
      return new EmbeddingError("the embedding request was aborted", { provider: this.provider, retryable: false, cause: error });
    }
    if ((error as Error).name === "TimeoutError") {
      const what = midAnswer ? `${midAnswer}: no complete answer` : "did not answer";
      return new EmbeddingError(`Ollama at ${this.baseURL} ${what} within ${this.timeoutMs} ms`, {
        provider: this.provider,
        retryable: true,
        cause: error,
      });
    }
    if (midAnswer) {
      return new EmbeddingError(`Ollama at ${this.baseURL} ${midAnswer} (${(error as Error).message})`, {
        provider: this.provider,
        retryable: true,
        cause: error,
      });
    }
    const code = (error as { cause?: { code?: string } }).cause?.code;
    // Nothing listening is not worth retrying: the server is not running, and inserts should not wait.
    const refused = code === "ECONNREFUSED" || code === "ENOTFOUND" || code === "EAI_AGAIN" || code === "EHOSTUNREACH";
    return new EmbeddingError(
      `cannot reach Ollama at ${this.baseURL} (${code ?? (error as Error).message}): start it with \`ollama serve\`, or point DOCDB_OLLAMA_URL at it`,
      { provider: this.provider, retryable: !refused, cause: error },
    );
  }

  private httpError(response: Response, body: string): EmbeddingError {
    let detail = body.slice(0, 300);
    try {
      const parsed = JSON.parse(body) as { error?: unknown };
      if (typeof parsed.error === "string") detail = parsed.error;
    } catch {
      // not JSON: keep the text
    }
    const missing = response.status === 404 && /not found/i.test(detail);
    const hint = missing ? `; pull it first: \`ollama pull ${this.modelId}\`` : "";
    return new EmbeddingError(`Ollama error ${response.status}: ${detail}${hint}`, {
      provider: this.provider,
      status: response.status,
      retryable: isRetryableStatus(response.status),
      retryAfterMs: parseRetryAfter(response.headers),
    });
  }
}

/** Accepts `host:port` as OLLAMA_HOST does, and drops trailing slashes. */
function normaliseBaseURL(url: string): string {
  const trimmed = url.trim().replace(/\/+$/, "");
  return /^https?:\/\//i.test(trimmed) ? trimmed : `http://${trimmed}`;
}
