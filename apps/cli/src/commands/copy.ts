import type { CopyResult } from "@docdb/core";
import { Command } from "commander";
import { action, parseInteger, printJson, warn } from "../context.js";
import { createProgress } from "../progress.js";

export function copyCommand(): Command {
  return new Command("copy")
    .description(
      "copy a database to another place or engine (documents, chunks with their vectors, model, collections), or bring an earlier copy up to date; run again to resume",
    )
    .argument("<from>", "NAME (this store), sqlite:NAME (in --data-dir), sqlite:/path/NAME.db or postgres://user@host/db#NAME")
    .argument("<to>", "same forms; created when missing")
    .option("--batch-size <n>", "documents per transaction (default 100)")
    .option("--dry-run", "list what would change at the target (counts and ids) and write nothing")
    .option("--json", "print JSON")
    .addHelpText(
      "after",
      "\nExamples:\n  docdb copy sqlite:vectors postgres://docdb@db.example:5432/docdb#vectors   move to PostgreSQL\n  docdb copy vectors sqlite:/backups/vectors.db                                back up the current store\n\nInto an existing target, copy syncs: new and changed documents (text, metadata, times, vectors, file rows) are written,\ndocuments and collections the source no longer has are removed, the rest is left alone; an interrupted copy finishes when run again.\nText an older build stored with NUL or lone surrogates is copied with U+FFFD in their place, and each such row is named.\nThe target must be empty of vectors or hold the same embedding model.",
    )
    .action(
      action(async (docdb, from: string, to: string, options: { batchSize?: string; dryRun?: boolean; json?: boolean }) => {
        const batchSize = options.batchSize ? parseInteger(options.batchSize, "--batch-size") : undefined;
        const progress = createProgress(options.dryRun ? "comparing" : "copying", { quiet: options.json });
        const result = await docdb
          .copyDatabase(from, to, { batchSize, dryRun: options.dryRun, onProgress: ({ done, total }) => progress.update(done, total) })
          .finally(() => progress.finish());
        if (options.json) return printJson(result);
        warn(result.warnings);
        process.stdout.write(`${copySummary(result)}\n`);
        if (result.changes) {
          const c = result.changes;
          for (const [label, ids] of [
            ["new", c.new],
            ["updated", c.updated],
            ["deleted", c.deleted],
            ["collection updated", c.collections_updated],
            ["collection deleted", c.collections_deleted],
          ] as const) {
            for (const id of ids) process.stdout.write(`  ${label}: ${id}\n`);
          }
        }
      }),
    );
}

/** One line: what the copy did (or, dry, would do). */
export function copySummary(result: CopyResult): string {
  const where = `from ${result.from} to ${result.to}`;
  if (result.up_to_date) {
    return `target already up to date: nothing to copy ${where} (${result.skipped} document(s), ${result.collections} collection(s))`;
  }
  const memory = result.memory_records > 0 ? ` and ${result.memory_records} agent memory record(s)` : "";
  const written = result.dry_run ? "" : ` (${result.chunks} chunks, ${result.vectors} vectors)`;
  let line = `${result.dry_run ? "would copy" : "copied"} ${result.copied} new document(s)${memory}${written} ${where}`;
  if (result.updated > 0) line += `; ${result.updated} ${result.dry_run ? "to update" : "updated"}`;
  if (result.deleted > 0) line += `; ${result.deleted} ${result.dry_run ? "to delete" : "deleted"}`;
  if (result.skipped > 0) line += `; ${result.skipped} already up to date`;
  line += `; ${result.collections} collection(s)`;
  if (result.collections_updated + result.collections_deleted > 0) {
    line += ` (${result.collections_updated} created or changed, ${result.collections_deleted} deleted)`;
  }
  if (result.repaired > 0) line += `; ${result.repaired} with NUL or lone surrogates replaced by U+FFFD`;
  return line;
}
