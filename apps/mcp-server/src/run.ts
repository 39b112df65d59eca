import { DEFAULT_DB_NAME, type DocDB } from "@docdb/core";
import { attachCollectionTools, startCollectionWatcher } from "./collections/index.js";
import { memoryResources } from "./memory/resources.js";
import { resolveServeOptions, type ServeOptions } from "./options.js";
import { createDocdbTools } from "./tools/index.js";

function untilSignal(): { promise: Promise<void>; dispose(): void } {
  let resolve: () => void = () => undefined;
  const promise = new Promise<void>((r) => {
    resolve = r;
  });
  const onSignal = () => resolve();
  process.once("SIGINT", onSignal);
  process.once("SIGTERM", onSignal);
  return {
    promise,
    dispose() {
      process.off("SIGINT", onSignal);
      process.off("SIGTERM", onSignal);
    },
  };
}

/**
 * Serves docdb's tools until the client goes away (stdio) or the process is told to stop
 * (SIGINT/SIGTERM), then closes the databases. Used by `docdb-mcp` and `docdb serve`.
 * Status lines go to stderr; in stdio mode stdout carries protocol messages only.
 */
export async function runServer(docdb: DocDB, options: ServeOptions = {}): Promise<void> {
  const resolved = resolveServeOptions(options);
  const registry = createDocdbTools(docdb, { defaultDb: resolved.defaultDb });
  // One search tool per enabled collection, kept current while the server runs.
  const collectionTools = attachCollectionTools(registry, docdb, { db: resolved.defaultDb });
  const watcher = resolved.watch
    ? startCollectionWatcher(docdb, { db: resolved.defaultDb, debounceMs: resolved.watchDebounceMs })
    : undefined;
  // Agent memory of the default database as knowledge:// resources.
  const resources = memoryResources(docdb, resolved.defaultDb ?? DEFAULT_DB_NAME);
  const signal = untilSignal();
  try {
    // Each transport is loaded only when used: agents start the stdio server often, and wait for it.
    if (resolved.http) {
      const { serveHttp } = await import("./http.js");
      const handle = await serveHttp({
        registry,
        logger: docdb.logger,
        host: resolved.host,
        port: resolved.port,
        token: resolved.token,
        allowedOrigins: resolved.allowedOrigins,
        resources,
      });
      process.stderr.write(
        `docdb MCP server listening on ${handle.url} (store ${await docdb.location()}${resolved.token ? ", bearer token required" : ""})\n`,
      );
      await signal.promise;
      await handle.close();
    } else {
      const { serveStdio } = await import("./stdio.js");
      const handle = await serveStdio({ registry, logger: docdb.logger, resources });
      process.stderr.write(`docdb MCP server on stdio (store ${await docdb.location()})\n`);
      await Promise.race([handle.done, signal.promise]);
      await handle.close();
    }
  } finally {
    collectionTools.close();
    await watcher?.close();
    signal.dispose();
    await docdb.close().catch(() => undefined);
  }
}
