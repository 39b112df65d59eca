// CSV and TSV: decoded as UTF-8 (BOM or not), UTF-16 with a BOM, or — when not valid UTF-8 —
// Shift_JIS (common in Japan) or Windows-1252, then parsed as a stream into table rows.
import { Readable } from "node:stream";
import { CsvError, parse } from "csv-parse";
import { ExtractError, type Extracted, type ExtractLimits } from "../types.js";
import { SheetWriter } from "./sheet-common.js";
import { TextOut } from "./text-out.js";

const CHUNK = 1024 * 1024;
/** Largest single record; a file without line breaks or with an unclosed quote stops here. */
const MAX_RECORD_CHARS = 4 * 1024 * 1024;

export async function extractDelimited(bytes: Uint8Array, format: "csv" | "tsv", limits: ExtractLimits): Promise<Extracted> {
  const encoding = detectEncoding(bytes);
  const out = new TextOut(limits.maxTextChars);
  const writer = new SheetWriter(out);
  const parser = parse({
    delimiter: format === "tsv" ? "\t" : ",",
    relax_column_count: true,
    relax_quotes: true,
    skip_empty_lines: true,
    max_record_size: MAX_RECORD_CHARS,
  });
  const source = Readable.from(decodeChunks(bytes, encoding), { objectMode: false });
  source.on("error", (error) => parser.destroy(error));
  source.pipe(parser);
  let row = 0;
  try {
    for await (const record of parser as AsyncIterable<string[]>) {
      row += 1;
      writer.row(row, record);
    }
  } catch (error) {
    source.destroy();
    parser.destroy();
    if (error instanceof ExtractError) throw error;
    const at = error instanceof CsvError && typeof error.records === "number" ? error.records + 1 : row + 1;
    if (error instanceof CsvError && error.code === "CSV_MAX_RECORD_SIZE") {
      throw new ExtractError("limit_exceeded", `row ${at} is longer than ${MAX_RECORD_CHARS} characters (an unclosed quote?)`);
    }
    throw new ExtractError(
      "corrupt",
      `the ${format.toUpperCase()} file cannot be read at row ${at}: ${(error as Error).message.slice(0, 200)}`,
    );
  }
  const text = out.toString();
  if (!text.trim()) out.warnings.push("the file has no values");
  return {
    format,
    text,
    metadata: { rows: row, encoding },
    segments: out.segments,
    warnings: out.warnings,
  };
}

/** The text encoding of a delimited file: by byte-order mark, else UTF-8 when valid, else Shift_JIS when valid, else Windows-1252. */
export function detectEncoding(bytes: Uint8Array): string {
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return "utf-16le";
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return "utf-16be";
  if (decodesCleanly(bytes, "utf-8")) return "utf-8";
  if (decodesCleanly(bytes, "shift_jis")) return "shift_jis";
  return "windows-1252";
}

function decodesCleanly(bytes: Uint8Array, encoding: string): boolean {
  const decoder = new TextDecoder(encoding, { fatal: true });
  try {
    for (let offset = 0; offset < bytes.length; offset += CHUNK) {
      const end = Math.min(bytes.length, offset + CHUNK);
      decoder.decode(bytes.subarray(offset, end), { stream: end < bytes.length });
    }
    return true;
  } catch {
    return false;
  }
}

function* decodeChunks(bytes: Uint8Array, encoding: string): Generator<string> {
  const decoder = new TextDecoder(encoding);
  for (let offset = 0; offset < bytes.length; offset += CHUNK) {
    const end = Math.min(bytes.length, offset + CHUNK);
    const text = decoder.decode(bytes.subarray(offset, end), { stream: end < bytes.length });
    if (text) yield text;
  }
}
