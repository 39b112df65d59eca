const MARKER = Symbol.for("docdb.embedding-error");

/** An embedding call that failed; `retryable` says whether trying again may help. */
export class EmbeddingError extends Error {
  readonly [MARKER] = true;
  readonly provider: string;
  readonly status: number | undefined;
  readonly retryable: boolean;
  /** Milliseconds the server asked us to wait (Retry-After), when it said. */
  readonly retryAfterMs: number | undefined;

  constructor(message: string, options: { provider: string; status?: number; retryable: boolean; retryAfterMs?: number; cause?: unknown }) {
    super(message, { cause: options.cause });
    this.name = "EmbeddingError";
    this.provider = options.provider;
    this.status = options.status;
    this.retryable = options.retryable;
    this.retryAfterMs = options.retryAfterMs;
  }

  static isInstance(error: unknown): error is EmbeddingError {
    return typeof error === "object" && error !== null && MARKER in error;
  }
}

/** 408, 409, 429 and every 5xx are worth retrying; other 4xx are the caller's mistake. */
export function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 409 || status === 429 || status >= 500;
}

/** Parses `retry-after-ms` or `Retry-After` (seconds or an HTTP date) into milliseconds. */
export function parseRetryAfter(headers: { get(name: string): string | null } | undefined): number | undefined {
  if (!headers) return undefined;
  const ms = headers.get("retry-after-ms");
  if (ms !== null && ms !== "" && Number.isFinite(Number(ms))) return Math.max(0, Number(ms));
  const value = headers.get("retry-after");
  if (value === null || value === "") return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(value);
  if (Number.isFinite(date)) return Math.max(0, date - Date.now());
  return undefined;
}
