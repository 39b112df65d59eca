import { type Logger, toDocDBError } from "@docdb/core";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";

/**
 * A failed call as a tool result (not a JSON-RPC error), so the agent sees the code and the
 * message and can fix its next call.
 */
export function toolErrorResult(error: unknown, tool: string, logger?: Logger): CallToolResult {
  const failure = toDocDBError(error);
  if (failure.code === "INTERNAL") logger?.error({ tool, err: error }, "tool failed unexpectedly");
  else logger?.debug({ tool, code: failure.code, err: failure.message }, "tool failed");
  return {
    content: [{ type: "text", text: `${failure.code}: ${failure.message}` }],
    structuredContent: {
      error: { code: failure.code, message: failure.message, ...(failure.details !== undefined ? { details: failure.details } : {}) },
    },
    isError: true,
  };
}
