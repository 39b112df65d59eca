import type { ReadResourceResult, Resource, ResourceTemplate } from "@modelcontextprotocol/sdk/types.js";

/**
 * MCP resources a server offers besides its tools: `resources/list`, `resources/templates/list`,
 * `resources/read` and argument completion (`completion/complete`) for the templates.
 */
export interface ResourceProvider {
  list(): Promise<Resource[]>;
  templates(): ResourceTemplate[];
  /** Reads a resource; throws a RequestError (e.g. code -32002, resource not found) when it cannot. */
  read(uri: string): Promise<ReadResourceResult>;
  /** Completion values for one argument of a resource template (`uriTemplate`). */
  complete(uriTemplate: string, argument: { name: string; value: string }): Promise<string[]>;
}
