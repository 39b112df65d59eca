import type { CreateMessageRequest, CreateMessageResult, ToolAnnotations } from "@modelcontextprotocol/sdk/types.js";
import type { z } from "zod/v4";

/** What a running tool may use besides its arguments. */
export interface ToolContext {
  /** Aborted when the client cancels the request or the connection closes. */
  signal: AbortSignal;
  /**
   * Asks the connected client's LLM for a completion (MCP sampling, `sampling/createMessage`),
   * as part of the running request. Absent where there is no client connection.
   */
  sampling?: {
    /** True when the client declared the `sampling` capability. */
    available(): boolean;
    createMessage(params: CreateMessageRequest["params"]): Promise<CreateMessageResult>;
  };
}

/**
 * One MCP tool: zod schemas for its arguments and result, the work, and a readable
 * rendering of the result for clients that only show text. `run` throws DocDBError (or
 * anything) to fail; the registry turns that into an `isError` result with the code.
 */
export interface ToolDefinition<Input extends z.ZodObject = z.ZodObject, Output extends z.ZodObject = z.ZodObject> {
  /** 1-128 letters, digits, "_", "-" or ".". */
  name: string;
  title?: string;
  description: string;
  /** Types, required fields and enums; content checks belong to core (they come back as tool errors). */
  input: Input;
  /** The successful result's shape; becomes `outputSchema` and types `run`'s return value. */
  output: Output;
  annotations?: ToolAnnotations;
  run(args: z.output<Input>, context: ToolContext): Promise<z.input<Output>> | z.input<Output>;
  render(result: z.input<Output>, args: z.output<Input>): string;
}

/** Identity function that lets TypeScript infer a tool's argument and result types. */
export function defineTool<Input extends z.ZodObject, Output extends z.ZodObject>(
  tool: ToolDefinition<Input, Output>,
): ToolDefinition<Input, Output> {
  return tool;
}
