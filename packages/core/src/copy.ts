import type { DocumentSummary, DocumentWrite, Store, StoredFile } from "@docdb/store";
import { analyseInThread } from "./analysis.js";
import { noteRepair, repairText, type TextRepairs } from "./copy-repair.js";
import { collectionFingerprint, documentFingerprint, documentWrite } from "./copy-sync.js";
import { DocDBError } from "./errors.js";
import { isSystemCollection } from "./memory/names.js";

/** Documents written per transaction by a copy. */
export const COPY_BATCH = 100;

export interface CopyProgress {
  /** Source documents looked at so far (copied, updated or found up to date). */
  done: number;
  total: number;
}

export interface CopyOptions {
  batchSize?: number;
  onProgress?: (progress: CopyProgress) => void;
  /** Work out what would change and write nothing; the result lists the ids in `changes`. */
  dryRun?: boolean;
}

/** What a dry run would change, by id (documents) and name (collections). */
export interface CopyChanges {
  new: string[];
  updated: string[];
  deleted: string[];
  collections_updated: string[];
  collections_deleted: string[];
}

export interface CopyResult {
  from: string;
  to: string;
  /** True when nothing was written (`dryRun`): the counts say what a copy would do. */
  dry_run: boolean;
  /** True when the target already held everything the source has: this run changed nothing. */
  up_to_date: boolean;
  /** Documents new at the target (agent memory counted apart, as in status and `db list`). */
  copied: number;
  /** Documents the target had in an older state (text, metadata, vectors, file row), rewritten. */
  updated: number;
  /** Documents on the target that the source no longer has, removed. */
  deleted: number;
  /** Agent memory records (topics, QAs, knowledge) written (new or updated) by this run. */
  memory_records: number;
  /** Documents already at the target exactly as on the source (an earlier run copied them). */
  skipped: number;
  /** Chunks and vectors written by this run. */
  chunks: number;
  vectors: number;
  /** Collections at the source. */
  collections: number;
  /** Collections created or changed at the target, and those removed (not at the source). */
  collections_updated: number;
  collections_deleted: number;
  /** The source's embedding model, recorded at the target; null when it has none. */
  model: { provider: string; model: string; dimensions: number } | null;
  /**
   * Documents and collections written by an older build with NUL or lone surrogates in their
   * text, copied with U+FFFD in their place (see copy-repair.ts); `warnings` names each.
   */
  repaired: number;
  warnings: string[];
  /** With `dryRun`: the ids and names that would change. */
  changes?: CopyChanges;
}

/**
 * Copies one database into another, possibly on another engine, or brings a copy made earlier
 * up to date: documents with their ids, keys, metadata and times; chunks with their vectors
 * exactly as stored; the embedding model; collections and their file rows. A document the target
 * already has is compared (fields, content hash, times, chunk ids and embedded state, file row)
 * and rewritten when it differs; documents and collections the source no longer has are removed.
 * Resumable: a copy that was interrupted finishes when run again. Refuses to mix two models.
 */
