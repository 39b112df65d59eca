import {
  type BuiltinField,
  type ChunkField,
  type Filter,
  type FilterField,
  LOCATOR_FIELDS,
  type LocatorField,
  METADATA_PATH_SEGMENT,
  type Scalar,
  StoreError,
} from "@docdb/store";

/**
 * Filters to SQL over `documents` (aliased `d`), with the meaning of `matchesFilter`:
 *
 * - A metadata path is read with `#>` and counts as present only when every step before the
 *   last is an object (so a digit segment never indexes into an array, as `#>` would).
 * - The candidates are the value, or an array's elements (one level): compared as jsonb, so
 *   1 = 1.0, and 1, "1", true and null are all different; a stored JSON null equals only null.
 * - Order comparisons hold for number-number (numeric) and string-string (`COLLATE "C"`, code
 *   point order) pairs only.
 * - Every condition is two-valued (`COALESCE(…, FALSE)`), so `not`, `ne` and `nin` also match
 *   documents without the path, as the reference does.
 * - Chunk fields (`language`, `symbol`, `symbol_kind`) read the chunk `c` a search considers
 *   (scope `chunk`), or, in a listing (scope `document`), any chunk of the document: `EXISTS`
 *   over its chunks, so `ne` is "no chunk equals", like an array's elements.
 */

/** Where chunk fields are read: the chunk `c` of a search, or any chunk of the document `d`. */
export type FilterScope = { chunks: "chunk" } | { chunks: "document"; schema: string };

/** Collects positional parameters for one statement. */
export class Params {
  readonly values: unknown[] = [];
  constructor(start: unknown[] = []) {
    this.values.push(...start);
  }
  /** Adds a value and returns its placeholder (`$n`). */
  add(value: unknown): string {
    this.values.push(value);
    return `$${this.values.length}`;
  }
}

const BUILTIN_COLUMN: Record<BuiltinField, string> = {
  doc_id: "d.id",
  key: "d.key",
  title: "d.title",
  source: "d.source",
  collection: "d.collection",
  created_at: "d.created_at",
  updated_at: "d.updated_at",
};

function invalid(message: string): never {
  throw new StoreError("INVALID_REQUEST", message);
}

function checkScalar(value: unknown): Scalar {
  if (value === null || typeof value === "string" || typeof value === "boolean") return value;
  if (typeof value === "number" && Number.isFinite(value)) return value;
  return invalid(`filter values must be strings, finite numbers, booleans or null (got ${typeof value})`);
}

function textArray(path: string[]): string {
  return `{${path.map((s) => `"${s}"`).join(",")}}`;
}

/** The metadata value at `path` as jsonb, NULL when absent. */
function metadataValue(path: string[], params: Params): string {
  if (path.length === 0) invalid("a metadata filter path needs at least one segment");
  for (const segment of path) {
    if (!METADATA_PATH_SEGMENT.test(segment)) invalid(`invalid metadata path segment ${JSON.stringify(segment)}`);
  }
  if (path.length === 1) return `(d.metadata -> ${params.add(path[0])}::text)`;
  const guards: string[] = [];
  for (let i = 1; i < path.length; i++) {
    guards.push(`jsonb_typeof(d.metadata #> ${params.add(textArray(path.slice(0, i)))}::text[]) = 'object'`);
  }
  return `(CASE WHEN ${guards.join(" AND ")} THEN d.metadata #> ${params.add(textArray(path))}::text[] END)`;
}

/** `EXISTS` over the candidates of a metadata value (the value, or an array's elements). */
function anyCandidate(value: string, predicate: (e: string) => string): string {
  return (
    `EXISTS (SELECT 1 FROM jsonb_array_elements(CASE WHEN jsonb_typeof(${value}) = 'array' THEN ${value} ` +
    `WHEN ${value} IS NULL THEN '[]'::jsonb ELSE jsonb_build_array(${value}) END) AS e(v) WHERE ${predicate("e.v")})`
  );
}

function jsonbParam(value: Scalar, params: Params): string {
  return `${params.add(JSON.stringify(value))}::jsonb`;
}

const COMPARISON: Record<"gt" | "gte" | "lt" | "lte", string> = { gt: ">", gte: ">=", lt: "<", lte: "<=" };

function metadataCondition(
  filter: Exclude<Filter, { and: Filter[] } | { or: Filter[] } | { not: Filter }>,
  path: string[],
  params: Params,
): string {
  // Every placeholder added must appear in the statement (PostgreSQL cannot type an unused one),
  // so the path is added only by the branches that use it.
  return jsonCondition(filter, () => metadataValue(path, params), params);
}

