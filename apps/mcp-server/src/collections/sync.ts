import { type CollectionInfo, DEFAULT_DB_NAME, type DocDB } from "@docdb/core";
import type { ToolRegistry } from "../registry.js";
import { collectionToolName, LIST_COLLECTIONS_TOOL } from "./names.js";

export interface CollectionToolsOptions {
  /** The database whose collections become tools. Default "vectors". */
  db?: string;
  /** How often changes made by other processes (e.g. `docdb collection disable`) are noticed, in ms. Default 1000. */
  pollMs?: number;
}

/**
 * Runs `begin` once the database exists: a server may start before the first
 * `docdb collection add` creates it. Returns a function that stops waiting. `firstCheck` is
 * called once, after the first look: the database was missing, or `begin` ran (or failed).
 */
export function whenDatabaseExists(
  docdb: DocDB,
  db: string,
  pollMs: number,
  begin: () => Promise<void>,
  firstCheck: () => void = () => undefined,
): () => void {
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  const fail = (error: unknown) => docdb.logger.warn({ db, err: (error as Error).message }, "could not open the database for collections");
  const check = async () => {
    if (stopped) return;
    if (!(await docdb.exists(db))) {
      timer = setTimeout(() => void check().catch(fail), pollMs);
      timer.unref();
      return;
    }
    if (!stopped) await begin();
  };
  void check().catch(fail).finally(firstCheck);
  return () => {
    stopped = true;
    if (timer) clearTimeout(timer);
  };
}

/**
 * Keeps one `search_<name>` tool per enabled collection in the registry, plus
 * `list_collections` while any collection exists. Adding, disabling, deleting or re-describing
 * a collection — here or from another process — changes the tools, and the registry tells
 * connected clients (notifications/tools/list_changed). Returns a handle to stop following.
 */
export function attachCollectionTools(
  registry: ToolRegistry,
  docdb: DocDB,
  options: CollectionToolsOptions = {},
): { close(): void; ready: Promise<void> } {
  const db = options.db ?? DEFAULT_DB_NAME;
  const pollMs = options.pollMs ?? 1000;
  /** collection name → the description its tool was built with */
  const registered = new Map<string, string>();
  let unsubscribe: (() => void) | undefined;
  let markReady: () => void = () => undefined;
  /** Settles once the tools of the collections that exist now are in the registry (or there are none). */
  const ready = new Promise<void>((resolve) => {
    markReady = resolve;
  });

  /** The tools' definitions, loaded when the first collection shows up. */
  let definitions: (typeof import("./list-tool.js") & typeof import("./search-tool.js")) | undefined;
  const apply = (list: CollectionInfo[]) => {
    if (list.length > 0 && !registry.has(LIST_COLLECTIONS_TOOL) && definitions) registry.add(definitions.listCollectionsTool(docdb, db));
    if (list.length === 0 && registry.has(LIST_COLLECTIONS_TOOL)) registry.remove(LIST_COLLECTIONS_TOOL);
    const wanted = new Map(list.filter((c) => c.enabled).map((c) => [c.name, c]));
    for (const name of [...registered.keys()]) {
      if (wanted.has(name)) continue;
      registry.remove(collectionToolName(name));
      registered.delete(name);
    }
    for (const [name, collection] of wanted) {
      if (registered.get(name) === collection.description || !definitions) continue;
      if (!registered.has(name) && registry.has(collectionToolName(name))) {
        docdb.logger.warn({ collection: name }, `a tool named ${collectionToolName(name)} already exists; collection not exposed`);
        continue;
      }
      registry.add(definitions.collectionSearchTool(docdb, db, collection), { replace: true });
      registered.set(name, collection.description);
    }
  };
  // One change at a time, in order: the first one with a collection waits for the definitions.
  let queue = Promise.resolve();
  const sync = (list: CollectionInfo[]): Promise<void> => {
    queue = queue
      .then(async () => {
        if (list.length > 0 && !definitions) {
          const [list, search] = await Promise.all([import("./list-tool.js"), import("./search-tool.js")]);
          definitions = { ...list, ...search };
        }
        apply(list);
      })
      .catch((error: unknown) => docdb.logger.warn({ db, err: (error as Error).message }, "could not update the collections' tools"));
    return queue;
  };

  const stopWaiting = whenDatabaseExists(
    docdb,
    db,
    pollMs,
    async () => {
      const collections = (await docdb.database(db)).collections;
      await sync(await collections.list());
      unsubscribe = collections.onChange((list) => void sync(list), { intervalMs: pollMs });
    },
    markReady,
  );
  return {
    ready,
    close() {
      stopWaiting();
      unsubscribe?.();
    },
  };
}
