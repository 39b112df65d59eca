// A collection file that is a document docdb extracts (PDF, DOCX, PPTX, spreadsheets, HTML…):
// its bytes extracted to Markdown, chunked by headings page by page, each chunk with its locator.
import type { DocumentWrite } from "@docdb/store";
import { DocDBError } from "../errors.js";
import { chunkByLocator, type ExtractFormatName, extractDocument } from "../extraction.js";
import { contentHash, newId, toStoredChunks } from "../stored-chunks.js";
import { chunkFile } from "./chunk-file.js";
import type { ImportFailure } from "./types.js";

/** Appended to the chunking key of extracted files, so a new extraction release re-reads them. */
export const EXTRACTION_VERSION = "x1";

/** The document of an extracted file, ready for the write batch, or why it could not be read. */
export async function extractedFileWrite(
  bytes: Uint8Array,
  path: string,
  format: ExtractFormatName,
  size: number,
  overlap: number,
): Promise<{ document: Omit<DocumentWrite, "file">; chunks: number; warnings: string[] } | { failure: ImportFailure }> {
  let extracted: Awaited<ReturnType<typeof extractDocument>>;
  try {
    extracted = await extractDocument({ bytes, name: path, type: format });
  } catch (error) {
    if (!DocDBError.isInstance(error)) throw error;
    return { failure: { path, reason: String(error.details?.reason ?? "unreadable"), message: error.message } };
  }
  const { text } = extracted;
  const chunks = await chunkByLocator(text, extracted.segments, (slice) =>
    chunkFile(slice, { kind: "markdown", language: "markdown" }, size, overlap),
  );
  const title = extracted.title ?? path;
  return {
    document: {
      document: {
        id: newId(),
        title,
        content: text,
        contentHash: contentHash(text),
        metadata: { ...extracted.metadata, path, kind: "document", language: extracted.format, format: extracted.format },
      },
      chunks: toStoredChunks(text, chunks, title, extracted.segments),
    },
    chunks: chunks.length,
    warnings: extracted.warnings.map((w) => `${path}: ${w}`),
  };
}
