// Documents that are not plain text (PDF, Word, slides, spreadsheets, HTML…): which names and
// media types are extracted, bytes → @docdb/extract → an insert's text, title, metadata and
// locators, and extraction failures as DocDBErrors a person can act on.
import type { ChunkLocator } from "@docdb/store";
import { DocDBError, echo } from "./errors.js";

/** The formats docdb extracts (the `--type` values), as `@docdb/extract` names them. */
export const EXTRACT_FORMATS = ["pdf", "docx", "pptx", "xlsx", "ods", "csv", "tsv", "html", "epub", "rtf", "eml"] as const;
export type ExtractFormatName = (typeof EXTRACT_FORMATS)[number];

/** File extensions read through extraction rather than as text (folder import, the watcher, `insert FILE`). */
const EXTRACTED_EXTENSIONS: Record<string, ExtractFormatName> = {
  ".pdf": "pdf",
  ".docx": "docx",
  ".pptx": "pptx",
  ".xlsx": "xlsx",
  ".ods": "ods",
  ".csv": "csv",
  ".tsv": "tsv",
  ".html": "html",
  ".htm": "html",
  ".xhtml": "html",
  ".epub": "epub",
  ".rtf": "rtf",
  ".eml": "eml",
};

/** Longest text of one extracted document (a 300-page PDF is about a million characters): 20 million characters. */
export const MAX_EXTRACTED_TEXT_LENGTH = 20_000_000;

/**
 * Most a zip container (DOCX, PPTX, XLSX, ODS, EPUB) may inflate to in docdb: 128 MiB (extraction's
 * own default is 512 MiB). Entries are inflated in memory, so this bounds what one file can take.
 */
export const MAX_INFLATED_BYTES = 128 * 1024 * 1024;

/** Extensions of document formats docdb cannot read: named in import results instead of skipped silently. */
export const UNREADABLE_DOCUMENT_EXTENSIONS = new Set([".doc", ".xls", ".ppt", ".odt", ".odp"]);

/** The format a file name's extension names for extraction, or null for text and code. */
export function extractedFormatOfName(name: string): ExtractFormatName | null {
  const match = name.toLowerCase().match(/\.[a-z0-9]+$/);
  return (match && EXTRACTED_EXTENSIONS[match[0]]) || null;
}

/** A range of extracted text and where it came from (a segment of `@docdb/extract`). */
export interface LocatorSegment {
  start: number;
  end: number;
  locator: ChunkLocator;
}

/** What extraction gives an insert. */
export interface ExtractedDocument {
  format: ExtractFormatName;
  text: string;
  title?: string;
  metadata: Record<string, string | number>;
  segments: LocatorSegment[];
  warnings: string[];
}

export interface ExtractRequest {
  bytes: Uint8Array;
  name?: string;
  media_type?: string;
  type?: string;
  url?: string;
}

/** The format of a request (explicit type, media type, then name), or null when it names none docdb extracts. */
export async function detectExtractFormat(request: Omit<ExtractRequest, "bytes">): Promise<ExtractFormatName | null> {
  if (request.type !== undefined) return checkType(request.type);
  const { detectFormat } = await import("@docdb/extract");
  return detectFormat({ name: request.name, mediaType: request.media_type }) as ExtractFormatName | null;
}

/** An explicit `type`, checked against the formats docdb extracts. */
export function checkType(type: unknown): ExtractFormatName {
  const name = typeof type === "string" ? type.toLowerCase().replace(/^\./, "") : type;
  const known = name === "htm" || name === "xhtml" ? "html" : name;
  if (typeof known !== "string" || !(EXTRACT_FORMATS as readonly string[]).includes(known)) {
    throw new DocDBError(
      "INVALID_REQUEST",
      `unknown document type ${echo(JSON.stringify(type))}: use one of ${EXTRACT_FORMATS.join(", ")}`,
    );
  }
  return known as ExtractFormatName;
}

/**
 * Extracts a document. INVALID_REQUEST with the extractor's own words when the file cannot be
 * read (encrypted, no text layer — OCR it first, corrupt, too large, over a limit, unknown
 * format); `details.reason` carries the extractor's code.
 */
