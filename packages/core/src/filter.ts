import {
  BUILTIN_FIELDS,
  type BuiltinField,
  CHUNK_FIELDS,
  type ChunkField,
  type Filter,
  type FilterField,
  LOCATOR_FIELDS,
  type LocatorField,
  METADATA_PATH_SEGMENT,
  type Scalar,
} from "@docdb/store";
import { DocDBError, echo } from "./errors.js";
import { validateWellFormed } from "./validate.js";

/**
 * Filters as users write them (CLI `--filter`, the MCP `filter` argument, core's `filter`),
 * MongoDB-style JSON, turned into the contract's typed condition tree:
 *
 *   {"lang": "ja"}                                  equality on a metadata path
 *   {"author.name": "Sato", "tags": ["a", "b"]}     dotted paths; an array means any of
 *   {"year": {"$gte": 2020, "$lt": 2025}}           $eq $ne $gt $gte $lt $lte $in $nin $exists $prefix
 *   {"$or": [{"lang": "ja"}, {"$not": {"draft": true}}]}   $and $or $not
 *   {"created_at": {"$gte": "2026-11-01"}, "source": {"$prefix": "docs/"}}
 *
 * Top-level names doc_id, key, title, source, collection, created_at and updated_at are the
 * document's own fields; language, symbol and symbol_kind are a code chunk's (in a search, the
 * chunk's own; in a listing, any chunk of the document: {"symbol_kind": "class"} lists the
 * documents that define a class). "locator.page", "locator.slide", "locator.sheet", "locator.row"
 * and "locator.section" are where an extracted chunk starts in its file, read the same way
 * ({"locator.page": {"$gte": 3}}; pages, slides and rows are numbers). A metadata key of the same
 * name is reached as "metadata.title" ("metadata.locator.page").
 * Dates may be any form `Date` parses; they are compared as ISO 8601 UTC.
 *
 * A filter is bounded (FILTER_LIMITS): nesting depth, items in one $and/$or/$in/$nin list, nodes
 * in all (conditions, operators and listed values) and the length of a field name; past any of
 * them it is INVALID_REQUEST naming the limit, before any of it reaches an engine.
 */

const OPERATORS = ["$eq", "$ne", "$gt", "$gte", "$lt", "$lte", "$in", "$nin", "$exists", "$prefix"] as const;
type Operator = (typeof OPERATORS)[number];
const DATE_FIELDS = new Set<BuiltinField>(["created_at", "updated_at"]);

/** How big a filter may be (docs/search.md#filters). */
export const FILTER_LIMITS = {
  /** Levels of $and/$or/$not nesting. */
  depth: 16,
  /** Items in one $and, $or, $in or $nin list. */
  listItems: 500,
  /** Conditions, $and/$or/$not operators and $in/$nin values, all counted together. */
  nodes: 2000,
  /** Characters in one field name (a metadata path). */
  keyLength: 200,
} as const;

function bad(where: string, problem: string): DocDBError {
  return new DocDBError(
    "INVALID_REQUEST",
    `invalid filter at ${echo(where)}: ${problem}. Example: {"lang": "ja", "year": {"$gte": 2020}, "$or": [{"tags": "a"}, {"tags": "b"}]}`,
  );
}

/** Counts the nodes of one filter against FILTER_LIMITS.nodes. */
class Budget {
  private used = 0;
  spend(count: number, where: string): void {
    this.used += count;
    if (this.used > FILTER_LIMITS.nodes) {
      throw bad(
        where,
        `the filter has more than ${FILTER_LIMITS.nodes} conditions and values in all (the limit): split the query or narrow it`,
      );
    }
  }
}

