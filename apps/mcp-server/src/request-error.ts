import { ErrorCode } from "@modelcontextprotocol/sdk/types.js";

/** Longest piece of caller input echoed back in an error message. */
const ECHO_LIMIT = 80;

/** Quotes a caller-supplied value for an error message without echoing megabytes back. */
export function quote(value: unknown): string {
  const text = typeof value === "string" ? value : String(value);
  return JSON.stringify(text.length > ECHO_LIMIT ? `${text.slice(0, ECHO_LIMIT)}…` : text);
}

/**
 * Thrown from a request handler to answer with a JSON-RPC error. The SDK copies `code`,
 * `message` and `data` onto the wire; `data.code` carries docdb's string code so agents and
 * scripts branch on the same codes as tool errors and the CLI. (McpError would prefix the
 * message with "MCP error -32602:", which clients then prefix again.)
 */
export class RequestError extends Error {
  readonly code: number;
  readonly data: { code: string; [key: string]: unknown };

  constructor(code: number, message: string, data: { code: string; [key: string]: unknown }) {
    super(message);
    this.name = "RequestError";
    this.code = code;
    this.data = data;
  }
}

/** A request the server cannot act on as sent: unknown tool or method, arguments that break the schema. */
export function invalidRequest(
  message: string,
  details: Record<string, unknown> = {},
  code: number = ErrorCode.InvalidParams,
): RequestError {
  return new RequestError(code, message, { code: "INVALID_REQUEST", ...details });
}
