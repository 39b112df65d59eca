// Inserting files and bytes: a document format (PDF, DOCX, PPTX, spreadsheets, HTML…) is
// extracted to Markdown with its title, metadata and page/slide/sheet locators; text is stored as is.
import { promises as fs } from "node:fs";
import { chunkMarkdown } from "@docdb/chunker";
import { nodeCrypto } from "../builtins.js";
import { decodeText } from "../collections/file-kind.js";
import { DocDBError, echo } from "../errors.js";
import { chunkByLocator, detectExtractFormat, extractDocument, extractedMetadata } from "../extraction.js";
import { type FetchOptions, fetchUrl } from "../fetch-url.js";
import type { InsertBytesInput, InsertFileOptions, InsertResult, InsertUrlOptions } from "../types.js";
import type { DatabaseContext } from "./context.js";
import { assertUserCollection, insertTogether } from "./ingest.js";

/** Largest file or byte string `insertFile`/`insertBytes` take: 256 MiB (extraction's own limit). */
export const MAX_INSERT_BYTES = 256 * 1024 * 1024;

/** Stores bytes as a document (see Database.insertBytes). */
export async function insertBytes(ctx: DatabaseContext, input: InsertBytesInput): Promise<InsertResult> {
  if (typeof input !== "object" || input === null || !(input.bytes instanceof Uint8Array)) {
    throw new DocDBError("INVALID_REQUEST", "insertBytes needs { bytes: Uint8Array } and a name, media_type or type");
  }
  assertUserCollection({ text: "", collection: input.collection });
  if (input.bytes.length > MAX_INSERT_BYTES) {
    throw new DocDBError("INVALID_REQUEST", `the document is ${input.bytes.length} bytes, over the limit of ${MAX_INSERT_BYTES} bytes`);
  }
  const source = input.source ?? input.name;
  const format = await detectExtractFormat(input);
  if (format === null) {
    const text = decodeText(Buffer.from(input.bytes.buffer, input.bytes.byteOffset, input.bytes.length));
    if (text === null) {
      throw new DocDBError(
        "INVALID_REQUEST",
        `${input.name ? echo(input.name) : "the input"} is neither text nor a document format docdb reads: name its type (pdf, docx, pptx, xlsx, html…)`,
      );
    }
    const markdown = input.format === "markdown" || (input.format === undefined && /\.(md|markdown|mdx)$/i.test(input.name ?? ""));
    const [result] = await insertTogether(ctx, [
      {
        text,
        title: input.title,
        metadata: input.metadata,
        source,
        key: input.key,
        collection: input.collection,
        format: markdown ? "markdown" : "text",
      },
    ]);
    return result as InsertResult;
  }
  const extracted = await extractDocument({ ...input, type: format });
  const chunks = await chunkByLocator(extracted.text, extracted.segments, (slice) => chunkMarkdown(slice, ctx.services.chunkOptions));
  const [result] = await insertTogether(ctx, [
    {
      text: extracted.text,
      title: input.title ?? extracted.title,
      metadata: extractedMetadata(extracted, input.metadata),
      source,
      key: input.key,
      collection: input.collection,
      format: "markdown",
      segments: extracted.segments,
      chunks,
    },
  ]);
  const stored = result as InsertResult;
  return { ...stored, format: extracted.format, warnings: [...extracted.warnings, ...stored.warnings] };
}

/** Stores a file as a document, its path as the source (see Database.insertFile). */
export async function insertFile(ctx: DatabaseContext, path: string, options: InsertFileOptions = {}): Promise<InsertResult> {
  if (typeof path !== "string" || path === "") throw new DocDBError("INVALID_REQUEST", "insertFile needs a file path");
  let bytes: Buffer;
  try {
    const stat = await fs.stat(path);
    if (!stat.isFile()) throw new DocDBError("INVALID_REQUEST", `${echo(path)} is not a file`);
    if (stat.size > MAX_INSERT_BYTES) {
      throw new DocDBError("INVALID_REQUEST", `${echo(path)} is ${stat.size} bytes, over the limit of ${MAX_INSERT_BYTES} bytes`);
    }
    bytes = await fs.readFile(path);
  } catch (error) {
    if (DocDBError.isInstance(error)) throw error;
    const code = (error as NodeJS.ErrnoException).code;
    throw new DocDBError(code === "ENOENT" ? "NOT_FOUND" : "INVALID_REQUEST", `cannot read ${echo(path)}: ${(error as Error).message}`);
  }
  return insertBytes(ctx, { ...options, bytes, name: path, source: options.source ?? path });
}

/** The key a fetched page is stored under: its URL (a long one shortened with its hash, within the 512-character limit). */
export function urlKey(url: string): string {
  if (url.length <= 512) return url;
  return `${url.slice(0, 440)}#sha256=${nodeCrypto().createHash("sha256").update(url).digest("hex").slice(0, 32)}`;
}

/**
 * Fetches a web page or PDF and stores it (see Database.insertUrl): the URL becomes the
 * document's `source` and `key`, so inserting it again replaces it.
 */
export async function insertUrl(ctx: DatabaseContext, url: string, options: InsertUrlOptions = {}): Promise<InsertResult> {
  if (typeof url !== "string" || url === "") throw new DocDBError("INVALID_REQUEST", "insertUrl needs an http or https URL");
  const fetchOptions: FetchOptions = {
    allowPrivate: options.allow_private ?? false,
    timeoutMs: options.timeout_ms,
    maxBytes: options.max_bytes,
    maxRedirects: options.max_redirects,
  };
  const fetched = await fetchUrl(url, fetchOptions);
  const name = new URL(fetched.finalUrl).pathname;
  const result = await insertBytes(ctx, {
    title: options.title,
    metadata: { url: fetched.finalUrl, ...(options.metadata ?? {}) },
    collection: options.collection,
    type: options.type,
    bytes: fetched.bytes,
    name,
    media_type: fetched.mediaType,
    url: fetched.finalUrl,
    source: url,
    key: options.key ?? urlKey(url),
  });
  return result;
}
