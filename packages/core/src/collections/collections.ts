// The collections of one database: named document sets imported from folders, their status,
// imports one at a time per collection, watching, and change notification.
import { statSync } from "node:fs";
import type { DatabaseContext } from "../database/context.js";
import { storedModel } from "../database/maintenance.js";
import { DocDBError } from "../errors.js";
import type { SearchResult } from "../types.js";
import { importCollection } from "./import.js";
import { findCollection, getCollection, listCollections } from "./lookup.js";
import { markStale } from "./stale.js";
import type { CollectionFileStatus, CollectionInfo, CollectionStatus, CollectionsListener, ImportOptions, ImportSummary } from "./types.js";
import { validateCollectionName, validateDescription, validateSourcePath } from "./validate.js";
import { CollectionWatcher, type WatchOptions } from "./watch.js";

export type { CollectionsListener } from "./types.js";

function requireFolder(source: string): void {
  let isDirectory: boolean;
  try {
    isDirectory = statSync(source).isDirectory();
  } catch {
    throw new DocDBError("NOT_FOUND", `source folder ${source} does not exist: create it or point -s at an existing folder`);
  }
  if (!isDirectory) throw new DocDBError("INVALID_REQUEST", `source ${source} is a file; a collection is imported from a folder`);
}

/**
 * The collections of one database: named sets of documents imported from a folder, each
 * with a description an agent reads to decide when to search it.
 */
export class Collections {
  private readonly listeners = new Set<CollectionsListener>();
  private poll: NodeJS.Timeout | undefined;
  private lastToken = "";
  private lastFingerprint = "";
  private closed = false;
  /** Imports of one collection run one after another, whoever asks (CLI, watcher, MCP). */
  private readonly running = new Map<string, Promise<unknown>>();

  /** @internal Created by its Database, over the database's context. */
  constructor(private readonly ctx: DatabaseContext) {}

  /** All collections, or only the enabled ones (`{ all: false }`). Sorted by name. */
  async list(options: { all?: boolean } = { all: true }): Promise<CollectionInfo[]> {
    return listCollections(this.ctx, options);
  }

  /** A collection by name, or undefined. */
  async find(name: string): Promise<CollectionInfo | undefined> {
    return findCollection(this.ctx, name);
  }

  /** A collection by name; NOT_FOUND (listing the known ones) when there is none. */
  async get(name: string): Promise<CollectionInfo> {
    return getCollection(this.ctx, name);
  }

  /** Adds a collection over an existing folder; CONFLICT when the name is taken. */
  async add(input: { name: string; description: string; source: string; enabled?: boolean }): Promise<CollectionInfo> {
    const name = validateCollectionName(input?.name);
    const description = validateDescription(input.description);
    const source = validateSourcePath(input.source);
    requireFolder(source);
    if (await this.find(name)) {
      throw new DocDBError("CONFLICT", `collection "${name}" already exists: change it with \`docdb collection update -n ${name}\``);
    }
    try {
      await this.ctx.store.createCollection({ name, description, source, enabled: input.enabled ?? true });
    } catch (error) {
      if (DocDBError.isInstance(error) && error.code === "CONFLICT") {
        throw new DocDBError("CONFLICT", `collection "${name}" already exists: change it with \`docdb collection update -n ${name}\``);
      }
      throw error;
    }
    this.ctx.logger.info({ db: this.ctx.name, collection: name, source }, "collection added");
    return this.changed(name);
  }

  /** Changes a collection's description or folder. */
  async update(name: string, patch: { description?: string; source?: string }): Promise<CollectionInfo> {
    await this.get(name);
    const description = patch.description !== undefined ? validateDescription(patch.description) : undefined;
    const source = patch.source !== undefined ? validateSourcePath(patch.source) : undefined;
    if (source !== undefined) requireFolder(source);
    if (description === undefined && source === undefined) {
      throw new DocDBError("INVALID_REQUEST", "nothing to update: give a new description (-d) or source folder (-s)");
    }
    await this.ctx.store.updateCollection(name, { description, source });
    return this.changed(name);
  }

  /** Enables or disables a collection (a disabled one is not searched and not watched). */
  async setEnabled(name: string, enabled: boolean): Promise<CollectionInfo> {
    await this.get(name);
    await this.ctx.store.updateCollection(name, { enabled });
    return this.changed(name);
  }

  /** Deletes the collection and every document in it. */
  async delete(name: string): Promise<{ documents: number; chunks: number }> {
    await this.get(name);
    const removed = await this.ctx.store.deleteCollection(name);
    this.ctx.logger.info({ db: this.ctx.name, collection: name, ...removed }, "collection deleted");
    await this.notify();
    return removed;
  }