function checkList(list: unknown[], operator: string, where: string, budget: Budget): void {
  if (list.length > FILTER_LIMITS.listItems) {
    throw bad(where, `${operator} lists ${list.length} items; the limit is ${FILTER_LIMITS.listItems} per list`);
  }
  budget.spend(list.length, where);
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function field(name: string, where: string): FilterField {
  if (name.length > FILTER_LIMITS.keyLength) {
    throw bad(where, `a field name is ${name.length} characters long; the limit is ${FILTER_LIMITS.keyLength}`);
  }
  if ((BUILTIN_FIELDS as readonly string[]).includes(name)) return { builtin: name as BuiltinField };
  if ((CHUNK_FIELDS as readonly string[]).includes(name)) return { chunk: name as ChunkField };
  if (name.startsWith("locator.")) {
    const part = name.slice("locator.".length);
    if ((LOCATOR_FIELDS as readonly string[]).includes(part)) return { locator: part as LocatorField };
    throw bad(where, `${echo(JSON.stringify(name))} is not a locator field: use ${LOCATOR_FIELDS.map((f) => `locator.${f}`).join(", ")}`);
  }
  const path = name.startsWith("metadata.") ? name.slice("metadata.".length).split(".") : name.split(".");
  for (const segment of path) {
    if (!METADATA_PATH_SEGMENT.test(segment)) {
      throw bad(where, `${echo(JSON.stringify(name))} is not a metadata path (dot-separated names of letters, digits, _ and -)`);
    }
  }
  return { metadata: path };
}

function scalar(value: unknown, where: string, target: FilterField): Scalar {
  if (value === null || typeof value === "string" || typeof value === "boolean") {
    if (typeof value === "string" && "builtin" in target && DATE_FIELDS.has(target.builtin)) return isoDate(value, where);
    return value;
  }
  if (typeof value === "number") {
    if (!Number.isFinite(value)) throw bad(where, "numbers must be finite");
    return value;
  }
  throw bad(where, "a value must be a string, number, boolean or null");
}

function isoDate(value: string, where: string): string {
  const time = Date.parse(value);
  if (Number.isNaN(time))
    throw bad(where, `${echo(JSON.stringify(value))} is not a date (use ISO 8601, e.g. 2026-11-22 or 2026-11-22T09:30:00Z)`);
  return new Date(time).toISOString();
}

function condition(target: FilterField, operator: Operator, value: unknown, where: string, budget: Budget): Filter {
  budget.spend(1, where);
  switch (operator) {
    case "$in":
    case "$nin": {
      if (!Array.isArray(value)) throw bad(where, `${operator} takes an array`);
      checkList(value, operator, where, budget);
      const values = value.map((v, i) => scalar(v, `${where}[${i}]`, target));
      return { op: operator === "$in" ? "in" : "nin", field: target, values };
    }
    case "$exists":
      if (typeof value !== "boolean") throw bad(where, "$exists takes true or false");
      return { op: "exists", field: target, value };
    case "$prefix":
      if (typeof value !== "string") throw bad(where, "$prefix takes a string");
      return { op: "prefix", field: target, value };
    default: {
      const op = operator.slice(1) as "eq" | "ne" | "gt" | "gte" | "lt" | "lte";
      const v = scalar(value, where, target);
      if (v === null && op !== "eq" && op !== "ne") throw bad(where, `${operator} cannot compare with null`);
      return { op, field: target, value: v };
    }
  }
}

function fieldConditions(name: string, value: unknown, where: string, budget: Budget): Filter[] {
  const target = field(name, where);
  if (Array.isArray(value)) return [condition(target, "$in", value, where, budget)];
  if (!isPlainObject(value)) return [condition(target, "$eq", value, where, budget)];
  const keys = Object.keys(value);
  if (keys.length === 0) throw bad(where, 'an empty object compares with nothing: give a value or an operator like {"$gte": 1}');
  return keys.map((key) => {
    if (!(OPERATORS as readonly string[]).includes(key)) {
      throw bad(`${where}.${echo(key)}`, `unknown operator (use ${OPERATORS.join(" ")}; nested objects are not compared whole)`);
    }
    return condition(target, key as Operator, value[key], `${where}.${key}`, budget);
  });
}

function parse(value: unknown, where: string, depth: number, budget: Budget): Filter {
  if (depth > FILTER_LIMITS.depth) throw bad(where, `nested more than ${FILTER_LIMITS.depth} levels (the limit)`);
  if (!isPlainObject(value)) throw bad(where, "expected a JSON object");
  const parts: Filter[] = [];
  const entries = Object.entries(value);
  if (entries.length > FILTER_LIMITS.listItems) {
    throw bad(where, `an object has ${entries.length} fields; the limit is ${FILTER_LIMITS.listItems}`);
  }
  for (const [key, inner] of entries) {
    // A key is checked before it becomes part of a path that messages repeat.
    if (key.length > FILTER_LIMITS.keyLength) {
      throw bad(where, `a field name is ${key.length} characters long; the limit is ${FILTER_LIMITS.keyLength}`);
    }
    const at = where === "filter" ? key : `${where}.${key}`;
    if (key === "$and" || key === "$or") {
      if (!Array.isArray(inner) || inner.length === 0) throw bad(at, `${key} takes a non-empty array of filters`);
      checkList(inner, key, at, budget);
      const list = inner.map((f, i) => parse(f, `${at}[${i}]`, depth + 1, budget));
      parts.push(key === "$and" ? { and: list } : { or: list });
    } else if (key === "$not") {
      budget.spend(1, at);
      parts.push({ not: parse(inner, at, depth + 1, budget) });
    } else if (key.startsWith("$")) {
      throw bad(at, `unknown operator ${key} at this level (use $and, $or, $not, or a field name)`);
    } else {
      parts.push(...fieldConditions(key, inner, at, budget));
    }
  }
  return parts.length === 1 ? (parts[0] as Filter) : { and: parts };
}

/** The typed filter for a user's JSON filter (undefined when there is none). */
export function parseFilter(value: unknown): Filter | undefined {
  if (value === undefined || value === null) return undefined;
  if (!isPlainObject(value)) throw bad("filter", "expected a JSON object of fields and values");
  if (Object.keys(value).length === 0) return undefined;
  // No document holds NUL or a lone surrogate, and PostgreSQL cannot even take one as a
  // parameter (the walk stops at a fixed depth, so it is bounded like the parse).
  validateWellFormed(value, "filter");
  return parse(value, "filter", 0, new Budget());
}
