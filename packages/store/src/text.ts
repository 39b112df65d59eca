// The one text model of every engine: text is well-formed UTF-16 without NUL. NUL (U+0000) and a
// lone surrogate (half of a UTF-16 pair without its other half) have no place in PostgreSQL text
// or jsonb, and SQLite would keep them as bytes no other engine can hold, so every engine refuses
// them in every text column (`INVALID_REQUEST`), and core refuses them at its input, naming the field.
// Offsets (a chunk's start and end) count UTF-16 code units, as JavaScript strings do.
import { StoreError } from "./errors.js";
import type { DocumentWrite } from "./types.js";

/** A character no engine stores: where it is (UTF-16 code units) and what it is. */
export interface TextFault {
  /** Position in the string, in UTF-16 code units (JavaScript string index). */
  index: number;
  kind: "nul" | "lone surrogate";
  /** The code unit found there. */
  unit: number;
}

/** A fault inside a value: the path of the string that holds it (`metadata.a[2]`) and whether it is an object key. */
export interface TextFaultAt extends TextFault {
  path: string;
  /** Set when the fault is in an object's key rather than a value: the key itself. */
  key?: string;
}

// Without the `u` flag a regular expression reads code units, so it sees the halves of a pair.
const FAULT = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
const FAULTS = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/** `String.prototype.isWellFormed` (Node 20; ES2024, newer than the library this code is typed with). */
type WellFormed = string & { isWellFormed(): boolean };

/** The first NUL or lone surrogate in `text`, or undefined when every engine can store it. */
export function textFault(text: string): TextFault | undefined {
  // Nearly every text is clean: two native scans prove it several times faster than the expression.
  if ((text as WellFormed).isWellFormed() && !text.includes("\u0000")) return undefined;
  const match = FAULT.exec(text);
  if (!match) return undefined;
  const unit = text.charCodeAt(match.index);
  return { index: match.index, kind: unit === 0 ? "nul" : "lone surrogate", unit };
}

/** How deep `findTextFault` follows objects (metadata is refused deeper than 32 levels anyway). */
const MAX_DEPTH = 64;

/**
 * The first NUL or lone surrogate in a value: a string, or any string or object key inside
 * arrays and plain objects (typed arrays, such as vectors, are skipped).
 */
export function findTextFault(value: unknown, path: string, depth = 0): TextFaultAt | undefined {
  // The walk that names paths (a string per field) only for a value known to hold a fault.
  if (depth === 0 && !holdsTextFault(value, 0)) return undefined;
  if (typeof value === "string") {
    const fault = textFault(value);
    return fault ? { ...fault, path } : undefined;
  }
  if (typeof value !== "object" || value === null || ArrayBuffer.isView(value) || depth > MAX_DEPTH) return undefined;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = findTextFault(value[i], `${path}[${i}]`, depth + 1);
      if (found) return found;
    }
    return undefined;
  }
  for (const [key, item] of Object.entries(value)) {
    const inKey = textFault(key);
    if (inKey) return { ...inKey, path, key };
    const found = findTextFault(item, path === "" ? key : `${path}.${key}`, depth + 1);
    if (found) return found;
  }
  return undefined;
}

/** Whether `findTextFault` would find a fault in the value: the same walk, naming nothing. */
function holdsTextFault(value: unknown, depth: number): boolean {
  if (typeof value === "string") return textFault(value) !== undefined;
  if (typeof value !== "object" || value === null || ArrayBuffer.isView(value) || depth > MAX_DEPTH) return false;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) if (holdsTextFault(value[i], depth + 1)) return true;
    return false;
  }
  for (const key of Object.keys(value)) {
    if (textFault(key) !== undefined || holdsTextFault((value as Record<string, unknown>)[key], depth + 1)) return true;
  }
  return false;
}

const hex = (unit: number): string => `U+${unit.toString(16).toUpperCase().padStart(4, "0")}`;

/**
 * The fault in words, naming the field and the position: `title contains a NUL character (U+0000)
 * at position 1`, `metadata key "a\u0000" (in metadata.tags) contains …`.
 */
export function describeTextFault(fault: TextFaultAt): string {
  const what =
    fault.kind === "nul"
      ? "a NUL character (U+0000)"
      : `a lone surrogate (${hex(fault.unit)}, half of a UTF-16 pair without its other half)`;
  const where = fault.key === undefined ? fault.path : `the key ${JSON.stringify(fault.key.slice(0, 80))} in ${fault.path}`;
  return `${where} contains ${what} at position ${fault.index}`;
}

/** Refuses a value holding NUL or a lone surrogate with `INVALID_REQUEST`, naming where. */
export function assertStorableText(value: unknown, path: string, context = ""): void {
  const fault = findTextFault(value, path);
  if (fault) {
    throw new StoreError("INVALID_REQUEST", `${describeTextFault(fault)}${context}: no engine stores NUL or lone surrogates`);
  }
}

/** Refuses writes with NUL or a lone surrogate in any text: document, metadata, chunks, file row. */
export function assertStorableWrites(writes: DocumentWrite[]): void {
  for (const w of writes) {
    if (typeof w !== "object" || w === null) continue;
    const id = typeof w.document?.id === "string" ? ` (document ${JSON.stringify(w.document.id.slice(0, 80))})` : "";
    assertStorableText(w.document, "document", id);
    assertStorableText(w.chunks, "chunks", id);
    assertStorableText(w.file, "file", id);
  }
}

/**
 * `text` with every NUL and lone surrogate replaced by U+FFFD (one code unit for one, so offsets
 * stay valid), and how many were replaced. For copying what an older build stored.
 */
export function replaceTextFaults(text: string): { text: string; replaced: number } {
  let replaced = 0;
  const repaired = text.replace(FAULTS, () => {
    replaced++;
    return "\uFFFD";
  });
  return { text: repaired, replaced };
}
