// Picks the format (explicit, media type, extension, then the content's first bytes), checks size, and hands the
// bytes to that format's extractor.
import { extractorFor } from "./formats/index.js";
import { DEFAULT_LIMITS, ExtractError, type Extracted, type ExtractFormat, type ExtractInput } from "./types.js";

const BY_EXTENSION: Record<string, ExtractFormat> = {
  pdf: "pdf",
  docx: "docx",
  pptx: "pptx",
  xlsx: "xlsx",
  ods: "ods",
  csv: "csv",
  tsv: "tsv",
  html: "html",
  htm: "html",
  xhtml: "html",
  epub: "epub",
  rtf: "rtf",
  eml: "eml",
};

const BY_MEDIA_TYPE: Record<string, ExtractFormat> = {
  "application/pdf": "pdf",
  "application/vnd.openxmlformats-officedocument.wordprocessingml.document": "docx",
  "application/vnd.openxmlformats-officedocument.presentationml.presentation": "pptx",
  "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet": "xlsx",
  "application/vnd.oasis.opendocument.spreadsheet": "ods",
  "text/csv": "csv",
  "text/tab-separated-values": "tsv",
  "text/html": "html",
  "application/xhtml+xml": "html",
  "application/epub+zip": "epub",
  "application/rtf": "rtf",
  "text/rtf": "rtf",
  "message/rfc822": "eml",
};

/**
 * The format of `input`: the explicit format, else the media type, else the file extension, else
 * (when `bytes` are given) what the content starts with. Null when none of them tells.
 */
export function detectFormat(input: Pick<ExtractInput, "name" | "mediaType" | "format"> & { bytes?: Uint8Array }): ExtractFormat | null {
  if (input.format) return input.format;
  const media = input.mediaType?.split(";")[0]?.trim().toLowerCase();
  if (media && BY_MEDIA_TYPE[media]) return BY_MEDIA_TYPE[media];
  const extension = input.name?.toLowerCase().match(/\.([a-z0-9]+)$/)?.[1];
  if (extension && BY_EXTENSION[extension]) return BY_EXTENSION[extension];
  return input.bytes ? sniffFormat(input.bytes) : null;
}

/** Zip containers told apart by a part only that format has, looked for near the start (where writers put them). */
const ZIP_MARKERS: [string, ExtractFormat][] = [
  ["mimetypeapplication/epub+zip", "epub"],
  ["mimetypeapplication/vnd.oasis.opendocument.spreadsheet", "ods"],
  ["word/", "docx"],
  ["ppt/", "pptx"],
  ["xl/", "xlsx"],
];

/** The format the content's first bytes announce (PDF, RTF, HTML, the zip-based formats), or null. */
export function sniffFormat(bytes: Uint8Array): ExtractFormat | null {
  const head = new TextDecoder("latin1").decode(bytes.subarray(0, 1024));
  if (head.includes("%PDF-")) return "pdf";
  if (head.startsWith("{\\rtf")) return "rtf";
  if (head.startsWith("PK\x03\x04")) {
    const names = new TextDecoder("latin1").decode(bytes.subarray(0, 64 * 1024));
    return ZIP_MARKERS.find(([marker]) => names.includes(marker))?.[1] ?? null;
  }
  if (/^(\ufeff|\xef\xbb\xbf)?\s*(<\?xml[^>]*>\s*)?(<!--[\s\S]*?-->\s*)*<(!doctype html|html)[\s>]/i.test(head)) return "html";
  return null;
}

export async function extract(input: ExtractInput): Promise<Extracted> {
  const limits = { ...DEFAULT_LIMITS, ...input.limits };
  const format = detectFormat(input);
  if (!format) {
    throw new ExtractError(
      "unsupported_format",
      `cannot tell the format of ${input.name ? JSON.stringify(input.name.slice(0, 100)) : "the input"}; name one of: ${Object.keys(BY_EXTENSION).join(", ")}`,
    );
  }
  if (input.bytes.length > limits.maxBytes) {
    throw new ExtractError("too_large", `the file is ${input.bytes.length} bytes, over the limit of ${limits.maxBytes}`);
  }
  const extractor = await extractorFor(format);
  return wellFormed(await extractor.extract(input.bytes, { ...input, format, limits }));
}

/** Half of a UTF-16 surrogate pair without its other half. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/**
 * Replaces lone surrogates with U+FFFD, keeping every offset: a glyph a PDF's font does not map
 * to Unicode can come back as half a pair, and one bad character must not lose the document
 * (docdb refuses text that is not well-formed Unicode).
 */
function wellFormed(extracted: Extracted): Extracted {
  let replaced = 0;
  const fix = (text: string) =>
    text.replace(LONE_SURROGATE, () => {
      replaced++;
      return "\uFFFD";
    });
  const text = fix(extracted.text);
  const inText = replaced;
  const title = extracted.title === undefined ? undefined : fix(extracted.title);
  const metadata = Object.fromEntries(Object.entries(extracted.metadata).map(([k, v]) => [k, typeof v === "string" ? fix(v) : v]));
  if (replaced === 0) return extracted;
  const warning = `${inText} character(s) of the text${replaced > inText ? " (and of its title or metadata)" : ""} were not valid Unicode (half of a surrogate pair: a glyph the file does not map to a character) and were replaced by U+FFFD`;
  return { ...extracted, text, ...(title !== undefined ? { title } : {}), metadata, warnings: [...extracted.warnings, warning] };
}
