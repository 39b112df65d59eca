import { describeTextFault, findTextFault } from "@docdb/store";
import { DocDBError } from "./errors.js";

export const DB_NAME_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;
export const DEFAULT_DB_NAME = "vectors";
export const DEFAULT_MAX_TEXT_LENGTH = 100_000;
export const MAX_QUERY_LENGTH = 10_000;
/** The most results one search returns, on every surface (CLI, MCP, core). */
export const MAX_TOP_K = 100;

/** Names Windows reserves for devices, in any case and with any extension: a file named so cannot exist there. */
const WINDOWS_RESERVED = /^(con|prn|aux|nul|com[0-9¹²³]|lpt[0-9¹²³])$/i;

export function validateDbName(name: unknown): string {
  if (typeof name !== "string" || !DB_NAME_PATTERN.test(name)) {
    const shown = typeof name === "string" ? JSON.stringify(name.slice(0, 80)) : String(name);
    throw new DocDBError("INVALID_REQUEST", `invalid database name ${shown}: use 1-64 letters, digits, "_" or "-" (no paths)`);
  }
  if (name.startsWith("-")) {
    throw new DocDBError(
      "INVALID_REQUEST",
      `invalid database name "${name}": it must not start with "-" (it reads as a command-line flag)`,
    );
  }
  if (name.toLowerCase() === "_docdb") {
    throw new DocDBError(
      "INVALID_REQUEST",
      `invalid database name "${name}": docdb keeps its tokens and audit trail there; choose another`,
    );
  }
  if (WINDOWS_RESERVED.test(name)) {
    throw new DocDBError(
      "INVALID_REQUEST",
      `invalid database name "${name}": Windows reserves it for a device (CON, PRN, AUX, NUL, COM1-9, LPT1-9, in any case); choose another`,
    );
  }
  return name;
}

/**
 * Refuses NUL and lone surrogates (half of a UTF-16 pair), in a string or anywhere in an object
 * (keys and values), naming the field and the position: no engine stores them (`@docdb/store`'s
 * text model), so they are refused at the input, once, on every engine alike.
 */
export function validateWellFormed(value: unknown, what: string): void {
  const fault = findTextFault(value, what);
  if (!fault) return;
  const why =
    fault.kind === "nul"
      ? "NUL is not text (binary data?)"
      : "that is not valid Unicode (a string cut between the two halves of an emoji or other astral character?)";
  throw new DocDBError("INVALID_REQUEST", `${describeTextFault(fault)}: ${why}; send well-formed text`);
}

/** An optional string field (title, source, collection): a string of at most `max` characters, well-formed; null when absent. */
export function validateOptionalText(value: unknown, what: string, max: number): string | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== "string" || value.length > max) {
    throw new DocDBError("INVALID_REQUEST", `${what} must be a string of at most ${max} characters`);
  }
  validateWellFormed(value, what);
  return value;
}

export function validateText(text: unknown, maxLength: number, what = "text"): string {
  if (typeof text !== "string") throw new DocDBError("INVALID_REQUEST", `${what} must be a string`);
  if (text.trim() === "") throw new DocDBError("INVALID_REQUEST", `${what} is empty: send the document's text`);
  validateWellFormed(text, what);
  if (text.length > maxLength) {
    throw new DocDBError(
      "INVALID_REQUEST",
      `${what} has ${text.length} characters, more than the limit of ${maxLength}: split it into several documents`,
    );
  }
  return text;
}

export function validateMetadata(metadata: unknown): Record<string, unknown> {
  if (metadata === undefined || metadata === null) return {};
  if (typeof metadata !== "object" || Array.isArray(metadata)) {
    throw new DocDBError("INVALID_REQUEST", 'metadata must be a JSON object, e.g. {"lang":"ja"}');
  }
  const nonFinite = findNonFinite(metadata, "metadata");
  if (nonFinite) {
    throw new DocDBError(
      "INVALID_REQUEST",
      `${nonFinite.path} is ${nonFinite.value}: JSON has no such number (a literal like 1e309 overflows); send a finite number or a string`,
    );
  }
  validateWellFormed(metadata, "metadata");
  let json: string;
  try {
    json = JSON.stringify(metadata);
  } catch (error) {
    throw new DocDBError("INVALID_REQUEST", `metadata is not serialisable as JSON: ${(error as Error).message}`);
  }
  if (json.length > 64_000) throw new DocDBError("INVALID_REQUEST", "metadata is larger than 64,000 characters of JSON");
  if (jsonDepth(json) > MAX_METADATA_DEPTH) {
    throw new DocDBError("INVALID_REQUEST", `metadata is nested more than ${MAX_METADATA_DEPTH} levels deep: flatten it`);
  }
  return JSON.parse(json) as Record<string, unknown>;
}

/** The first number that is not finite (Infinity, NaN), which JSON would silently turn into null. */
function findNonFinite(value: unknown, path: string, depth = 0): { path: string; value: string } | undefined {
  if (typeof value === "number") return Number.isFinite(value) ? undefined : { path, value: String(value) };
  if (typeof value !== "object" || value === null || depth > MAX_METADATA_DEPTH + 1) return undefined;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = findNonFinite(value[i], `${path}[${i}]`, depth + 1);
      if (found) return found;
    }
    return undefined;
  }
  for (const [key, item] of Object.entries(value)) {
    const found = findNonFinite(item, `${path}.${key}`, depth + 1);
    if (found) return found;
  }
  return undefined;
}

/** SQLite's JSON functions stop at 1000 levels; far less is plenty for metadata. */
export const MAX_METADATA_DEPTH = 32;

/** Deepest nesting of objects and arrays in a JSON text (brackets inside strings skipped). */
function jsonDepth(json: string): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let i = 0; i < json.length; i++) {
    const ch = json[i];
    if (inString) {
      if (ch === "\\") i++;
      else if (ch === '"') inString = false;
    } else if (ch === '"') inString = true;
    else if (ch === "{" || ch === "[") deepest = Math.max(deepest, ++depth);
    else if (ch === "}" || ch === "]") depth--;
  }
  return deepest;
}

export function validateTopK(topK: unknown, max = MAX_TOP_K): number {
  if (topK === undefined) return 10;
  if (typeof topK !== "number" || !Number.isInteger(topK) || topK < 1 || topK > max) {
    throw new DocDBError("INVALID_REQUEST", `top_k must be an integer from 1 to ${max}, got ${String(topK)}`);
  }
  return topK;
}

/** A caller's document key: 1-512 characters, no control characters. */
export function validateKey(key: unknown): string {
  if (typeof key !== "string" || key.trim() === "" || key.length > 512 || /[\u0000-\u001f\u007f]/.test(key)) {
    throw new DocDBError(
      "INVALID_REQUEST",
      'key must be a non-empty string of at most 512 characters without control characters, e.g. "notes/2026-11-22-standup"',
    );
  }
  validateWellFormed(key, "key");
  return key;
}

export function validateId(id: unknown, what = "doc_id"): string {
  if (typeof id !== "string" || id.trim() === "" || id.length > 200) {
    throw new DocDBError("INVALID_REQUEST", `${what} must be a non-empty string`);
  }
  return id;
}
