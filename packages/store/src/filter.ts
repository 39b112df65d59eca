/**
 * Filters as data: a small condition tree every engine translates into its own query, with one
 * meaning everywhere (the contract suite checks each engine against `matchesFilter`, the
 * reference semantics written out in plain code).
 *
 * - A metadata path names a value inside the document's metadata object (`["author", "name"]`).
 *   When that value is an array, a condition holds when it holds for any element (one level).
 * - `eq`: same JSON type and equal (1 and 1.0 are equal; 1, "1" and true are not); `null`
 *   matches only a stored JSON null. `ne` is the negation of `eq` (so it also matches documents
 *   without the path); `in`/`nin` likewise.
 * - `gt`/`gte`/`lt`/`lte`: numbers compare with numbers, strings with strings (by code point,
 *   so ISO dates compare in time order); values of another type never match.
 * - `exists`: the path is present (a stored null counts as present).
 * - `prefix`: a string value starting with the given text.
 * - Built-in fields are the document's own columns; `created_at`/`updated_at` are ISO 8601 UTC
 *   strings with milliseconds (`2026-11-22T09:30:00.000Z`); absent values are null.
 * - Chunk fields describe one chunk of code (`language`, `symbol`, `symbol_kind`; null for prose).
 *   A search sees one chunk at a time, so they are that chunk's values; a document listing sees
 *   every chunk of a document, and their values count like the elements of an array (a document
 *   matches `symbol_kind = class` when any of its chunks holds a class). `exists` holds when a
 *   value is not null.
 * - Locator fields (`page`, `slide`, `sheet`, `row`, `section`) are where an extracted chunk starts
 *   in its file (`StoredChunk.locator`), chunk fields like the code ones: numbers for page, slide
 *   and row, strings for sheet and section, absent (null) on chunks without one.
 */

export type Scalar = string | number | boolean | null;

export const BUILTIN_FIELDS = ["doc_id", "key", "title", "source", "collection", "created_at", "updated_at"] as const;
export type BuiltinField = (typeof BUILTIN_FIELDS)[number];

export const CHUNK_FIELDS = ["language", "symbol", "symbol_kind"] as const;
export type ChunkField = (typeof CHUNK_FIELDS)[number];

export const LOCATOR_FIELDS = ["page", "slide", "sheet", "row", "section"] as const;
export type LocatorField = (typeof LOCATOR_FIELDS)[number];

export type FilterField = { metadata: string[] } | { builtin: BuiltinField } | { chunk: ChunkField } | { locator: LocatorField };

export type Filter =
  | { and: Filter[] }
  | { or: Filter[] }
  | { not: Filter }
  | { op: "eq" | "ne" | "gt" | "gte" | "lt" | "lte"; field: FilterField; value: Scalar }
  | { op: "in" | "nin"; field: FilterField; values: Scalar[] }
  | { op: "exists"; field: FilterField; value: boolean }
  | { op: "prefix"; field: FilterField; value: string };

/** The fields of a chunk a filter can see. */
export interface FilterableChunk {
  language: string | null;
  symbol: string | null;
  symbolKind: string | null;
  /** Where an extracted chunk starts in its file; absent or null when it has none. */
  locator?: Partial<Record<LocatorField, string | number>> | null;
}

/** The fields of a document a filter can see. */
export interface FilterableDocument {
  id: string;
  key: string | null;
  title: string | null;
  source: string | null;
  collection: string | null;
  createdAt: string;
  updatedAt: string;
  metadata: Record<string, unknown>;
  /** The chunks in view: the one a search considers, or every chunk of a listed document. */
  chunks?: FilterableChunk[];
}

/** A metadata path segment: what filters accept (letters of any script, digits, `_`, `-`). */
export const METADATA_PATH_SEGMENT = /^[\p{L}\p{N}_-]{1,128}$/u;

const MISSING = Symbol("missing");

function builtinValue(doc: FilterableDocument, field: BuiltinField): Scalar {
  switch (field) {
    case "doc_id":
      return doc.id;
    case "created_at":
      return doc.createdAt;
    case "updated_at":
      return doc.updatedAt;
    default:
      return doc[field];
  }
}

