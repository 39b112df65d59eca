// The size of read-only SQL results, counted the same way by every engine (the SQLite engine's
// reader process, packages/store-sqlite/src/sql-child.mjs, repeats these few lines: it runs
// outside the bundle).

/** The default cap on the cells of one read-only SQL result: 8 MiB. */
export const SQL_DEFAULT_MAX_BYTES = 8 * 1024 * 1024;

/** One cell's size: a string's UTF-8 bytes, a number's decimal digits, 4 for NULL. */
export function sqlCellBytes(value: unknown): number {
  if (value === null || value === undefined) return 4;
  if (typeof value === "string") return Buffer.byteLength(value, "utf8");
  return String(value).length;
}

/** One row's size: its cells plus one byte each and two for the row (about its JSON size). */
export function sqlRowBytes(row: readonly unknown[]): number {
  let bytes = 2;
  for (const cell of row) bytes += sqlCellBytes(cell) + 1;
  return bytes;
}

/** The message of a first row that alone is over the cap (INVALID_REQUEST on every engine). */
export function sqlRowTooLarge(rowBytes: number, maxBytes: number): string {
  return `the first row alone is ${rowBytes} bytes, over the ${maxBytes}-byte result cap (max_bytes): select fewer or shorter columns, e.g. substr(text, 1, 1000)`;
}
