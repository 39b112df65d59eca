import { EmbeddingError } from "./errors.js";
import type { EmbeddingKind, EmbeddingModel } from "./model.js";

export interface EmbedManyOptions {
  kind: EmbeddingKind;
  signal?: AbortSignal;
  /** Batches in flight at once when the model allows parallel calls. Default 4. */
  concurrency?: number;
  /** Retries per batch after the first attempt. Default 4. */
  maxRetries?: number;
  /** First backoff delay in ms; doubles each retry, with jitter. Default 500. */
  initialDelayMs?: number;
  /** Longest wait between attempts, Retry-After included. Default 30 s. */
  maxDelayMs?: number;
  /** Called after each batch with the number of texts embedded so far. */
  onProgress?: (done: number, total: number) => void;
  /** Called before each retry, for logging. */
  onRetry?: (info: { attempt: number; delayMs: number; error: EmbeddingError }) => void;
  /** Called after each successful provider call, for logging. */
  onBatch?: (info: { size: number; ms: number }) => void;
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

function asEmbeddingError(error: unknown, provider: string): EmbeddingError {
  if (EmbeddingError.isInstance(error)) return error;
  const message = error instanceof Error ? error.message : String(error);
  return new EmbeddingError(message, { provider, retryable: false, cause: error });
}

/**
 * Embeds any number of texts: splits them into the model's batches, runs a bounded number
 * of batches at once, and retries retryable failures with exponential backoff and jitter,
 * honouring Retry-After. Results come back in input order.
 */
export async function embedMany(model: EmbeddingModel, texts: string[], options: EmbedManyOptions): Promise<Float32Array[]> {
  const batchSize = Math.max(1, model.maxBatchSize);
  const batches: { offset: number; texts: string[] }[] = [];
  for (let i = 0; i < texts.length; i += batchSize) batches.push({ offset: i, texts: texts.slice(i, i + batchSize) });
  const results: Float32Array[] = new Array(texts.length);
  const concurrency = model.supportsParallelCalls ? Math.max(1, options.concurrency ?? 4) : 1;
  const maxRetries = options.maxRetries ?? 4;
  const initialDelay = options.initialDelayMs ?? 500;
  const maxDelay = options.maxDelayMs ?? 30_000;
  let done = 0;
  let next = 0;

  const runBatch = async (batch: { offset: number; texts: string[] }) => {
    for (let attempt = 0; ; attempt++) {
      const started = performance.now();
      try {
        const vectors = await model.embed(batch.texts, { kind: options.kind, signal: options.signal });
        if (vectors.length !== batch.texts.length) {
          throw new EmbeddingError(`${model.provider} returned ${vectors.length} embeddings for ${batch.texts.length} texts`, {
            provider: model.provider,
            retryable: false,
          });
        }
        options.onBatch?.({ size: batch.texts.length, ms: performance.now() - started });
        vectors.forEach((vector, i) => {
          results[batch.offset + i] = vector;
        });
        return;
      } catch (raw) {
        if (options.signal?.aborted) throw options.signal.reason;
        const error = asEmbeddingError(raw, model.provider);
        if (!error.retryable || attempt >= maxRetries) throw error;
        const backoff = initialDelay * 2 ** attempt;
        const jittered = backoff / 2 + Math.random() * (backoff / 2);
        const delayMs = Math.min(maxDelay, Math.max(jittered, error.retryAfterMs ?? 0));
        options.onRetry?.({ attempt: attempt + 1, delayMs, error });
        await sleep(delayMs, options.signal);
      }
    }
  };

  const worker = async () => {
    while (next < batches.length) {
      const batch = batches[next++] as { offset: number; texts: string[] };
      await runBatch(batch);
      done += batch.texts.length;
      options.onProgress?.(done, texts.length);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, batches.length) }, worker));
  return results;
}
