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
  | "FORBIDDEN"
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
  "FORBIDDEN",
  "INTERNAL",
];

const MARKER = Symbol.for("docdb.error");

/** The most of a caller's value an error message repeats (see echo). */
export const ECHO_MAX_CHARS = 100;
/** The longest error message docdb gives: anything past it is cut (see DocDBError). */
export const MESSAGE_MAX_CHARS = 2000;

function clip(text: string, max: number): string {
  if (text.length <= max) return text;
  let end = max;
  // Never cut a surrogate pair in half.
  const code = text.charCodeAt(end - 1);
  if (code >= 0xd800 && code <= 0xdbff) end--;
  return `${text.slice(0, end)}… (${text.length} characters)`;
}

/**
 * A caller's value as an error message repeats it: strings as they are, anything else as JSON,
 * at most ECHO_MAX_CHARS characters and then "… (N characters)". Every message that repeats
 * user input (filter keys and values, names, ids, SQL) goes through this, so a 5 MB key comes
 * back as 100 characters, not 5 MB.
 */
export function echo(value: unknown, max = ECHO_MAX_CHARS): string {
  let text: string;
  if (typeof value === "string") text = value;
  else {
    try {
      text = JSON.stringify(value) ?? String(value);
    } catch {
      text = String(value);
    }
  }
  return clip(text, max);
}

/** The one error docdb throws: `code` says what kind, `message` what happened and what to do. */
export class DocDBError extends Error {
  readonly [MARKER] = true;
  readonly code: ErrorCode;
  /** Structured detail for callers that can use it (e.g. the merge groups of SAMPLING_UNAVAILABLE). */
  readonly details?: Record<string, unknown>;

  constructor(code: ErrorCode, message: string, options?: { cause?: unknown; details?: Record<string, unknown> }) {
    // A message is bounded whatever it repeats (an engine's error quoting a query, say).
    super(clip(message, MESSAGE_MAX_CHARS), options);
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
