import { type Chunk, chunkCode, chunkMarkdownWithCode, chunkText } from "@docdb/chunker";
import type { FileKind } from "./file-kind.js";

/**
 * Bumped whenever a chunker changes how it cuts, so `update` re-chunks files imported with the
 * old rules even though their bytes did not change.
 */
const CHUNKER_VERSION = 2;

/** The key stored with each file: a file imported under other settings is re-chunked. */
export function chunkingKey(size: number, overlap: number): string {
  return `v${CHUNKER_VERSION}:${size}:${overlap}`;
}

/**
 * Markdown by headings, code by declarations, everything else by sentences. A code snippet in a
 * Markdown file that does not parse is cut by lines like any prose; only code files count as
 * fallbacks (`status`).
 */
export async function chunkFile(text: string, kind: FileKind, size: number, overlap: number): Promise<Chunk[]> {
  if (kind.kind === "markdown")
    return (await chunkMarkdownWithCode(text, { size, overlap })).map(({ fallback: _fallback, ...chunk }) => chunk);
  if (kind.kind === "code") return await chunkCode(text, { size, overlap, language: kind.dialect ?? kind.language });
  return chunkText(text, { size, overlap });
}
