import { readFileSync } from "node:fs";
import { DocDBError } from "@docdb/core";
import { Command } from "commander";
import { action, parseJsonOption, printJson, warn } from "../context.js";

async function readStdin(): Promise<string> {
  const parts: Buffer[] = [];
  for await (const chunk of process.stdin) parts.push(chunk as Buffer);
  return Buffer.concat(parts).toString("utf8");
}

function readInput(file: string | undefined, text: string | undefined): Promise<string> | string {
  if (file !== undefined && text !== undefined) throw new DocDBError("INVALID_REQUEST", "give either a FILE or --text, not both");
  if (text !== undefined) return text;
  if (file === "-" || (file === undefined && !process.stdin.isTTY)) return readStdin();
  if (file === undefined) throw new DocDBError("INVALID_REQUEST", "nothing to insert: give a FILE, - to read stdin, or --text TEXT");
  try {
    return readFileSync(file, "utf8");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new DocDBError(code === "ENOENT" ? "NOT_FOUND" : "INVALID_REQUEST", `cannot read ${file}: ${(error as Error).message}`);
  }
}

export function insertCommand(): Command {
  return new Command("insert")
    .description("store a document: chunk it, index its words, embed it when a model is configured")
    .argument("[file]", "file to read, or - for stdin")
    .option("--text <text>", "the document text itself")
    .option("--db <name>", "database (created when missing)", "vectors")
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
          options: { text?: string; db: string; meta?: string; title?: string; key?: string; format?: string; json?: boolean },
        ) => {
          const metadata = parseJsonOption(options.meta, "--meta");
          if (options.format !== undefined && options.format !== "text" && options.format !== "markdown") {
            throw new DocDBError("INVALID_REQUEST", `--format must be text or markdown, got "${options.format}"`);
          }
          const db = await docdb.database(options.db, { create: true });
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