export async function copyStore(
  source: Store,
  target: Store,
  labels: { from: string; to: string },
  options: CopyOptions = {},
): Promise<CopyResult> {
  const batchSize = Math.max(1, options.batchSize ?? COPY_BATCH);
  const dryRun = options.dryRun === true;
  const model = (await source.getEmbeddingInfo()) ?? null;
  const existing = await target.getEmbeddingInfo();
  if (model && existing) {
    if (existing.dimensions !== model.dimensions) {
      throw new DocDBError(
        "DIMENSION_MISMATCH",
        `${labels.to} holds ${existing.dimensions}-dimension vectors of ${existing.provider}/${existing.model}; ${labels.from} has ${model.dimensions}-dimension vectors of ${model.provider}/${model.model}: copy into an empty database`,
      );
    }
    if (existing.provider !== model.provider || existing.model !== model.model) {
      throw new DocDBError(
        "MODEL_MISMATCH",
        `${labels.to} was embedded with ${existing.provider}/${existing.model}; ${labels.from} with ${model.provider}/${model.model}: copy into an empty database`,
      );
    }
  }
  if (model && !existing && !dryRun) await target.setEmbeddingInfo(model);

  const changes: CopyChanges = { new: [], updated: [], deleted: [], collections_updated: [], collections_deleted: [] };
  const repairs: TextRepairs = { repaired: 0, warnings: [] };

  // Collections first (file rows refer to them), with their settings.
  const collections = await source.listCollections();
  const sourceNames = new Set<string>();
  for (const listed of collections) {
    const fields: string[] = [];
    const c = repairText(listed, "", fields);
    sourceNames.add(c.name);
    const there = await target.getCollection(c.name);
    if (there && collectionFingerprint(there) === collectionFingerprint(c)) continue;
    noteRepair(repairs, `collection ${JSON.stringify(c.name)}`, fields);
    changes.collections_updated.push(c.name);
    if (dryRun) continue;
    if (!there) {
      await target.createCollection({ name: c.name, description: c.description, source: c.source, enabled: c.enabled });
    }
    await target.updateCollection(c.name, {
      description: c.description,
      source: c.source,
      enabled: c.enabled,
      settings: c.settings,
      ...(c.lastImportAt ? { lastImportAt: c.lastImportAt } : {}),
    });
  }

  // Documents the source no longer has go first, so a new document may take a key they held.
  const sourceIds = new Set<string>();
  await eachPage(source, batchSize, (page) => {
    for (const d of page) sourceIds.add(d.id);
  });
  await eachPage(target, batchSize, (page) => {
    for (const d of page) if (!sourceIds.has(d.id)) changes.deleted.push(d.id);
  });
  sourceIds.clear();
  if (!dryRun) {
    for (let i = 0; i < changes.deleted.length; i += batchSize) {
      await target.deleteDocuments(changes.deleted.slice(i, i + batchSize));
    }
  }

  const total = (await source.counts()).documents;
  const result: CopyResult = {
    ...labels,
    dry_run: dryRun,
    up_to_date: false,
    copied: 0,
    updated: 0,
    deleted: changes.deleted.length,
    memory_records: 0,
    skipped: 0,
    chunks: 0,
    vectors: 0,
    collections: collections.length,
    collections_updated: changes.collections_updated.length,
    collections_deleted: 0,
    model,
    repaired: 0,
    warnings: [],
  };
  let done = 0;
  options.onProgress?.({ done, total });
  await eachPage(source, batchSize, async (page) => {
    const ids = page.map((d) => d.id);
    const sourceFiles = byDocument(await source.filesOfDocuments(ids));
    const targetFiles = byDocument(await target.filesOfDocuments(ids));
    const writes: DocumentWrite[] = [];
    const replaced: string[] = [];
    for (const summary of page) {
      done++;
      const there = await target.getDocument(summary.id);
      const file = sourceFiles.get(summary.id);
      const sourceChunks = await source.getChunks(summary.id);
      if (there) {
        const ours = documentFingerprint(repairText(summary, "", []), sourceChunks, file && repairText(file, "", []));
        const theirs = documentFingerprint(there, await target.getChunks(summary.id), targetFiles.get(summary.id));
        if (ours === theirs) {
          result.skipped++;
          continue;
        }
      }
      const memory = isSystemCollection(summary.collection ?? "");
      if (memory) result.memory_records++;
      else if (there) result.updated++;
      else result.copied++;
      (there ? changes.updated : changes.new).push(summary.id);
      if (dryRun) continue;
      const doc = await source.getDocument(summary.id);
      if (!doc) continue; // deleted meanwhile
      const chunks = await source.exportChunks(doc.id);
      const fields: string[] = [];
      writes.push(repairText(documentWrite(doc, chunks, file), "", fields));
      noteRepair(repairs, `document ${doc.id}${doc.key ? ` (key ${JSON.stringify(doc.key)})` : ""}`, fields);
      if (there) replaced.push(doc.id);
      result.chunks += chunks.length;
      result.vectors += chunks.filter((c) => c.vector).length;
    }
    if (writes.length > 0) {
      // Words analysed before the target's write transaction, which then only inserts. An
      // outdated document goes first; if the copy stops between the two, a rerun finds it missing.
      analyseInThread(writes);
      if (replaced.length > 0) await target.deleteDocuments(replaced);
      await target.writeDocuments(writes);
    }
    options.onProgress?.({ done, total });
  });

  // Collections the source no longer has (their documents went with the documents above).
  for (const c of await target.listCollections()) {
    if (sourceNames.has(c.name)) continue;
    changes.collections_deleted.push(c.name);
    if (!dryRun) await target.deleteCollection(c.name);
  }
  result.collections_deleted = changes.collections_deleted.length;
  result.repaired = repairs.repaired;
  result.warnings = repairs.warnings;
  result.up_to_date =
    changes.new.length +
      changes.updated.length +
      changes.deleted.length +
      changes.collections_updated.length +
      changes.collections_deleted.length ===
    0;
  if (dryRun) result.changes = changes;
  return result;
}

/** Calls `visit` with each page of a store's documents in creation order. */
async function eachPage(store: Store, batchSize: number, visit: (page: DocumentSummary[]) => void | Promise<void>): Promise<void> {
  for (let offset = 0; ; offset += batchSize) {
    const page = await store.listDocuments({ limit: batchSize, offset });
    if (page.length === 0) return;
    await visit(page);
    if (page.length < batchSize) return;
  }
}

function byDocument(files: StoredFile[]): Map<string, StoredFile> {
  return new Map(files.map((f) => [f.docId, f]));
}
