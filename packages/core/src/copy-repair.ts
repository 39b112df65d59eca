// What `copy` does with text no engine stores any more: a database written by an older build
// may hold NUL or lone surrogates (SQLite kept them; PostgreSQL refuses them). Copying such a
// row replaces each one with U+FFFD (one UTF-16 code unit for one, so chunk offsets stay right),
// keeps the document's id, content hash and vectors, and says so in the copy's result.
import { findTextFault, replaceTextFaults } from "@docdb/store";

/** How many rows a copy repaired, and one line per row for the caller. */
export interface TextRepairs {
  /** Documents (and collections) whose text had NUL or lone surrogates replaced by U+FFFD. */
  repaired: number;
  warnings: string[];
}

/** Warnings listed one by one; past this many, one line counts the rest. */
const MAX_LISTED = 50;

/**
 * `value` with NUL and lone surrogates replaced by U+FFFD in every string and object key (typed
 * arrays such as vectors kept as they are); `fields` collects the paths of what changed.
 */
export function repairText<T>(value: T, path: string, fields: string[]): T {
  if (typeof value === "string") {
    const { text, replaced } = replaceTextFaults(value);
    if (replaced === 0) return value;
    fields.push(path);
    return text as T;
  }
  if (typeof value !== "object" || value === null || ArrayBuffer.isView(value)) return value;
  // Most rows are clean: one read-only walk finds that without copying anything.
  if (!findTextFault(value, path)) return value;
  if (Array.isArray(value)) return value.map((item, i) => repairText(item, `${path}[${i}]`, fields)) as T;
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    const fixed = replaceTextFaults(key);
    if (fixed.replaced > 0) fields.push(`${path} (a key)`);
    out[fixed.text] = repairText(item, path === "" ? fixed.text : `${path}.${fixed.text}`, fields);
  }
  return out as T;
}

/** Counts a repaired row and words it: `document 01J… (key "notes/a"): title, metadata.tag`. */
export function noteRepair(repairs: TextRepairs, what: string, fields: string[]): void {
  if (fields.length === 0) return;
  repairs.repaired++;
  const shown = fields.length > 5 ? `${fields.slice(0, 5).join(", ")} and ${fields.length - 5} more` : fields.join(", ");
  if (repairs.warnings.length < MAX_LISTED) {
    repairs.warnings.push(`${what}: NUL or lone surrogates replaced by U+FFFD in ${shown} (no engine stores them)`);
  } else if (repairs.warnings.length === MAX_LISTED) {
    repairs.warnings.push("more rows were repaired the same way: see `repaired` for the count");
  }
}
