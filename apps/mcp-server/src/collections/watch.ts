import { type CollectionWatcher, DEFAULT_DB_NAME, type DocDB } from "@docdb/core";
import { whenDatabaseExists } from "./sync.js";

/**
 * `serve --watch`: re-imports changed files of the database's enabled collections while the
 * server runs (see CollectionWatcher). Events go to the log on stderr.
 */
export function startCollectionWatcher(docdb: DocDB, options: { db?: string; debounceMs?: number } = {}): { close(): Promise<void> } {
  const db = options.db ?? DEFAULT_DB_NAME;
  const logger = docdb.logger;
  let watcher: CollectionWatcher | undefined;
  const stopWaiting = whenDatabaseExists(docdb, db, 1000, async () => {
    watcher = (await docdb.database(db)).collections.watch({
      debounceMs: options.debounceMs,
      onEvent: (event) => {
        if (event.type === "error")
          logger.warn({ collection: event.collection, code: event.error.code, err: event.error.message }, "watch");
        else if (event.type === "imported") {
          const { added, updated, removed, unchanged, chunks, seconds } = event.summary;
          if (event.reason === "start" || added + updated + removed > 0)
            logger.info(
              { collection: event.collection, reason: event.reason, added, updated, removed, unchanged, chunks, seconds },
              "re-imported",
            );
        } else logger.info({ collection: event.collection, event: event.type }, "watch");
      },
    });
    watcher.start().catch((error: unknown) => logger.error({ err: (error as Error).message }, "watcher failed to start"));
  });
  return {
    async close() {
      stopWaiting();
      await watcher?.close();
    },
  };
}