export async function extractDocument(request: ExtractRequest): Promise<ExtractedDocument> {
  const extract = await import("@docdb/extract");
  const format = request.type !== undefined ? checkType(request.type) : undefined;
  let result: Awaited<ReturnType<typeof extract.extract>>;
  try {
    // Large files are extracted in a worker thread. A Node Buffer is copied into a plain
    // Uint8Array: PDF.js refuses Buffers, and a worker may take the bytes it is handed.
    const bytes = Buffer.isBuffer(request.bytes) ? new Uint8Array(request.bytes) : request.bytes;
    result = await extract.extractAuto({
      bytes,
      name: request.name,
      mediaType: request.media_type,
      format,
      url: request.url,
      limits: { maxTextChars: MAX_EXTRACTED_TEXT_LENGTH, maxInflatedBytes: MAX_INFLATED_BYTES },
    });
  } catch (error) {
    if (error instanceof extract.ExtractError || (error instanceof Error && error.name === "ExtractError")) {
      const code = (error as { code?: string }).code ?? "corrupt";
      throw new DocDBError("INVALID_REQUEST", error.message, { cause: error, details: { reason: code } });
    }
    const what = request.name ? echo(request.name) : "the document";
    const message = error instanceof Error ? error.message : String(error);
    throw new DocDBError("INVALID_REQUEST", `cannot extract ${what}: ${message}`, { cause: error, details: { reason: "corrupt" } });
  }
  if (result.text.trim() === "") {
    throw new DocDBError("INVALID_REQUEST", `no text found in ${request.name ? echo(request.name) : `the ${result.format} document`}`, {
      details: { reason: "empty" },
    });
  }
  return {
    format: result.format as ExtractFormatName,
    text: result.text,
    ...(result.title?.trim() ? { title: result.title.trim().slice(0, 1000) } : {}),
    metadata: result.metadata,
    segments: result.segments,
    warnings: result.warnings,
  };
}

/**
 * Document metadata of an extracted document: what the file says (author, created…) and its
 * `format`, under the caller's own values (which win).
 */
export function extractedMetadata(extracted: ExtractedDocument, caller: Record<string, unknown> | undefined): Record<string, unknown> {
  return { ...extracted.metadata, format: extracted.format, ...(caller ?? {}) };
}

/** The locator of the segment `offset` falls in (segments in order, not overlapping), or null. */
export function locatorAt(segments: LocatorSegment[], offset: number): ChunkLocator | null {
  let low = 0;
  let high = segments.length - 1;
  let found: LocatorSegment | undefined;
  while (low <= high) {
    const mid = (low + high) >> 1;
    const segment = segments[mid] as LocatorSegment;
    if (segment.start <= offset) {
      found = segment;
      low = mid + 1;
    } else high = mid - 1;
  }
  // Between two segments (a separator line), the chunk belongs to the one that follows.
  if (found && offset >= found.end) found = segments[low] ?? found;
  if (!found) found = segments[0];
  if (!found) return null;
  const locator = Object.fromEntries(Object.entries(found.locator).filter(([, v]) => v !== undefined && v !== null));
  return Object.keys(locator).length > 0 ? (locator as ChunkLocator) : null;
}

/** A locator as people write it: `p. 3`, `slide 2`, `sheet "売上" row 12`, `section "Chapter 1"`. */
export function describeLocator(locator: ChunkLocator | null | undefined): string {
  if (!locator) return "";
  const parts: string[] = [];
  if (locator.page !== undefined) parts.push(`p. ${locator.page}`);
  if (locator.slide !== undefined) parts.push(`slide ${locator.slide}`);
  if (locator.sheet !== undefined) parts.push(`sheet ${JSON.stringify(locator.sheet)}`);
  if (locator.row !== undefined) parts.push(`row ${locator.row}`);
  if (locator.section !== undefined) parts.push(`section ${JSON.stringify(locator.section)}`);
  return parts.join(" ");
}

/**
 * The ranges of `text` a chunk must not cross: runs of segments on one page, slide, sheet or
 * section (rows of a sheet stay together), gaps joined to the run that follows. The whole text
 * when there are no segments.
 */
export function locatorRanges(text: string, segments: LocatorSegment[]): { start: number; end: number }[] {
  const key = (l: ChunkLocator) => JSON.stringify([l.page, l.slide, l.sheet, l.section]);
  const starts: number[] = [];
  let previous: string | undefined;
  for (const segment of segments) {
    const current = key(segment.locator);
    if (current !== previous) starts.push(starts.length === 0 ? 0 : segment.start);
    previous = current;
  }
  if (starts.length === 0) return [{ start: 0, end: text.length }];
  return starts.map((start, i) => ({ start, end: starts[i + 1] ?? text.length })).filter((r) => r.end > r.start);
}

/**
 * Chunks an extracted document page by page (slide by slide, sheet by sheet): `chunkRange` cuts
 * one range's text, and its chunks are moved to their place in the whole text and numbered in
 * order, so that no chunk spans two pages and each chunk's locator is exact.
 */
export async function chunkByLocator<C extends { index: number; start: number; end: number; headingPath?: string[] }>(
  text: string,
  segments: LocatorSegment[],
  chunkRange: (slice: string) => C[] | Promise<C[]>,
): Promise<C[]> {
  const out: C[] = [];
  // A page that starts under a heading of an earlier page keeps it.
  let headingPath: string[] | undefined;
  for (const range of locatorRanges(text, segments)) {
    for (const chunk of await chunkRange(text.slice(range.start, range.end))) {
      const own = chunk.headingPath && chunk.headingPath.length > 0 ? chunk.headingPath : undefined;
      headingPath = own ?? headingPath;
      out.push({
        ...chunk,
        index: out.length,
        start: chunk.start + range.start,
        end: chunk.end + range.start,
        ...(headingPath ? { headingPath } : {}),
      });
    }
  }
  return out;
}
