/** Which chunks a search may return. All parts are AND-ed. */
export interface SearchFilter {
  /** Metadata equality on JSON paths: `{"lang": "ja", "author.name": "Sato"}`; an array value means any of. */
  metadata?: Record<string, unknown>;
  docIds?: string[];
  /** Only documents whose source starts with this. */
  sourcePrefix?: string;
  collection?: string;
}

export class FilterError extends Error {
  override name = "FilterError";
}

const PATH_SEGMENT = /^[A-Za-z0-9_\-\u3040-\u30ff\u3400-\u9fff]+$/u;

function jsonPath(key: string): string {
  const segments = key.split(".");
  for (const segment of segments) {
    if (!PATH_SEGMENT.test(segment))
      throw new FilterError(`invalid filter key "${key}": use dot-separated names of letters, digits, _ and -`);
  }
  return `$.${segments.map((s) => `"${s}"`).join(".")}`;
}

function sqlValue(value: unknown, key: string): string | number | null {
  if (value === null) return null;
  if (typeof value === "boolean") return value ? 1 : 0;
  if (typeof value === "string" || typeof value === "number") return value;
  throw new FilterError(`filter value for "${key}" must be a string, number, boolean, null or an array of those`);
}

/** SQL (over `documents d`) and its parameters for a filter; empty SQL when nothing filters. */
export function filterToSql(filter: SearchFilter | undefined): { sql: string; params: unknown[] } {
  const clauses: string[] = [];
  const params: unknown[] = [];
  if (!filter) return { sql: "", params };
  for (const [key, value] of Object.entries(filter.metadata ?? {})) {
    const path = jsonPath(key);
    if (Array.isArray(value)) {
      if (value.length === 0) {
        clauses.push("0");
        continue;
      }
      clauses.push(`json_extract(d.metadata, ?) IN (${value.map(() => "?").join(", ")})`);
      params.push(path, ...value.map((v) => sqlValue(v, key)));
    } else if (value === null) {
      clauses.push("json_extract(d.metadata, ?) IS NULL");
      params.push(path);
    } else {
      clauses.push("json_extract(d.metadata, ?) = ?");
      params.push(path, sqlValue(value, key));
    }
  }
  if (filter.docIds) {
    if (filter.docIds.length === 0) clauses.push("0");
    else {
      clauses.push(`d.id IN (${filter.docIds.map(() => "?").join(", ")})`);
      params.push(...filter.docIds);
    }
  }
  if (filter.sourcePrefix !== undefined) {
    clauses.push("substr(d.source, 1, ?) = ?");
    params.push(filter.sourcePrefix.length, filter.sourcePrefix);
  }
  if (filter.collection !== undefined) {
    clauses.push("d.collection = ?");
    params.push(filter.collection);
  }
  return { sql: clauses.join(" AND "), params };
}
