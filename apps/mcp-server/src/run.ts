import { DEFAULT_DB_NAME, type DocDB, validateDbName } from "@docdb/core";
// Not the collections index: it also exports the tool definitions, which load when a collection exists.
import { auditSink } from "./auth/audit.js";
import { attachCollectionTools } from "./collections/sync.js";
import { startCollectionWatcher } from "./collections/watch.js";
import { resolveServeOptions, type ServeOptions } from "./options.js";
import { ToolRegistry } from "./registry.js";
import type { ToolDefinition } from "./tool.js";
import type { ToolDescriptors } from "./tool-descriptors.js";

/** Longest wait for the collections' tools before serving anyway (they follow with tools/list_changed). */
const COLLECTION_WAIT_MS = 2000;

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
 * docdb's own tools. With descriptors made for this default database, each is listed from its
 * descriptor and its module is loaded on the first call; otherwise all are built now.
 */
export async function docdbTools(
  docdb: DocDB,
  defaultDb: string | undefined,
  descriptors?: ToolDescriptors,
  fetch?: { allow: boolean; allowPrivate: boolean },
): Promise<ToolRegistry> {
  const db = validateDbName(defaultDb ?? DEFAULT_DB_NAME);
  if (descriptors?.default_db !== db) {
    const { createDocdbTools } = await import("./tools/index.js");
    return createDocdbTools(docdb, { defaultDb: db, fetch });
  }
  let definitions: Promise<Map<string, ToolDefinition>> | undefined;
  const load = async (name: string): Promise<ToolDefinition> => {
    definitions ??= import("./tools/index.js").then(
      ({ docdbToolDefinitions }) => new Map(docdbToolDefinitions({ docdb, defaultDb: db, fetch }).map((tool) => [tool.name, tool])),
    );
    let loaded: Map<string, ToolDefinition>;
    try {
      loaded = await definitions;
    } catch (error) {
      definitions = undefined; // tried again on the next call
      throw error;
    }
    const tool = loaded.get(name);
    if (!tool) throw new Error(`tool "${name}" is listed in the build's tool descriptors but not defined: rebuild docdb`);
    return tool;
  };
  const registry = new ToolRegistry(docdb.logger);
  for (const descriptor of descriptors.tools) registry.addDeferred(descriptor, () => load(descriptor.name));
  return registry;
}

/**
 * Serves docdb's tools until the client goes away (stdio) or the process is told to stop
 * (SIGINT/SIGTERM), then closes the databases. Used by `docdb-mcp` and `docdb serve`.
 * Status lines go to stderr; in stdio mode stdout carries protocol messages only.
 */
export async function runServer(docdb: DocDB, options: ServeOptions = {}): Promise<void> {
  const resolved = resolveServeOptions(options);
  const registry = await docdbTools(docdb, resolved.defaultDb, options.toolDescriptors, resolved.fetch);
  // Loaded here, not at start-up of every importer: it brings the SDK's McpServer module.
  const { DocdbResources } = await import("./resources.js");
  const resources = new DocdbResources(docdb, { defaultDb: resolved.defaultDb ?? DEFAULT_DB_NAME });
  // One search tool per enabled collection, kept current while the server runs.
  const collectionTools = attachCollectionTools(registry, docdb, { db: resolved.defaultDb });
  const watcher = resolved.watch
    ? startCollectionWatcher(docdb, { db: resolved.defaultDb, debounceMs: resolved.watchDebounceMs })
    : undefined;
  // Chunks left pending (provider down, deadline passed) are embedded in the background.
  docdb.startHealing();
  const signal = untilSignal();
  try {
    // The first tools/list should already hold the collections' tools (not every client follows
    // tools/list_changed): wait for the first look at the database, but never long.
    await Promise.race([collectionTools.ready, new Promise((resolve) => setTimeout(resolve, COLLECTION_WAIT_MS).unref())]);
    // Each transport is loaded only when used: agents start the stdio server often, and wait for it.
    if (resolved.http) {
      const { serveHttp } = await import("./http.js");
      const handle = await serveHttp({
        registry,
        resources,
        samplingTimeoutMs: docdb.deadlines.samplingMs,
        logger: docdb.logger,
        host: resolved.host,
        port: resolved.port,
        token: resolved.token,
        tokens: docdb.access(),
        oauth: resolved.oauth,
        audit: auditSink(docdb),
        defaultDb: resolved.defaultDb,
        allowedOrigins: resolved.allowedOrigins,
        maxSessions: resolved.maxSessions,
        sessionIdleMs: resolved.sessionIdleMs,
        ui: { docdb },
      });
      process.stderr.write(
        `docdb MCP server listening on ${handle.url} (store ${await docdb.location()}${resolved.token ? ", bearer token required" : ""}${resolved.oauth ? `, OAuth tokens of ${resolved.oauth.issuer}` : ""})\n` +
          `the page: ${handle.url.replace(/\/mcp$/, "/ui/")}\n`,
      );
      await signal.promise;
      await handle.close();
    } else {
      const { serveStdio } = await import("./stdio.js");
      const handle = await serveStdio({
        registry,
        resources,
        logger: docdb.logger,
        audit: auditSink(docdb),
        defaultDb: resolved.defaultDb,
        samplingTimeoutMs: docdb.deadlines.samplingMs,
      });
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
