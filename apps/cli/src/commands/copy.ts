import { Command } from "commander";
import { action, parseInteger, printJson, warn } from "../context.js";
import { createProgress } from "../progress.js";

export function copyCommand(): Command {
  return new Command("copy")
    .description(
      "copy a database to another place or engine (documents, chunks with their vectors, model, collections); run again to resume",
    )
    .argument("<from>", "NAME (this store), sqlite:NAME (in --data-dir), sqlite:/path/NAME.db or postgres://user@host/db#NAME")
    .argument("<to>", "same forms; created when missing")
    .option("--batch-size <n>", "documents per transaction (default 100)")
    .option("--json", "print JSON")
    .addHelpText(
      "after",
      "\nExamples:\n  docdb copy sqlite:vectors postgres://docdb@db.example:5432/docdb#vectors   move to PostgreSQL\n  docdb copy vectors sqlite:/backups/vectors.db                                back up the current store\n\nDocuments already at the target (same id) are skipped, so an interrupted copy finishes when run again.\nText an older build stored with NUL or lone surrogates is copied with U+FFFD in their place, and each such row is named.\nThe target must be empty of vectors or hold the same embedding model.",
    )
    .action(
      action(async (docdb, from: string, to: string, options: { batchSize?: string; json?: boolean }) => {
        const batchSize = options.batchSize ? parseInteger(options.batchSize, "--batch-size") : undefined;
        const progress = createProgress("copying", { quiet: options.json });
        const result = await docdb
          .copyDatabase(from, to, { batchSize, onProgress: ({ done, total }) => progress.update(done, total) })
          .finally(() => progress.finish());
        if (options.json) return printJson(result);
        warn(result.warnings);
        process.stdout.write(
          `copied ${result.copied} document(s)${result.memory_records > 0 ? ` and ${result.memory_records} agent memory record(s)` : ""}` +
            ` (${result.chunks} chunks, ${result.vectors} vectors) from ${result.from} to ${result.to}` +
            `${result.skipped > 0 ? `; ${result.skipped} already there` : ""}; ${result.collections} collection(s)` +
            `${result.repaired > 0 ? `; ${result.repaired} with NUL or lone surrogates replaced by U+FFFD` : ""}\n`,
        );
      }),
    );
}
