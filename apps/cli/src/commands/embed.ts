import { DocDBError } from "@docdb/core";
import { Command } from "commander";
import { action, parseInteger, printJson } from "../context.js";
import { createProgress } from "../progress.js";

/**
 * Runs `fn` with a signal that Ctrl-C aborts: the batch in flight is dropped, finished
 * batches are already committed, and the command can simply be run again.
 */
async function interruptible<T>(fn: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const controller = new AbortController();
  const onSigint = () =>
    controller.abort(new DocDBError("INTERNAL", "interrupted; finished batches are saved, run the command again to continue"));
  process.once("SIGINT", onSigint);
  try {
    return await fn(controller.signal);
  } finally {
    process.off("SIGINT", onSigint);
  }
}

export function embedCommand(): Command {
  return new Command("embed")
    .description("embed chunks stored without vectors (resumable: run again after an interruption)")
    .option("--pending", "embed every pending chunk (the only mode for now)")
    .option("--db <name>", "database", "vectors")
    .option("--batch-size <n>", "chunks per committed batch")
    .option("--json", "print JSON")
    .action(
      action(async (docdb, options: { pending?: boolean; db: string; batchSize?: string; json?: boolean }) => {
        if (!options.pending) throw new DocDBError("INVALID_REQUEST", "say what to embed: `docdb embed --pending`");
        const db = await docdb.database(options.db);
        const batchSize = options.batchSize ? parseInteger(options.batchSize, "--batch-size") : undefined;
        const progress = createProgress("embedding", { quiet: options.json });
        const result = await interruptible((signal) =>
          db.embedPending({ batch_size: batchSize, signal, onProgress: ({ done, total }) => progress.update(done, total) }),
        ).finally(() => progress.finish());
        if (options.json) printJson(result);
        else process.stdout.write(`embedded ${result.embedded} chunk(s); ${result.remaining} pending\n`);
      }),
    );
}

export function reembedCommand(): Command {
  return new Command("reembed")
    .description("rebuild every vector with the current embedding model (after a model change; resumable)")
    .option("--db <name>", "database", "vectors")
    .option("--batch-size <n>", "chunks per committed batch")
    .option("--json", "print JSON")
    .action(
      action(async (docdb, options: { db: string; batchSize?: string; json?: boolean }) => {
        const db = await docdb.database(options.db);
        const batchSize = options.batchSize ? parseInteger(options.batchSize, "--batch-size") : undefined;
        const progress = createProgress("re-embedding", { quiet: options.json });
        const result = await interruptible((signal) =>
          db.reembed({ batch_size: batchSize, signal, onProgress: ({ done, total }) => progress.update(done, total) }),
        ).finally(() => progress.finish());
        if (options.json) printJson(result);
        else process.stdout.write(`re-embedded ${result.embedded} chunk(s); ${result.remaining} pending\n`);
      }),
    );
}
