import type { Logger } from "@docdb/core";
import type { CallToolResult, Tool } from "@modelcontextprotocol/sdk/types.js";
import type { z } from "zod/v4";
import { inputJsonSchema, outputJsonSchema } from "./json-schema.js";
import { invalidRequest, quote } from "./request-error.js";
import type { ToolContext, ToolDefinition } from "./tool.js";
import { toolErrorResult } from "./tool-result.js";

const TOOL_NAME = /^[A-Za-z0-9_.-]{1,128}$/;
const MESSAGE_LIMIT = 1000;

interface Entry {
  descriptor: Tool;
  call(args: unknown, context: ToolContext): Promise<CallToolResult>;
}

function describeIssues(issues: z.core.$ZodIssue[]): string {
  const text = issues.map((issue) => `${issue.path.length > 0 ? issue.path.join(".") : "arguments"}: ${issue.message}`).join("; ");
  return text.length > MESSAGE_LIMIT ? `${text.slice(0, MESSAGE_LIMIT)}…` : text;
}

/** Zod's default says "expected string, received undefined"; say plainly that it is missing. */
function argumentMessage(issue: z.core.$ZodRawIssue): string | undefined {
  if (issue.code === "invalid_type" && issue.input === undefined) return `required ${String(issue.expected)} is missing`;
  return undefined;
}

/** A tool's `tools/list` entry: its JSON Schemas come from its zod schemas. */
export function describeTool(tool: ToolDefinition): Tool {
  return {
    name: tool.name,
    ...(tool.title !== undefined ? { title: tool.title } : {}),
    description: tool.description,
    inputSchema: inputJsonSchema(tool.input),
    outputSchema: outputJsonSchema(tool.output),
    ...(tool.annotations !== undefined ? { annotations: tool.annotations } : {}),
  };
}

/**
 * The tools a server offers, shared by every connection. Tools can be added and removed
 * while clients are connected: each server made by `createServer` sends
 * `notifications/tools/list_changed` (changes made in the same tick are announced once).
 */
export class ToolRegistry {
  private readonly entries = new Map<string, Entry>();
  private readonly listeners = new Set<() => void>();
  private announcePending = false;

  constructor(private readonly logger?: Logger) {}

  /** Adds a tool; a name already taken is an error unless `replace` is set. */
  add<Input extends z.ZodObject, Output extends z.ZodObject>(
    tool: ToolDefinition<Input, Output>,
    options: { replace?: boolean } = {},
  ): void {
    this.checkName(tool.name, options);
    this.entries.set(tool.name, { descriptor: describeTool(tool), call: this.caller(tool) });
    this.changed();
  }

  /**
   * Adds a tool by its `tools/list` descriptor, made beforehand (at build time, see
   * tool-descriptors.ts), and loads its definition on its first call. A program starts without
   * building the tool's zod schemas or converting them to JSON Schema. `load` must give the tool
   * the descriptor was made from; its input schema checks the arguments as with `add`.
   */
  addDeferred(descriptor: Tool, load: () => Promise<ToolDefinition>, options: { replace?: boolean } = {}): void {
    this.checkName(descriptor.name, options);
    let caller: Promise<Entry["call"]> | undefined;
    this.entries.set(descriptor.name, {
      descriptor,
      call: async (args, context) => {
        caller ??= load().then((tool) => {
          if (tool.name !== descriptor.name) throw new Error(`tool "${descriptor.name}" loaded as "${tool.name}"`);
          return this.caller(tool);
        });
        let call: Entry["call"];
        try {
          call = await caller;
        } catch (error) {
          // Tried again on the next call; this one fails like a tool that threw.
          caller = undefined;
          return toolErrorResult(error, descriptor.name, this.logger);
        }
        return call(args, context);
      },
    });
    this.changed();
  }

  /** Removes a tool; returns false when there was none by that name. */
  remove(name: string): boolean {
    const removed = this.entries.delete(name);
    if (removed) this.changed();
    return removed;
  }

  has(name: string): boolean {
    return this.entries.has(name);
  }

  names(): string[] {
    return [...this.entries.keys()];
  }

  /** The `tools/list` answer, also served as `GET /tools`. */
  list(): Tool[] {
    return [...this.entries.values()].map((entry) => entry.descriptor);
  }

  /**
   * Runs a tool. Unknown tools and arguments that break the input schema throw a
   * RequestError (a JSON-RPC error with `data.code` INVALID_REQUEST); failures inside the
   * tool come back as an `isError` result.
   */
  async call(name: string, args: unknown, context: ToolContext): Promise<CallToolResult> {
    const entry = this.entries.get(name);
    if (!entry) throw invalidRequest(`unknown tool ${quote(name)}: available tools are ${this.names().join(", ")}`);
    return entry.call(args, context);
  }

  /** Calls `listener` after the tool list changes; returns the unsubscribe function. */
  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** A name must be valid, and free unless `replace` is set. */
  private checkName(name: string, options: { replace?: boolean }): void {
    if (!TOOL_NAME.test(name)) throw new Error(`invalid tool name ${quote(name)}: use 1-128 letters, digits, "_", "-" or "."`);
    if (this.entries.has(name) && !options.replace) throw new Error(`a tool named "${name}" is already registered`);
  }

  private changed(): void {
    if (this.announcePending) return;
    this.announcePending = true;
    queueMicrotask(() => {
      this.announcePending = false;
      for (const listener of this.listeners) listener();
    });
  }

  /** Checks a call's arguments against the tool's input schema, runs it and shapes the result. */
  private caller<Input extends z.ZodObject, Output extends z.ZodObject>(tool: ToolDefinition<Input, Output>): Entry["call"] {
    const logger = this.logger;
    return async (args, context) => {
      const parsed = tool.input.safeParse(args ?? {}, { error: argumentMessage });
      if (!parsed.success) {
        throw invalidRequest(`invalid arguments for tool "${tool.name}": ${describeIssues(parsed.error.issues)}`, {
          issues: parsed.error.issues.slice(0, 20).map((issue) => ({ path: issue.path.join("."), message: issue.message.slice(0, 200) })),
        });
      }
      try {
        const result = await tool.run(parsed.data, context);
        return {
          content: [{ type: "text", text: tool.render(result, parsed.data) }],
          structuredContent: result as Record<string, unknown>,
        };
      } catch (error) {
        return toolErrorResult(error, tool.name, logger);
      }
    };
  }
}