/** A condition on a jsonb value (NULL when absent), with the meaning of a metadata condition. */
function jsonCondition(
  filter: Exclude<Filter, { and: Filter[] } | { or: Filter[] } | { not: Filter }>,
  at: () => string,
  params: Params,
): string {
  switch (filter.op) {
    case "exists":
      return filter.value ? `(${at()} IS NOT NULL)` : `(${at()} IS NULL)`;
    case "eq":
    case "ne": {
      const value = at();
      const x = jsonbParam(checkScalar(filter.value), params);
      const eq = anyCandidate(value, (e) => `${e} = ${x}`);
      return filter.op === "eq" ? eq : `NOT ${eq}`;
    }
    case "in":
    case "nin": {
      if (filter.values.length === 0) return filter.op === "in" ? "FALSE" : "TRUE";
      const value = at();
      const xs = filter.values.map((v) => jsonbParam(checkScalar(v), params));
      const inn = anyCandidate(value, (e) => `${e} IN (${xs.join(", ")})`);
      return filter.op === "in" ? inn : `NOT ${inn}`;
    }
    case "prefix": {
      if (typeof filter.value !== "string") invalid("prefix needs a string value");
      const value = at();
      const p = params.add(filter.value);
      return anyCandidate(value, (e) => `jsonb_typeof(${e}) = 'string' AND starts_with(${e} #>> '{}', ${p}::text)`);
    }
    default: {
      const op = COMPARISON[filter.op];
      if (op === undefined) invalid(`unknown filter operator ${JSON.stringify(filter.op)}`);
      const x = checkScalar(filter.value);
      if (typeof x === "number") {
        const value = at();
        const p = params.add(String(x));
        return anyCandidate(
          value,
          (e) => `CASE WHEN jsonb_typeof(${e}) = 'number' THEN (${e})::numeric ${op} ${p}::numeric ELSE FALSE END`,
        );
      }
      if (typeof x === "string") {
        const value = at();
        const p = params.add(x);
        return anyCandidate(
          value,
          (e) => `CASE WHEN jsonb_typeof(${e}) = 'string' THEN (${e} #>> '{}') COLLATE "C" ${op} ${p}::text COLLATE "C" ELSE FALSE END`,
        );
      }
      return "FALSE";
    }
  }
}

/** A condition on a text column (a document's own field, or a chunk's). */
function builtinCondition(
  filter: Exclude<Filter, { and: Filter[] } | { or: Filter[] } | { not: Filter }>,
  column: string,
  params: Params,
): string {
  // Built-in values are strings or null.
  const equals = (v: Scalar): string => {
    const x = checkScalar(v);
    if (x === null) return `${column} IS NULL`;
    if (typeof x !== "string") return "FALSE";
    return `COALESCE(${column} = ${params.add(x)}::text, FALSE)`;
  };
  switch (filter.op) {
    case "exists":
      return filter.value ? `(${column} IS NOT NULL)` : `(${column} IS NULL)`;
    case "eq":
      return `(${equals(filter.value)})`;
    case "ne":
      return `NOT (${equals(filter.value)})`;
    case "in":
      return filter.values.length === 0 ? "FALSE" : `(${filter.values.map(equals).join(" OR ")})`;
    case "nin":
      return filter.values.length === 0 ? "TRUE" : `NOT (${filter.values.map(equals).join(" OR ")})`;
    case "prefix":
      if (typeof filter.value !== "string") invalid("prefix needs a string value");
      return `COALESCE(starts_with(${column}, ${params.add(filter.value)}::text), FALSE)`;
    default: {
      const op = COMPARISON[filter.op];
      if (op === undefined) invalid(`unknown filter operator ${JSON.stringify(filter.op)}`);
      const x = checkScalar(filter.value);
      if (typeof x !== "string") return "FALSE";
      return `COALESCE(${column} COLLATE "C" ${op} ${params.add(x)}::text COLLATE "C", FALSE)`;
    }
  }
}

const CHUNK_COLUMN: Record<ChunkField, string> = { language: "language", symbol: "symbol", symbol_kind: "symbol_kind" };

/** A condition on a chunk column, as `builtinCondition` writes it for a document column. */
function chunkCondition(
  filter: Exclude<Filter, { and: Filter[] } | { or: Filter[] } | { not: Filter }>,
  field: ChunkField,
  params: Params,
  scope: FilterScope,
): string {
  const column = CHUNK_COLUMN[field];
  if (column === undefined) invalid(`unknown chunk field ${JSON.stringify(field)}`);
  if (scope.chunks === "chunk") return builtinCondition(filter, `c.${column}`, params);
  // Any chunk of the document: ne, nin and exists false are the negations of eq, in and exists.
  const { negated, positive } = positiveForm(filter);
  const any = `EXISTS (SELECT 1 FROM ${scope.schema}.chunks cf WHERE cf.doc_id = d.id AND ${builtinCondition(positive, `cf.${column}`, params)})`;
  return negated ? `(NOT ${any})` : any;
}

