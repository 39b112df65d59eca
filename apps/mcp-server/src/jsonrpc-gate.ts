// JSON-RPC 2.0 to the letter, in front of the SDK: every message the SDK would skip in silence
// (its stdio transport reports them to onerror only, so the client waits forever) is answered
// here with the error the specification names.
import { Transform, type TransformCallback } from "node:stream";
import { ErrorCode, JSONRPCMessageSchema } from "@modelcontextprotocol/sdk/types.js";

/** A JSON-RPC error response. */
export interface JsonRpcErrorResponse {
  jsonrpc: "2.0";
  id: string | number | null;
  error: { code: number; message: string; data: { code: "INVALID_REQUEST" } };
}

function isValidId(id: unknown): id is string | number {
  return typeof id === "string" || (typeof id === "number" && Number.isFinite(id));
}

function reject(id: string | number | null, code: number, message: string): JsonRpcErrorResponse {
  return { jsonrpc: "2.0", id, error: { code, message, data: { code: "INVALID_REQUEST" } } };
}

/**
 * What to answer for one parsed message, or undefined when it is well-formed JSON-RPC for the
 * SDK to handle (a request, notification or response). The answer carries the message's id when
 * one can be read from it, else null (JSON-RPC 2.0 §5):
 *
 * - an array: -32600, batches are not part of MCP since 2025-06-18;
 * - not an object, no "jsonrpc": "2.0", no string method (and no result or error), an id that is
 *   neither a string nor a number: -32600 Invalid Request;
 * - params that are not an object (MCP's params are always named): -32602 Invalid params.
 */
export function checkJsonRpc(message: unknown): JsonRpcErrorResponse | undefined {
  if (Array.isArray(message)) {
    return reject(
      null,
      ErrorCode.InvalidRequest,
      "Invalid Request: JSON-RPC batches are not supported (MCP 2025-06-18 removed them): send one message at a time",
    );
  }
  if (typeof message !== "object" || message === null) {
    return reject(null, ErrorCode.InvalidRequest, "Invalid Request: a message must be a JSON-RPC 2.0 object");
  }
  if (JSONRPCMessageSchema.safeParse(message).success) return undefined;
  const m = message as Record<string, unknown>;
  const hasId = "id" in m;
  const id = hasId && isValidId(m.id) ? m.id : null;
  if (hasId && !isValidId(m.id)) {
    return reject(null, ErrorCode.InvalidRequest, "Invalid Request: id must be a string or a number");
  }
  if (m.jsonrpc !== "2.0") return reject(id, ErrorCode.InvalidRequest, 'Invalid Request: "jsonrpc" must be "2.0"');
  if (typeof m.method === "string" && "params" in m && (typeof m.params !== "object" || m.params === null || Array.isArray(m.params))) {
    return reject(id, ErrorCode.InvalidParams, "Invalid params: params must be an object of named parameters");
  }
  if (typeof m.method !== "string" && !("result" in m) && !("error" in m)) {
    return reject(id, ErrorCode.InvalidRequest, "Invalid Request: a request needs a string method");
  }
  return reject(id, ErrorCode.InvalidRequest, "Invalid Request: not a JSON-RPC 2.0 request, notification or response");
}

const NEWLINE = 0x0a;

/**
 * Newline-delimited JSON-RPC in, the same lines out, minus those that are not valid JSON-RPC:
 * each of those is answered through `answer` (-32700 Parse error for text that is not JSON, or
 * checkJsonRpc's error) and not passed on. Blank lines are dropped.
 */
export class JsonRpcGate extends Transform {
  private pending: Buffer[] = [];

  constructor(private readonly answer: (response: JsonRpcErrorResponse) => void) {
    super();
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    let from = 0;
    while (from < chunk.length) {
      const newline = chunk.indexOf(NEWLINE, from);
      if (newline === -1) {
        this.pending.push(chunk.subarray(from));
        break;
      }
      this.pending.push(chunk.subarray(from, newline + 1));
      const line = Buffer.concat(this.pending);
      this.pending = [];
      this.line(line);
      from = newline + 1;
    }
    done();
  }

  override _flush(done: TransformCallback): void {
    if (this.pending.length > 0) this.line(Buffer.concat(this.pending));
    this.pending = [];
    done();
  }

  private line(line: Buffer): void {
    const text = line.toString("utf8").trim();
    if (text === "") return;
    let message: unknown;
    try {
      message = JSON.parse(text);
    } catch {
      this.answer(reject(null, ErrorCode.ParseError, "Parse error: the message is not valid JSON"));
      return;
    }
    const refused = checkJsonRpc(message);
    if (refused) this.answer(refused);
    else this.push(line[line.length - 1] === NEWLINE ? line : Buffer.concat([line, Buffer.from("\n")]));
  }
}
