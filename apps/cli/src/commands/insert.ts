import { createReadStream } from "node:fs";
import type { Readable } from "node:stream";
import { StringDecoder } from "node:string_decoder";
import { DEFAULT_MAX_TEXT_LENGTH, DocDBError, echo } from "@docdb/core";
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
    .argument("[file]", "file to read, or - for stdin")
    .option("--text <text>", "the document text itself")
    .option("--db <name>", "database", "vectors")
    .option(...CREATE_FLAG)
    .option("--meta <json>", 'metadata as a JSON object, e.g. \'{"lang":"ja"}\'')
    .option("--title <title>", "document title (weighted higher in keyword search)")
    .option("--key <key>", "your own unique key: inserting again with the same key replaces that document (same doc_id)")
    .option("--format <format>", "text or markdown (default: markdown for .md files)")
    .option("--json", "print JSON")
    .addHelpText(
      "after",
      '\nExamples:\n  docdb insert notes.md --meta \'{"team":"search"}\'\n  echo "東京は日本の首都です。" | docdb insert - --title 東京\n  docdb insert --text "hello" --db scratch --json',
    )
    .action(
      action(
        async (
          docdb,
          file: string | undefined,
          options: {
            text?: string;
            db: string;
            create?: boolean;
            meta?: string;
            title?: string;
            key?: string;
            format?: string;
            json?: boolean;
          },
          command: Command,
        ) => {
          const metadata = parseJsonOption(options.meta, "--meta");
          if (options.format !== undefined && options.format !== "text" && options.format !== "markdown") {
            throw new DocDBError("INVALID_REQUEST", `--format must be text or markdown, got "${echo(options.format)}"`);
          }
          const db = await writableDatabase(docdb, command, options);
          const text = await readInput(file, options.text);
          const result = await db.insertDocument({
            text,
            metadata,
            title: options.title,
            key: options.key,
            source: file !== undefined && file !== "-" ? file : undefined,
            format: options.format as "text" | "markdown" | undefined,
          });
          warn(result.warnings);
          const { warnings: _warnings, ...shown } = result;
          if (options.json) printJson(shown);
          else
            process.stdout.write(
              `${result.replaced ? "replaced" : "inserted"} ${result.doc_id}: ${result.chunk_count} chunk(s), ${result.embedded ? "embedded" : "pending embedding"}${result.reused_vectors > 0 ? ` (${result.reused_vectors} vector(s) kept)` : ""}\n`,
            );
        },
      ),
    );
}