type LeafFilter = Exclude<Filter, { and: Filter[] } | { or: Filter[] } | { not: Filter }>;

/** ne, nin and exists-false over "any chunk" are the negations of eq, in and exists: the positive form and whether to negate it. */
function positiveForm(filter: LeafFilter): { negated: boolean; positive: LeafFilter } {
  const negated = filter.op === "ne" || filter.op === "nin" || (filter.op === "exists" && !filter.value);
  const positive: LeafFilter =
    filter.op === "ne"
      ? { ...filter, op: "eq" }
      : filter.op === "nin"
        ? { ...filter, op: "in" }
        : filter.op === "exists"
          ? { ...filter, value: true }
          : filter;
  return { negated, positive };
}

/**
 * A condition on a locator field (`c.locator -> 'page'`): of the chunk in view, or of any chunk of
 * the document. An absent field is null, as a chunk field is (`eq null` matches it).
 */
function locatorCondition(
  filter: Exclude<Filter, { and: Filter[] } | { or: Filter[] } | { not: Filter }>,
  field: LocatorField,
  params: Params,
  scope: FilterScope,
): string {
  if (!(LOCATOR_FIELDS as readonly string[]).includes(field)) invalid(`unknown locator field ${JSON.stringify(field)}`);
  const on = (alias: string) =>
    `(CASE WHEN jsonb_typeof(${alias}.locator -> '${field}') = 'null' THEN NULL ELSE ${alias}.locator -> '${field}' END)`;
  const test = (alias: string, positive: typeof filter): string => {
    const value = on(alias);
    if (positive.op === "eq" && positive.value === null) return `(${value} IS NULL)`;
    if (positive.op === "in" && positive.values.includes(null)) {
      const rest = positive.values.filter((v) => v !== null);
      return `(${value} IS NULL OR ${rest.length === 0 ? "FALSE" : jsonCondition({ ...positive, values: rest }, () => value, params)})`;
    }
    return jsonCondition(positive, () => value, params);
  };
  const { negated, positive } = positiveForm(filter);
  const condition =
    scope.chunks === "chunk"
      ? `COALESCE(${test("c", positive)}, FALSE)`
      : `EXISTS (SELECT 1 FROM ${scope.schema}.chunks cf WHERE cf.doc_id = d.id AND ${test("cf", positive)})`;
  return negated ? `(NOT ${condition})` : condition;
}

function fieldOf(field: FilterField): FilterField {
  if (field && typeof field === "object") {
    if ("metadata" in field && Array.isArray(field.metadata)) return field;
    if ("builtin" in field && typeof field.builtin === "string") return field;
    if ("chunk" in field && typeof field.chunk === "string") return field;
    if ("locator" in field && typeof field.locator === "string") return field;
  }
  return invalid("a filter field is { metadata: string[] }, { builtin: name }, { chunk: name } or { locator: name }");
}

/**
 * SQL for a filter (always TRUE or FALSE, never NULL) over `documents d`, and with scope `chunk`
 * (searches, the default) the chunk `c` of that document.
 */
export function filterToSql(filter: Filter, params: Params, scope: FilterScope = { chunks: "chunk" }, depth = 0): string {
  if (depth > 64) invalid("filter nested too deeply");
  if (filter === null || typeof filter !== "object") invalid("a filter must be an object");
  if ("and" in filter) {
    if (filter.and.length === 0) return "TRUE";
    return `(${filter.and.map((f) => filterToSql(f, params, scope, depth + 1)).join(" AND ")})`;
  }
  if ("or" in filter) {
    if (filter.or.length === 0) return "FALSE";
    return `(${filter.or.map((f) => filterToSql(f, params, scope, depth + 1)).join(" OR ")})`;
  }
  if ("not" in filter) return `(NOT ${filterToSql(filter.not, params, scope, depth + 1)})`;
  const field = fieldOf(filter.field);
  if ("chunk" in field) return chunkCondition(filter, field.chunk, params, scope);
  if ("locator" in field) return locatorCondition(filter, field.locator, params, scope);
  if ("builtin" in field) {
    const column = BUILTIN_COLUMN[field.builtin];
    if (column === undefined) invalid(`unknown built-in field ${JSON.stringify(field.builtin)}`);
    return builtinCondition(filter, column, params);
  }
  return metadataCondition(filter, field.metadata, params);
}
