import { readFileSync } from "node:fs";
import type { Tool } from "@modelcontextprotocol/sdk/types.js";

/** The file a program's build writes next to its bundle (scripts/tool-descriptors.mjs). */
export const TOOL_DESCRIPTORS_FILE = "tool-descriptors.json";

/**
 * docdb's own tools as `tools/list` shows them, made at build time for one default database
 * (their descriptions name it). A server given these answers `tools/list` without building a
 * tool's zod schemas or converting them to JSON Schema; each tool is loaded on its first call.
 */
export interface ToolDescriptors {
  format: 1;
  default_db: string;
  tools: Tool[];
}

function isToolDescriptors(value: unknown): value is ToolDescriptors {
  if (typeof value !== "object" || value === null) return false;
  const candidate = value as Partial<ToolDescriptors>;
  return (
    candidate.format === 1 &&
    typeof candidate.default_db === "string" &&
    Array.isArray(candidate.tools) &&
    candidate.tools.every((tool) => typeof tool?.name === "string" && typeof tool.inputSchema === "object" && tool.inputSchema !== null)
  );
}

/** The descriptors in `file`, or undefined when it is missing or not such a file (the tools are then built at start-up). */
export function readToolDescriptors(file: string | URL): ToolDescriptors | undefined {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch {
    return undefined;
  }
  try {
    const parsed: unknown = JSON.parse(text);
    return isToolDescriptors(parsed) ? parsed : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The descriptors a program's build wrote beside it. `programUrl` is the program's
 * `import.meta.url`: in a bundle, its launcher's, which lives in the same folder.
 */
export function toolDescriptorsBeside(programUrl: string | URL): ToolDescriptors | undefined {
  return readToolDescriptors(new URL(TOOL_DESCRIPTORS_FILE, programUrl));
}
