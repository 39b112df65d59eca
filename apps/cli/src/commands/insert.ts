import { createReadStream } from "node:fs";
import type { Readable } from "node:stream";
import { StringDecoder } from "node:string_decoder";
import {
  type Database,
  DEFAULT_MAX_TEXT_LENGTH,
  DocDBError,
  EXTRACT_FORMATS,
  echo,
  extractedFormatOfName,
  type InsertResult,
  MAX_INSERT_BYTES,
} from "@docdb/core";
import { Command } from "commander";
import { action, CREATE_FLAG, parseJsonOption, printJson, warn, writableDatabase } from "../context.js";

/**
 * Reads text from a stream, stopping as soon as it holds more than `maxChars` characters (so
 * `/dev/zero` or a huge file never fills memory): the limit is checked while reading.
 */
export async function readCapped(stream: Readable, maxChars: number, what: string): Promise<string> {
  const decoder = new StringDecoder("utf8");
  let text = "";
  try {
    for await (const chunk of stream) {
      text += decoder.write(chunk as Buffer);
      if (text.length > maxChars) {
        throw new DocDBError(
          "INVALID_REQUEST",
          `${what} has more than ${maxChars} characters, the limit for one document (stopped reading there): split it into several documents`,
        );
      }
    }
  } finally {
    stream.destroy();
  }
  return text + decoder.end();
}

/** Reads stdin as bytes (a PDF, a DOCX…), refusing more than `maxBytes`. */
async function readStdinBytes(maxBytes: number): Promise<Buffer> {
  const parts: Buffer[] = [];
  let size = 0;
  for await (const chunk of process.stdin) {
    size += (chunk as Buffer).length;
    if (size > maxBytes) {
      process.stdin.destroy();
      throw new DocDBError("INVALID_REQUEST", `stdin has more than ${maxBytes} bytes, the limit for one document (stopped reading there)`);
    }
    parts.push(chunk as Buffer);
  }
  return Buffer.concat(parts);
}

interface InsertOptions {
  text?: string;
  db: string;
  create?: boolean;
  meta?: string;
  title?: string;
  key?: string;
  format?: string;
  type?: string;
  timeout?: string;
  json?: boolean;
}

/**
 * A URL, a document file (by extension or --type) or stdin with --type, when the input is one of
 * those: fetched or extracted; undefined for text, which the caller reads as before.
 */
async function insertDocumentInput(
  db: () => Promise<Database>,
  file: string | undefined,
  options: InsertOptions,
  metadata: Record<string, unknown> | undefined,
): Promise<InsertResult | undefined> {
  const common = { title: options.title, key: options.key, metadata, type: options.type };
  if (file !== undefined && /^https?:\/\//i.test(file)) {
    if (options.text !== undefined) throw new DocDBError("INVALID_REQUEST", "give either a URL or --text, not both");
    const timeout = options.timeout !== undefined ? Number(options.timeout) : undefined;
    if (timeout !== undefined && (!Number.isInteger(timeout) || timeout < 1)) {
      throw new DocDBError("INVALID_REQUEST", `--timeout takes a whole number of milliseconds, got "${options.timeout}"`);
    }
    // Your own machine: local and private addresses are allowed from the command line.
    return (await db()).insertUrl(file, { ...common, allow_private: true, timeout_ms: timeout });
  }
  if (options.text !== undefined) return undefined;
  if (file !== undefined && file !== "-" && (options.type !== undefined || extractedFormatOfName(file))) {
    return (await db()).insertFile(file, common);
  }
  if (options.type !== undefined && (file === "-" || (file === undefined && !process.stdin.isTTY))) {
    const bytes = await readStdinBytes(MAX_INSERT_BYTES);
    return (await db()).insertBytes({ ...common, bytes, type: options.type });
  }
  return undefined;
}

function readStdin(): Promise<string> {
  return readCapped(process.stdin, DEFAULT_MAX_TEXT_LENGTH, "stdin");
}

