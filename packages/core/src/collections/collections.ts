import { statSync } from "node:fs";
import type { ChunkOptions } from "@docdb/chunker";
import type { EmbeddingModel } from "@docdb/embed";
import { type CollectionRow, CollectionStore } from "@docdb/store";
import type { Database } from "../database.js";
import { DocDBError } from "../errors.js";
import type { Logger } from "../logger.js";
import type { SearchResult } from "../types.js";
import { importCollection } from "./import.js";
import { markStale } from "./stale.js";
import type { CollectionFileStatus, CollectionInfo, CollectionStatus, ImportOptions, ImportSettings, ImportSummary } from "./types.js";
import { validateCollectionName, validateDescription, validateSourcePath } from "./validate.js";
import { CollectionWatcher, type WatchOptions } from "./watch.js";

export interface CollectionsContext {
  logger: Logger;
  chunkOptions: ChunkOptions;
  embedding: EmbeddingModel | null;
}

export type CollectionsListener = (collections: CollectionInfo[]) => void;

function toInfo(row: CollectionRow): CollectionInfo {
  return {
    name: row.name,
    description: row.description,
    source: row.source,
    enabled: row.enabled,
    created_at: row.created_at,
    updated_at: row.updated_at,
    last_import_at: row.last_import_at,
    settings: row.settings as ImportSettings,
  };
}

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
  readonly tables: CollectionStore;
  private readonly listeners = new Set<CollectionsListener>();
  private poll: NodeJS.Timeout | undefined;
  private lastVersion = -1;
  private lastFingerprint = "";
  /** Imports of one collection run one after another, whoever asks (CLI, watcher, MCP). */
  private readonly running = new Map<string, Promise<unknown>>();

  constructor(
    readonly database: Database,
    readonly context: CollectionsContext,
  ) {
    this.tables = new CollectionStore(database.store);
  }

  /** All collections, or only the enabled ones. Sorted by name. */
  list(options: { all?: boolean } = { all: true }): CollectionInfo[] {
    return this.tables
      .list()
      .filter((c) => options.all !== false || c.enabled)
      .map(toInfo);
  }

  find(name: string): CollectionInfo | undefined {
    const row = this.tables.get(validateCollectionName(name));
    return row ? toInfo(row) : undefined;
  }

  get(name: string): CollectionInfo {
    const found = this.find(name);
    if (!found) {
      const names = this.tables.list().map((c) => c.name);
      const known =
        names.length > 0 ? `; collections: ${names.join(", ")}` : "; create one with `docdb collection add -n NAME -d DESCRIPTION -s DIR`";
      throw new DocDBError("NOT_FOUND", `no collection "${name}" in database "${this.database.name}"${known}`);
    }
    return found;
  }

  add(input: { name: string; description: string; source: string; enabled?: boolean }): CollectionInfo {
    const name = validateCollectionName(input?.name);
    const description = validateDescription(input.description);
    const source = validateSourcePath(input.source);
    requireFolder(source);
    if (this.tables.get(name)) {
      throw new DocDBError("CONFLICT", `collection "${name}" already exists: change it with \`docdb collection update -n ${name}\``);
    }
    this.tables.insert({ name, description, source, enabled: input.enabled ?? true });
    this.context.logger.info({ db: this.database.name, collection: name, source }, "collection added");
    return this.changed(name);
  }

  update(name: string, patch: { description?: string; source?: string }): CollectionInfo {
    this.get(name);
    const description = patch.description !== undefined ? validateDescription(patch.description) : undefined;
    const source = patch.source !== undefined ? validateSourcePath(patch.source) : undefined;
    if (source !== undefined) requireFolder(source);
    if (description === undefined && source === undefined) {
      throw new DocDBError("INVALID_REQUEST", "nothing to update: give a new description (-d) or source folder (-s)");
    }
    this.tables.update(name, { description, source });
    return this.changed(name);
  }

  setEnabled(name: string, enabled: boolean): CollectionInfo {
    this.get(name);
    this.tables.update(name, { enabled });
    return this.changed(name);
  }

  /** Deletes the collection and every document in it. */
  delete(name: string): { documents: number; chunks: number } {
    this.get(name);
    const removed = this.tables.delete(name);
    this.context.logger.info({ db: this.database.name, collection: name, ...removed }, "collection deleted");
    this.notify();
    return removed;
  }

  status(name?: string): CollectionStatus[] {
    const model = this.database.status().model;
    const collections = name !== undefined ? [this.get(name)] : this.list();
    return collections.map((c) => {
      const counts = this.tables.counts(c.name);
      return { ...c, documents: counts.documents, chunks: counts.chunks, embedded: counts.embedded, pending: counts.pending, model };
    });
  }

  files(name: string): CollectionFileStatus[] {
    this.get(name);
    return this.tables
      .files(name)
      .map((f) => ({ path: f.path, size: f.size, chunks: f.chunk_count, doc_id: f.doc_id, imported_at: f.imported_at }));
  }

  /** Imports the collection's folder (see ImportOptions); one import per collection at a time. */
  async import(name: string, options: ImportOptions = {}): Promise<ImportSummary> {
    const collection = this.get(name);
    const previous = this.running.get(collection.name) ?? Promise.resolve();
    const run = previous.catch(() => undefined).then(() => importCollection(this, this.get(name), options));
    this.running.set(collection.name, run);
    try {
      return await run;
    } finally {
      if (this.running.get(collection.name) === run) this.running.delete(collection.name);
    }
  }

  /** Flags results from files changed or deleted since they were imported. */
  markStale(results: SearchResult[]): SearchResult[] {
    return markStale(this, results);
  }

  /** Re-imports changed files of enabled collections as they change; see CollectionWatcher. */
  watch(options: WatchOptions = {}): CollectionWatcher {
    return new CollectionWatcher(this, options);
  }

  /**
   * Calls `listener` with the full list whenever a collection is added, changed, enabled,
   * disabled or deleted — here or by another process on the same file (noticed by polling
   * SQLite's data_version, every `intervalMs`). Returns a function that stops listening.
   */
  onChange(listener: CollectionsListener, options: { intervalMs?: number } = {}): () => void {
    this.listeners.add(listener);
    if (!this.poll) {
      this.lastVersion = this.tables.dataVersion();
      this.lastFingerprint = this.fingerprint();
      this.poll = setInterval(() => this.checkExternal(), options.intervalMs ?? 1000);
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
    if (this.poll) clearInterval(this.poll);
    this.poll = undefined;
    this.listeners.clear();
  }

  private fingerprint(): string {
    return JSON.stringify(this.tables.list().map((c) => [c.name, c.description, c.source, c.enabled]));
  }

  private checkExternal(): void {
    if (!this.database.store.db.open) {
      this.close();
      return;
    }
    try {
      const version = this.tables.dataVersion();
      if (version === this.lastVersion) return;
      this.lastVersion = version;
      this.notify();
    } catch (error) {
      this.context.logger.warn({ err: (error as Error).message }, "could not check collections for changes");
    }
  }

  private notify(): void {
    const fingerprint = this.fingerprint();
    if (fingerprint === this.lastFingerprint) return;
    this.lastFingerprint = fingerprint;
    const list = this.list();
    for (const listener of this.listeners) {
      try {
        listener(list);
      } catch (error) {
        this.context.logger.warn({ err: (error as Error).message }, "collections listener failed");
      }
    }
  }

  private changed(name: string): CollectionInfo {
    this.notify();
    return this.get(name);
  }
}
