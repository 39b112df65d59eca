// Checks of the page's request bodies, shared by its endpoints: each refusal is INVALID_REQUEST
// naming the field.
import { DocDBError } from "@docdb/core";

/** The body as an object, or INVALID_REQUEST. */
export function objectBody(body: unknown): Record<string, unknown> {
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    throw new DocDBError("INVALID_REQUEST", "the request body must be a JSON object");
  }
  return body as Record<string, unknown>;
}

/** A string field, or undefined when absent or empty. */
export function optionalString(value: unknown, name: string): string | undefined {
  if (value === undefined || value === null || value === "") return undefined;
  if (typeof value !== "string") throw new DocDBError("INVALID_REQUEST", `${name} must be a string`);
  return value;
}
