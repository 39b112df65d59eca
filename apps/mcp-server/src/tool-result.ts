import { type Logger, toDocDBError } from "@docdb/core";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod/v4";

/** The structured content of every failed tool call. */
export const toolErrorSchema = z.object({
  error: z.object({
    code: z
      .string()
      .describe(
        "INVALID_REQUEST, NOT_FOUND, CONFLICT, EMBEDDING_UNAVAILABLE, MODEL_MISMATCH, DIMENSION_MISMATCH, RERANKER_UNAVAILABLE, STORE_UNAVAILABLE, SAMPLING_UNAVAILABLE or INTERNAL",
      ),
    message: z.string().describe("What went wrong and what to do about it"),
    details: z
      .record(z.string(), z.unknown())
      .optional()
      .describe("Structured detail some errors carry, e.g. the candidate groups of SAMPLING_UNAVAILABLE"),
  }),
});

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
