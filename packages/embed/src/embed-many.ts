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
  /**
   * Overall deadline in ms, retries and waits included: past it, the call fails with a
   * retryable EmbeddingError (the provider may answer later) whether or not the provider
   * honours abort signals. Default none.
   */
  deadlineMs?: number;
  /**
   * The whole operation's deadline when `deadlineMs` is what is left of it: the error names this
   * one, so a person reads the deadline they configured. Default `deadlineMs`.
   */
  deadlineTotalMs?: number;
}

/** Waits `ms`, or rejects with the signal's reason as soon as it aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
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

/**
 * Rejects when `signal` aborts, with its reason, aborting `child` too (one listener for both);
 * `dispose` removes the listener.
 */
function whenAborted(signal: AbortSignal, child?: AbortController): { promise: Promise<never>; dispose(): void } {
  let onAbort: () => void = () => undefined;
  const promise = new Promise<never>((_, reject) => {
    onAbort = () => {
      child?.abort(signal.reason);
      reject(signal.reason);
    };
    if (signal.aborted) onAbort();
    else signal.addEventListener("abort", onAbort, { once: true });
  });
  promise.catch(() => undefined);
  return { promise, dispose: () => signal.removeEventListener("abort", onAbort) };
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
  options.signal?.throwIfAborted();

  // One signal for the whole call: the caller's abort or the deadline, whichever comes first.
  // Each attempt gets its own child signal, so providers that leave listeners on the signal
  // they are given (the openai SDK does, per request) never pile them up on the caller's. The
  // controller is made when first asked for (`callSignal`): a query whose provider never reads
  // its signal costs none (~10 µs of a find's CPU-cold path); one made after the call stopped
  // starts aborted.
  let overall: AbortController | undefined;
  let stop: { reason: unknown } | undefined;
  const callSignal = (): AbortSignal => {
    if (!overall) {
      overall = new AbortController();
      if (stop) overall.abort(stop.reason);
    }
    return overall.signal;
  };
  // Settles (rejects) when the call stops: a one-batch call races its attempts against it
  // without a listener per attempt (a query pays for no more than it needs).
  let rejectStopped: (reason: unknown) => void = () => undefined;
  const stoppedPromise = new Promise<never>((_, reject) => {
    rejectStopped = reject;
  });
  stoppedPromise.catch(() => undefined);
  const abortAll = (reason: unknown) => {
    if (stop) return;
    stop = { reason };
    overall?.abort(reason);
    rejectStopped(reason);
  };
  const onCallerAbort = () => abortAll(options.signal?.reason);
  options.signal?.addEventListener("abort", onCallerAbort, { once: true });
  const deadlineMs = options.deadlineMs;
  const timer =
    deadlineMs !== undefined
      ? setTimeout(
          () =>
            abortAll(
              new EmbeddingError(
                `${model.provider} did not answer within ${Math.round((options.deadlineTotalMs ?? deadlineMs) / 100) / 10} s`,
                {
                  provider: model.provider,
                  retryable: true,
                },
              ),
            ),
          deadlineMs,
        )
      : undefined;
  timer?.unref?.();

  // One batch (a query): the call's own signal is the attempt's, raced against `stoppedPromise`:
  // no listener and no second controller per query. More batches: a child controller per attempt.
  const oneBatch = batches.length === 1;
  const attemptOnce = (texts: string[]): Promise<Float32Array[]> => {
    if (!oneBatch) return attemptWithChild(texts);
    const embedOptions = {
      kind: options.kind,
      get signal() {
        return callSignal();
      },
    };
    try {
      return Promise.race([model.embed(texts, embedOptions), stoppedPromise]);
    } catch (error) {
      // A provider that throws at once fails its attempt like one that rejects.
      return Promise.reject(error);
    }
  };
  const attemptWithChild = async (texts: string[]): Promise<Float32Array[]> => {
    const attempt = new AbortController();
    const aborted = whenAborted(callSignal(), attempt);
    try {
      return await Promise.race([model.embed(texts, { kind: options.kind, signal: attempt.signal }), aborted.promise]);
    } finally {
      aborted.dispose();
    }
  };

  const runBatch = async (batch: { offset: number; texts: string[] }) => {
    for (let attempt = 0; ; attempt++) {
      const started = performance.now();
      try {
        if (stop) throw stop.reason;
        const vectors = await attemptOnce(batch.texts);
        if (!Array.isArray(vectors) || vectors.length !== batch.texts.length) {
          // A malformed answer is a provider fault, retried like a 5xx.
          throw new EmbeddingError(
            `${model.provider} returned ${Array.isArray(vectors) ? vectors.length : "no"} embeddings for ${batch.texts.length} texts`,
            { provider: model.provider, retryable: true },
          );
        }
        options.onBatch?.({ size: batch.texts.length, ms: performance.now() - started });
        vectors.forEach((vector, i) => {
          results[batch.offset + i] = vector;
        });
        return;
      } catch (raw) {
        if (options.signal?.aborted) throw options.signal.reason;
        if (stop) throw stop.reason;
        const error = asEmbeddingError(raw, model.provider);
        if (!error.retryable || attempt >= maxRetries) throw error;
        const backoff = initialDelay * 2 ** attempt;
        const jittered = backoff / 2 + Math.random() * (backoff / 2);
        const delayMs = Math.min(maxDelay, Math.max(jittered, error.retryAfterMs ?? 0));
        options.onRetry?.({ attempt: attempt + 1, delayMs, error });
        await sleep(delayMs, callSignal());
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
  try {
    if (oneBatch) {
      await runBatch(batches[0] as { offset: number; texts: string[] });
      options.onProgress?.(texts.length, texts.length);
    } else await Promise.all(Array.from({ length: Math.min(concurrency, batches.length) }, worker));
  } catch (error) {
    // A failed batch stops the others' calls and waits too (after a success none is left).
    abortAll(new Error("embedMany finished"));
    throw error;
  } finally {
    if (timer !== undefined) clearTimeout(timer);
    options.signal?.removeEventListener("abort", onCallerAbort);
  }
  return results;
}
