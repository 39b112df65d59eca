import { Command } from "commander";
import { action, parseInteger } from "../context.js";
import { printWatchEvent } from "../watch-events.js";

export function watchCommand(): Command {
  return new Command("watch")
    .description("keep enabled collections in step with their folders: re-import changed files until stopped (Ctrl-C)")
    .option("--db <name>", "database", "vectors")
    .option("--debounce <ms>", "wait this long after the last change before re-importing", "2000")
    .option("--json", "print one JSON object per event")
    .action(
      action(async (docdb, options: { db: string; debounce: string; json?: boolean }) => {
        const db = await docdb.database(options.db);
        const watcher = db.collections.watch({
          debounceMs: parseInteger(options.debounce, "--debounce"),
          onEvent: (event) => printWatchEvent(event, options.json),
        });
        const stopped = new Promise<void>((resolve) => {
          process.once("SIGINT", resolve);
          process.once("SIGTERM", resolve);
        });
        await watcher.start();
        if (watcher.names.length === 0 && !options.json) {
          process.stderr.write(`no enabled collections in "${options.db}" yet; waiting for one (docdb collection add)\n`);
        }
        // Keeps the process alive: the file watchers themselves do not.
        const keepAlive = setInterval(() => undefined, 60_000);
        await stopped;
        clearInterval(keepAlive);
        await watcher.close();
      }),
    );
}
