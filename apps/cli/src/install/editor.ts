/** Edits the one entry docdb owns in a client's config file, leaving every other byte alone. */
export interface EntryEditor {
  /** Checks the file and returns docdb's entry, if any. Throws INVALID_REQUEST naming the file. */
  get(text: string): unknown;
  /** The text with docdb's entry set to `value` (added or replaced). */
  set(text: string, value: unknown): string;
  /** The text without docdb's entry. */
  remove(text: string): string;
  /** The parsed document without docdb's entry, to tell whether anything else changed. */
  rest(text: string): unknown;
  /** True when the document holds nothing but (at most) an empty server list. */
  isBare(text: string): boolean;
}