async function readFile(file: string): Promise<string> {
  try {
    return await readCapped(createReadStream(file, { highWaterMark: 64 * 1024 }), DEFAULT_MAX_TEXT_LENGTH, file);
  } catch (error) {
    if (DocDBError.isInstance(error)) throw error;
    const code = (error as NodeJS.ErrnoException).code;
    throw new DocDBError(code === "ENOENT" ? "NOT_FOUND" : "INVALID_REQUEST", `cannot read ${file}: ${(error as Error).message}`);
  }
}

function readInput(file: string | undefined, text: string | undefined): Promise<string> | string {
  if (file !== undefined && text !== undefined) throw new DocDBError("INVALID_REQUEST", "give either a FILE or --text, not both");
  if (text !== undefined) return text;
  if (file === "-" || (file === undefined && !process.stdin.isTTY)) return readStdin();
  if (file === undefined) throw new DocDBError("INVALID_REQUEST", "nothing to insert: give a FILE, - to read stdin, or --text TEXT");
  return readFile(file);
}

export function insertCommand(): Command {
  return new Command("insert")
    .description("store a document: chunk it, index its words, embed it when a model is configured")
    .argument("[file]", "file to read (text, Markdown, or a PDF, DOCX, PPTX, XLSX… document), an http(s) URL, or - for stdin")
    .option("--text <text>", "the document text itself")
    .option("--db <name>", "database", "vectors")
    .option(...CREATE_FLAG)
    .option("--meta <json>", 'metadata as a JSON object, e.g. \'{"lang":"ja"}\'')
    .option("--title <title>", "document title (weighted higher in keyword search)")
    .option("--key <key>", "your own unique key: inserting again with the same key replaces that document (same doc_id)")
    .option("--format <format>", "text or markdown (default: markdown for .md files)")
    .option("--type <type>", `document type of the file or stdin: ${EXTRACT_FORMATS.join(", ")} (default: from the extension)`)
    .option("--timeout <ms>", "URL: give up fetching after this many milliseconds (default 30000)")
    .option("--json", "print JSON")
    .addHelpText(
      "after",
      "\nDocuments (PDF, DOCX, PPTX, XLSX/ODS/CSV/TSV, HTML, EPUB, RTF, EML) are extracted to text; their chunks keep their\npage, slide or sheet and row, and the file's own title and metadata (author, created…) are kept.\n" +
        "A URL is fetched (HTML: its main text; PDF) and stored with the URL as source and key, so inserting it again\n" +
        "updates it; from the command line local and private addresses are allowed (it is your own machine).\n" +
        '\nExamples:\n  docdb insert notes.md --meta \'{"team":"search"}\'\n  docdb insert manual.pdf\n  cat slides.bin | docdb insert - --type pptx --title "Q3 review"\n  docdb insert https://example.com/guide.html\n  echo "東京は日本の首都です。" | docdb insert - --title 東京\n  docdb insert --text "hello" --db scratch --json',
    )
    .action(
      action(async (docdb, file: string | undefined, options: InsertOptions, command: Command) => {
        const metadata = parseJsonOption(options.meta, "--meta");
        if (options.format !== undefined && options.format !== "text" && options.format !== "markdown") {
          throw new DocDBError("INVALID_REQUEST", `--format must be text or markdown, got "${echo(options.format)}"`);
        }
        const open = () => writableDatabase(docdb, command, options);
        const result =
          (await insertDocumentInput(open, file, options, metadata)) ?? (await insertText(await open(), file, options, metadata));
        warn(result.warnings);
        const { warnings: _warnings, ...shown } = result;
        if (options.json) printJson(shown);
        else
          process.stdout.write(
            `${result.replaced ? "replaced" : "inserted"} ${result.doc_id}${result.format ? ` (${result.format})` : ""}: ${result.chunk_count} chunk(s), ${result.embedded ? "embedded" : "pending embedding"}${result.reused_vectors > 0 ? ` (${result.reused_vectors} vector(s) kept)` : ""}\n`,
          );
      }),
    );
}

async function insertText(
  db: Database,
  file: string | undefined,
  options: InsertOptions,
  metadata: Record<string, unknown> | undefined,
): Promise<InsertResult> {
  const text = await readInput(file, options.text);
  return db.insertDocument({
    text,
    metadata,
    title: options.title,
    key: options.key,
    source: file !== undefined && file !== "-" ? file : undefined,
    format: options.format as "text" | "markdown" | undefined,
  });
}