  /** Counts per collection (one, or all). */
  async status(name?: string): Promise<CollectionStatus[]> {
    const model = await storedModel(this.ctx);
    const collections = name !== undefined ? [await this.get(name)] : await this.list();
    const statuses: CollectionStatus[] = [];
    for (const c of collections) {
      const counts = await this.ctx.store.collectionCounts(c.name);
      statuses.push({
        ...c,
        documents: counts.documents,
        chunks: counts.chunks,
        embedded: counts.embedded,
        pending: counts.pending,
        code_fallback_files: counts.codeFallbackDocuments,
        code_fallback_chunks: counts.codeFallbackChunks,
        model,
      });
    }
    return statuses;
  }

  /** The files imported into a collection. */
  async files(name: string): Promise<CollectionFileStatus[]> {
    await this.get(name);
    const files = await this.ctx.store.listFiles(name);
    return files.map((f) => ({ path: f.path, size: f.size, chunks: f.chunkCount, doc_id: f.docId, imported_at: f.importedAt }));
  }

  /** Imports the collection's folder (see ImportOptions); one import per collection at a time. */
  async import(name: string, options: ImportOptions = {}): Promise<ImportSummary> {
    const collection = await this.get(name);
    const previous = this.running.get(collection.name) ?? Promise.resolve();
    const run = previous
      .catch(() => undefined)
      .then(async () =>
        importCollection({ ctx: this.ctx, settingsDefaults: this.ctx.services.chunkOptions }, await this.get(name), options),
      );
    this.running.set(collection.name, run);
    try {
      return await run;
    } finally {
      if (this.running.get(collection.name) === run) this.running.delete(collection.name);
    }
  }

  /** Flags results from files changed or deleted since they were imported. */
  async markStale(results: SearchResult[]): Promise<SearchResult[]> {
    return markStale(this.ctx.store, results);
  }

  /** Re-imports changed files of enabled collections as they change; see CollectionWatcher. */
  watch(options: WatchOptions = {}): CollectionWatcher {
    return new CollectionWatcher(this, options);
  }

  /**
   * Calls `listener` with the full list whenever a collection is added, changed, enabled,
   * disabled or deleted — here or by another process on the same database (noticed by polling
   * the store's change token, every `intervalMs`). Returns a function that stops listening.
   */
  onChange(listener: CollectionsListener, options: { intervalMs?: number } = {}): () => void {
    this.listeners.add(listener);
    if (!this.poll) {
      void this.prime();
      this.poll = setInterval(() => void this.checkExternal(), options.intervalMs ?? 1000);
      this.poll.unref();
    }
    return () => {
      this.listeners.delete(listener);
      if (this.listeners.size === 0 && this.poll) {
        clearInterval(this.poll);
        this.poll = undefined;
      }
    };
  }

  /** Stops change polling (the database is closing). */
  close(): void {
    this.closed = true;
    if (this.poll) clearInterval(this.poll);
    this.poll = undefined;
    this.listeners.clear();
  }

  private async prime(): Promise<void> {
    try {
      this.lastToken = await this.ctx.store.changeToken();
      this.lastFingerprint = await this.fingerprint();
    } catch (error) {
      this.ctx.logger.warn({ err: (error as Error).message }, "could not read collections");
    }
  }

  private async fingerprint(): Promise<string> {
    return JSON.stringify((await this.list()).map((c) => [c.name, c.description, c.source, c.enabled]));
  }

  private async checkExternal(): Promise<void> {
    if (this.closed) return;
    try {
      const token = await this.ctx.store.changeToken();
      if (token === this.lastToken) return;
      this.lastToken = token;
      await this.notify();
    } catch (error) {
      if (this.closed) return;
      this.ctx.logger.warn({ err: (error as Error).message }, "could not check collections for changes");
    }
  }

  private async notify(): Promise<void> {
    const list = await this.list();
    const fingerprint = JSON.stringify(list.map((c) => [c.name, c.description, c.source, c.enabled]));
    if (fingerprint === this.lastFingerprint) return;
    this.lastFingerprint = fingerprint;
    for (const listener of this.listeners) {
      try {
        listener(list);
      } catch (error) {
        this.ctx.logger.warn({ err: (error as Error).message }, "collections listener failed");
      }
    }
  }

  private async changed(name: string): Promise<CollectionInfo> {
    await this.notify();
    return this.get(name);
  }
}
