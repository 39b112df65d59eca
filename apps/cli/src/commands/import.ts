import { DocDBError, echo, IMPORT_MODES, type ImportMode, type ImportSummary } from "@docdb/core";
import { Command } from "commander";
import { action, parseInteger, printJson, warn } from "../context.js";
import { createImportProgress } from "../import-progress.js";

function describeSkipped(skipped: ImportSummary["skipped"]): string {
  const parts = Object.entries(skipped).map(([reason, n]) => `${n} ${reason.replace("_", " ")}`);
  return parts.length > 0 ? `; skipped ${parts.join(", ")}` : "";
}

export function importCommand(): Command {
  return new Command("import")
    .description("import a collection's folder: add new files, re-chunk changed ones, remove deleted ones")
    .requiredOption("-n, --name <name>", "collection (create it with `docdb collection add`)")
    .option("--mode <mode>", "update: only what changed; new: fail if the collection has documents; replace: rebuild", "update")
    .option("--chunk-size <n>", "characters per chunk (default: the last import's, else 700)")
    .option("--chunk-overlap <n>", "characters shared by neighbouring chunks (default: the last import's, else 100)")
    .option(
      "--max-file-size <bytes>",
      "skip larger files (default: the last import's, else 1048576; documents such as PDFs: up to 64 MiB or this, whichever is larger)",
    )
    .option("--strict", "exit with status 1 when any file could not be read (default: report it and exit 0)")
    .option("--db <name>", "database", "vectors")
    .option("--json", "print the summary as JSON")
    .addHelpText(
      "after",
      "\nReads text, Markdown and code, and extracts documents: PDF, DOCX, PPTX, XLSX/ODS/CSV/TSV, HTML, EPUB, RTF, EML\n(chunks keep their page, slide or sheet and row). A file that cannot be read (encrypted, a scan with no text\nlayer, corrupt, too large) is reported with its reason and the rest are imported; --strict makes that exit 1.\nSkips .git, node_modules, build output, binary files and what .gitignore or .docdbignore exclude.\nStopped midway (Ctrl-C, a crash), it leaves whole files only: run it again to finish.",
    )
    .action(
      action(
        async (
          docdb,
          options: {
            name: string;
            mode: string;
            chunkSize?: string;
            chunkOverlap?: string;
            maxFileSize?: string;
            db: string;
            json?: boolean;
            strict?: boolean;
          },
        ) => {
          if (!IMPORT_MODES.includes(options.mode as ImportMode)) {
            throw new DocDBError("INVALID_REQUEST", `--mode must be one of ${IMPORT_MODES.join(", ")}, got "${echo(options.mode)}"`);
          }
          const db = await docdb.database(options.db);
          const progress = createImportProgress(options.name, { quiet: options.json && !process.stderr.isTTY });
          const controller = new AbortController();
          const onSignal = () => controller.abort();
          process.once("SIGINT", onSignal);
          process.once("SIGTERM", onSignal);
          let summary: ImportSummary;
          try {
            summary = await db.collections.import(options.name, {
              mode: options.mode as ImportMode,
              chunk_size: options.chunkSize !== undefined ? parseInteger(options.chunkSize, "--chunk-size") : undefined,
              chunk_overlap: options.chunkOverlap !== undefined ? parseInteger(options.chunkOverlap, "--chunk-overlap") : undefined,
              max_file_size: options.maxFileSize !== undefined ? parseInteger(options.maxFileSize, "--max-file-size") : undefined,
              signal: controller.signal,
              onProgress: (p) => {
                // Each file that cannot be read is named as it happens, with its reason.
                if (p.failure) {
                  progress.interrupt();
                  process.stderr.write(`docdb: failed: ${p.failure.path}: ${p.failure.message} (${p.failure.reason})\n`);
                  return;
                }
                progress.update(p);
              },
            });
          } finally {
            progress.finish();
            process.off("SIGINT", onSignal);
            process.off("SIGTERM", onSignal);
          }
          warn(summary.warnings);
          // --strict: a file that could not be read fails the run (the others are imported either way).
          if (options.strict && summary.failed.length > 0) process.exitCode = 1;
          if (options.json) {
            const { changed: _changed, ...shown } = summary;
            return printJson(shown);
          }
          process.stdout.write(
            `${summary.collection}: ${summary.added} added, ${summary.updated} updated, ${summary.removed} removed, ${summary.unchanged} unchanged` +
              `${describeSkipped(summary.skipped)}; ${summary.chunks} chunk(s) written, ${summary.total_chunks} in the collection` +
              `${summary.reused_vectors > 0 ? `, ${summary.reused_vectors} unchanged chunk(s) kept their vectors` : ""}` +
              `${summary.pending > 0 ? ` (${summary.pending} of them pending embedding)` : ""}` +
              `${summary.failed.length > 0 ? `; ${summary.failed.length} file(s) failed` : ""}; ${summary.seconds.toFixed(2)} s\n`,
          );
          for (const f of summary.failed) process.stdout.write(`  failed: ${f.path}: ${f.message} (${f.reason})\n`);
        },
      ),
    );
}
