import { isAbsolute } from "node:path";
import { DocDBError } from "../errors.js";
import { validateWellFormed } from "../validate.js";

export const COLLECTION_NAME_PATTERN = /^[a-z0-9_-]{1,64}$/;
export const MAX_DESCRIPTION_LENGTH = 2000;

export function validateCollectionName(name: unknown): string {
  if (typeof name !== "string" || !COLLECTION_NAME_PATTERN.test(name)) {
    const shown = typeof name === "string" ? JSON.stringify(name.slice(0, 80)) : String(name);
    throw new DocDBError(
      "INVALID_REQUEST",
      `invalid collection name ${shown}: use 1-64 lowercase letters, digits, "_" or "-" (it becomes part of an MCP tool name, e.g. search_api_docs)`,
    );
  }
  if (name.startsWith("_")) {
    throw new DocDBError(
      "INVALID_REQUEST",
      `collection name "${name}" starts with "_": those names are reserved for docdb itself (agent memory); choose another`,
    );
  }
  return name;
}

export function validateDescription(description: unknown): string {
  if (typeof description !== "string" || description.trim() === "") {
    throw new DocDBError(
      "INVALID_REQUEST",
      'a collection needs a description written for an AI agent, e.g. "API documentation for user authentication"',
    );
  }
  if (description.length > MAX_DESCRIPTION_LENGTH) {
    throw new DocDBError("INVALID_REQUEST", `description has ${description.length} characters; keep it under ${MAX_DESCRIPTION_LENGTH}`);
  }
  validateWellFormed(description, "description");
  return description.trim();
}

export function validateSourcePath(source: unknown): string {
  if (typeof source !== "string" || source.trim() === "") throw new DocDBError("INVALID_REQUEST", "a collection needs a source folder");
  validateWellFormed(source, "source folder");
  if (!isAbsolute(source)) {
    throw new DocDBError(
      "INVALID_REQUEST",
      `source folder must be an absolute path, got "${source}" (the CLI resolves relative paths for you)`,
    );
  }
  return source;
}

export function validatePositiveInteger(value: unknown, what: string, min = 1): number {
  if (typeof value !== "number" || !Number.isInteger(value) || value < min) {
    throw new DocDBError("INVALID_REQUEST", `${what} must be an integer of at least ${min}, got ${String(value)}`);
  }
  return value;
}
