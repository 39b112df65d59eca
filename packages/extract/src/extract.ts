// Picks the format (explicit, media type, extension, then magic bytes), checks size, and hands the
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

/** The format `input` names (explicit format, media type, then file extension), or null. */
export function detectFormat(input: Pick<ExtractInput, "name" | "mediaType" | "format">): ExtractFormat | null {
  if (input.format) return input.format;
  const media = input.mediaType?.split(";")[0]?.trim().toLowerCase();
  if (media && BY_MEDIA_TYPE[media]) return BY_MEDIA_TYPE[media];
  const extension = input.name?.toLowerCase().match(/\.([a-z0-9]+)$/)?.[1];
  return (extension && BY_EXTENSION[extension]) || null;
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
  return extractor.extract(input.bytes, { ...input, format, limits });
}