function metadataValue(doc: FilterableDocument, path: string[]): unknown {
  let value: unknown = doc.metadata;
  for (const segment of path) {
    if (typeof value !== "object" || value === null || Array.isArray(value) || !Object.hasOwn(value, segment)) return MISSING;
    value = (value as Record<string, unknown>)[segment];
  }
  return value;
}

function chunkValue(chunk: FilterableChunk, field: ChunkField): string | null {
  return field === "symbol_kind" ? chunk.symbolKind : chunk[field];
}

/** The candidate values a condition tests: the value itself, or an array's elements. */
function candidates(doc: FilterableDocument, field: FilterField): unknown[] {
  if ("builtin" in field) return [builtinValue(doc, field.builtin)];
  if ("chunk" in field) return (doc.chunks ?? []).map((c) => chunkValue(c, field.chunk));
  if ("locator" in field) return (doc.chunks ?? []).map((c) => c.locator?.[field.locator] ?? null);
  const value = metadataValue(doc, field.metadata);
  if (value === MISSING) return [];
  return Array.isArray(value) ? value : [value];
}

function sameType(a: unknown, b: unknown): boolean {
  return (a === null && b === null) || (a !== null && b !== null && typeof a === typeof b);
}

function equal(a: unknown, b: Scalar): boolean {
  return sameType(a, b) && a === b;
}

function compare(a: unknown, b: Scalar, op: "gt" | "gte" | "lt" | "lte"): boolean {
  if (!((typeof a === "number" && typeof b === "number") || (typeof a === "string" && typeof b === "string"))) return false;
  const order = typeof a === "string" ? codePointCompare(a, b as string) : (a as number) - (b as number);
  return op === "gt" ? order > 0 : op === "gte" ? order >= 0 : op === "lt" ? order < 0 : order <= 0;
}

/** Code-point order (what SQLite's BINARY and PostgreSQL's "C" collations give for UTF-8). */
export function codePointCompare(a: string, b: string): number {
  const x = [...a];
  const y = [...b];
  for (let i = 0; i < Math.min(x.length, y.length); i++) {
    const d = (x[i] as string).codePointAt(0)! - (y[i] as string).codePointAt(0)!;
    if (d !== 0) return d;
  }
  return x.length - y.length;
}

/** The reference meaning of a filter: true when `doc` passes it. */
export function matchesFilter(filter: Filter, doc: FilterableDocument): boolean {
  if ("and" in filter) return filter.and.every((f) => matchesFilter(f, doc));
  if ("or" in filter) return filter.or.some((f) => matchesFilter(f, doc));
  if ("not" in filter) return !matchesFilter(filter.not, doc);
  switch (filter.op) {
    case "eq":
      return candidates(doc, filter.field).some((v) => equal(v, filter.value));
    case "ne":
      return !candidates(doc, filter.field).some((v) => equal(v, filter.value));
    case "in":
      return candidates(doc, filter.field).some((v) => filter.values.some((x) => equal(v, x)));
    case "nin":
      return !candidates(doc, filter.field).some((v) => filter.values.some((x) => equal(v, x)));
    case "exists":
      if ("builtin" in filter.field) return (builtinValue(doc, filter.field.builtin) !== null) === filter.value;
      if ("chunk" in filter.field || "locator" in filter.field)
        return candidates(doc, filter.field).some((v) => v !== null) === filter.value;
      return (metadataValue(doc, filter.field.metadata) !== MISSING) === filter.value;
    case "prefix":
      return candidates(doc, filter.field).some((v) => typeof v === "string" && v.startsWith(filter.value));
    default: {
      const op = filter.op;
      return candidates(doc, filter.field).some((v) => compare(v, filter.value, op));
    }
  }
}

/** All conditions of a list, as one filter (undefined when the list is empty). */
export function allOf(filters: (Filter | undefined)[]): Filter | undefined {
  const present = filters.filter((f): f is Filter => f !== undefined);
  if (present.length === 0) return undefined;
  return present.length === 1 ? present[0] : { and: present };
}
