/** What went wrong, in the words core turns into its own error codes. */
export type StoreErrorCode = "NOT_FOUND" | "CONFLICT" | "INVALID_REQUEST" | "UNAVAILABLE" | "INTERNAL";

const MARKER = Symbol.for("docdb.StoreError");

/**
 * The one error engines throw on purpose: a missing database, a busy database past the wait
 * limit, a server that cannot be reached. Messages are for people and never hold a password.
 */
export class StoreError extends Error {
  override name = "StoreError";
  readonly [MARKER] = true;
  constructor(
    readonly code: StoreErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }

  static isInstance(error: unknown): error is StoreError {
    return typeof error === "object" && error !== null && (error as Record<symbol, unknown>)[MARKER] === true;
  }
}
