// The shapes extraction speaks: what goes in (bytes and a name or media type), what comes out
// (Markdown text, document metadata, and locators for ranges of that text), and its limits.

/** The formats docdb can extract. */
export type ExtractFormat = "pdf" | "docx" | "pptx" | "xlsx" | "ods" | "csv" | "tsv" | "html" | "epub" | "rtf" | "eml";

/** Where a range of extracted text came from in the original file. Only the fields that apply are set. */
export interface Locator {
  /** PDF: 1-based page number. */
  page?: number;
  /** PPTX: 1-based slide number. */
  slide?: number;
  /** XLSX/ODS: sheet name. */
  sheet?: string;
  /** XLSX/ODS/CSV/TSV: first 1-based row of the range. */
  row?: number;
  /** EPUB: chapter (spine item) title or file; HTML/DOCX: not used (headings carry the structure). */
  section?: string;
}

/** A range `[start, end)` of `Extracted.text` (UTF-16 offsets) and where it came from. */
export interface Segment {
  start: number;
  end: number;
  locator: Locator;
}

export interface Extracted {
  format: ExtractFormat;
  /** The document as Markdown: headings as `#` lines, lists as `-` items, tables as rows. */
  text: string;
  /** The title the file names for itself (PDF info, DOCX core properties, HTML <title>…), if any. */
  title?: string;
  /** Metadata the file carries: `author`, `created` (ISO 8601), `modified`, `subject`, `pages`… */
  metadata: Record<string, string | number>;
  /** Locator ranges, in order and not overlapping; empty for formats without pages/slides/sheets. */
  segments: Segment[];
  /** Things a person should know that did not stop extraction (a page without text, a skipped image…). */
  warnings: string[];
}

export interface ExtractLimits {
  /** Largest input file. Default 256 MiB. */
  maxBytes: number;
  /** Largest total inflated size of a zip container's entries (DOCX, PPTX, XLSX, ODS, EPUB). Default 512 MiB. */
  maxInflatedBytes: number;
  /** Most entries in a zip container. Default 10,000. */
  maxEntries: number;
  /** Largest extracted text, in characters. Default 64 Mi. */
  maxTextChars: number;
}

export const DEFAULT_LIMITS: ExtractLimits = {
  maxBytes: 256 * 1024 * 1024,
  maxInflatedBytes: 512 * 1024 * 1024,
  maxEntries: 10_000,
  maxTextChars: 64 * 1024 * 1024,
};

export interface ExtractInput {
  bytes: Uint8Array;
  /** A file name or path; its extension picks the format when no media type is given. */
  name?: string;
  /** A media type such as `application/pdf` or `text/html; charset=utf-8`. */
  mediaType?: string;
  /** The format, when the caller knows it (e.g. `--type pdf`). Wins over name and media type. */
  format?: ExtractFormat;
  /** For HTML: the page's URL, used to resolve links and as a fallback title. */
  url?: string;
  limits?: Partial<ExtractLimits>;
}

/** One format's extractor. Each lives in `formats/<format>.ts`. */
export interface Extractor {
  formats: ExtractFormat[];
  extract(bytes: Uint8Array, input: ExtractInput & { format: ExtractFormat; limits: ExtractLimits }): Promise<Extracted>;
}

/**
 * Why a file could not be extracted. `code` is for programs; `message` is for a person and says
 * what to do (e.g. "no text layer — OCR it first").
 */
export type ExtractErrorCode = "unsupported_format" | "encrypted" | "no_text_layer" | "corrupt" | "too_large" | "limit_exceeded";

export class ExtractError extends Error {
  override readonly name = "ExtractError";
  constructor(
    readonly code: ExtractErrorCode,
    message: string,
  ) {
    super(message);
  }
}
