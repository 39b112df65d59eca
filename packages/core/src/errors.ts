import { StoreError } from "@docdb/store";

export type ErrorCode =
  | "INVALID_REQUEST"
  | "NOT_FOUND"
  | "CONFLICT"
  | "EMBEDDING_UNAVAILABLE"
  | "MODEL_MISMATCH"
  | "DIMENSION_MISMATCH"
  | "RERANKER_UNAVAILABLE"
  | "STORE_UNAVAILABLE"
  | "SAMPLING_UNAVAILABLE"
  | "INTERNAL";

export const ERROR_CODES: readonly ErrorCode[] = [
  "INVALID_REQUEST",
  "NOT_FOUND",
  "CONFLICT",
  "EMBEDDING_UNAVAILABLE",
  "MODEL_MISMATCH",
  "DIMENSION_MISMATCH",
  "RERANKER_UNAVAILABLE",
  "STORE_UNAVAILABLE",
  "SAMPLING_UNAVAILABLE",
  "INTERNAL",
];

const MARKER = Symbol.for("docdb.error");

/** The one error docdb throws: `code` says what kind, `message` what happened and what to do. */
export class DocDBError extends Error {
  readonly [MARKER] = true;
  readonly code: ErrorCode;
  /** Structured detail for callers that can use it (e.g. the merge groups of SAMPLING_UNAVAILABLE). */
  readonly details?: Record<string, unknown>;

  constructor(code: ErrorCode, message: string, options?: { cause?: unknown; details?: Record<string, unknown> }) {
    super(message, options);
    this.name = "DocDBError";
    this.code = code;
    if (options?.details !== undefined) this.details = options.details;
  }

  static isInstance(error: unknown): error is DocDBError {
    return typeof error === "object" && error !== null && MARKER in error;
  }

  toJSON(): { code: ErrorCode; message: string } {
    return { code: this.code, message: this.message };
  }
}

/**
 * An engine's error in core's words: StoreErrors keep their code (UNAVAILABLE, a server that
 * cannot be reached, becomes STORE_UNAVAILABLE); anything else passes through unchanged.
 */
export function fromStoreError(error: unknown): unknown {
  if (!StoreError.isInstance(error)) return error;
  const code: ErrorCode = error.code === "UNAVAILABLE" ? "STORE_UNAVAILABLE" : error.code;
  return new DocDBError(code, error.message, { cause: error });
}

/** Any thrown value as a DocDBError (unknown failures become INTERNAL). */
export function toDocDBError(error: unknown): DocDBError {
  if (DocDBError.isInstance(error)) return error;
  const message = error instanceof Error ? error.message : String(error);
  return new DocDBError("INTERNAL", `unexpected failure: ${message}`, { cause: error });
}
