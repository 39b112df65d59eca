import type { DocumentWrite, Store, StoredFile } from "@docdb/store";
import { analyseInThread } from "./analysis.js";
import { noteRepair, repairText, type TextRepairs } from "./copy-repair.js";
import { DocDBError } from "./errors.js";
import { isSystemCollection } from "./memory/names.js";

/** Documents written per transaction by a copy. */
export const COPY_BATCH = 100;

export interface CopyProgress {
  /** Documents at the target so far (copied now or by an earlier, interrupted run). */
  done: number;
  total: number;
}

export interface CopyOptions {
  batchSize?: number;
  onProgress?: (progress: CopyProgress) => void;
}

export interface CopyResult {
  from: string;
  to: string;
  /** Documents written by this run (agent memory counted apart, as in status and `db list`). */
  copied: number;
  /** Agent memory records (topics, QAs, knowledge) written by this run. */
  memory_records: number;
  /** Documents already at the target (an earlier run got that far). */
  skipped: number;
  chunks: number;
  vectors: number;
  collections: number;
  /** The source's embedding model, recorded at the target; null when it has none. */
  model: { provider: string; model: string; dimensions: number } | null;
  /**
   * Documents and collections written by an older build with NUL or lone surrogates in their
   * text, copied with U+FFFD in their place (see copy-repair.ts); `warnings` names each.
   */
  repaired: number;
  warnings: string[];
}

/**
 * Copies one database into another, possibly on another engine: documents with their ids, keys,
 * metadata and times; chunks with their vectors exactly as stored; the embedding model;
 * collections and their file rows. Resumable: documents already at the target (by id) are
 * skipped, so a copy that was interrupted finishes when run again. Refuses to mix two models.
 */
export async function copyStore(
  source: Store,
  target: Store,
  labels: { from: string; to: string },
  options: CopyOptions = {},
): Promise<CopyResult> {
  const batchSize = Math.max(1, options.batchSize ?? COPY_BATCH);
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
  if (model && !existing) await target.setEmbeddingInfo(model);

  // Collections first (file rows refer to them), with their settings.
  const files = new Map<string, StoredFile>();
  const repairs: TextRepairs = { repaired: 0, warnings: [] };
  const collections = await source.listCollections();
  for (const listed of collections) {
    const fields: string[] = [];
    const c = repairText(listed, "", fields);
    noteRepair(repairs, `collection ${JSON.stringify(c.name)}`, fields);
    if (!(await target.getCollection(c.name))) {
      await target.createCollection({ name: c.name, description: c.description, source: c.source, enabled: c.enabled });
    }
    await target.updateCollection(c.name, {
      description: c.description,
      source: c.source,
      enabled: c.enabled,
      settings: c.settings,
      ...(c.lastImportAt ? { lastImportAt: c.lastImportAt } : {}),
    });
    for (const f of await source.listFiles(c.name)) files.set(f.docId, f);
  }

  const total = (await source.counts()).documents;
  const result: CopyResult = {
    ...labels,
    copied: 0,
    memory_records: 0,
    skipped: 0,
    chunks: 0,
    vectors: 0,
    collections: collections.length,
    model,
    repaired: 0,
    warnings: [],
  };
  options.onProgress?.({ done: 0, total });
  for (let offset = 0; ; offset += batchSize) {
    const page = await source.listDocuments({ limit: batchSize, offset });
    if (page.length === 0) break;
    const writes: DocumentWrite[] = [];
    for (const summary of page) {
      if (await target.getDocument(summary.id)) {
        result.skipped++;
        continue;
      }
      const doc = await source.getDocument(summary.id);
      if (!doc) continue; // deleted meanwhile
      const chunks = await source.exportChunks(doc.id);
      const file = files.get(doc.id);
      const write: DocumentWrite = {
        document: {
          id: doc.id,
          key: doc.key,
          source: doc.source,
          title: doc.title,
          content: doc.content,
          contentHash: doc.contentHash,
          metadata: doc.metadata,
          collection: doc.collection,
          createdAt: doc.createdAt,
          updatedAt: doc.updatedAt,
        },
        chunks: chunks.map((c) => ({
          id: c.id,
          idx: c.idx,
          text: c.text,
          start: c.start,
          end: c.end,
          heading: c.heading,
          lineStart: c.lineStart,
          lineEnd: c.lineEnd,
          language: c.language,
          symbol: c.symbol,
          symbolKind: c.symbolKind,
          symbols: c.symbols,
          codeFallback: c.codeFallback,
          doc: c.doc,
          inputHash: c.inputHash,
          ...(c.vector ? { vector: c.vector } : {}),
        })),
        ...(file
          ? {
              file: {
                collection: file.collection,
                record: { path: file.path, size: file.size, mtime: file.mtime, contentHash: file.contentHash, chunking: file.chunking },
              },
            }
          : {}),
      };
      const fields: string[] = [];
      writes.push(repairText(write, "", fields));
      noteRepair(repairs, `document ${doc.id}${doc.key ? ` (key ${JSON.stringify(doc.key)})` : ""}`, fields);
      result.chunks += chunks.length;
      result.vectors += chunks.filter((c) => c.vector).length;
    }
    if (writes.length > 0) {
      // Words analysed before the target's write transaction, which then only inserts.
      analyseInThread(writes);
      await target.writeDocuments(writes);
    }
    const memory = writes.filter((w) => isSystemCollection(w.document.collection ?? "")).length;
    result.memory_records += memory;
    result.copied += writes.length - memory;
    options.onProgress?.({ done: result.copied + result.memory_records + result.skipped, total });
    if (page.length < batchSize) break;
  }
  result.repaired = repairs.repaired;
  result.warnings = repairs.warnings;
  return result;
}
