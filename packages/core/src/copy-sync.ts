// What `copy` compares to bring an existing target up to date: a fingerprint of each document
// (its fields, its chunks' ids and embedded state, its file row) and of each collection, both
// sides read through the Store contract, so two engines that store the same rows agree.
import type { CollectionRecord, DocumentWrite, ExportedChunk, StoredDocument, StoredFile } from "@docdb/store";

/** JSON with object keys sorted (PostgreSQL's jsonb does not keep the order they were written in). */
export function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, item: unknown) =>
    item && typeof item === "object" && !Array.isArray(item) && !ArrayBuffer.isView(item)
      ? Object.fromEntries(Object.entries(item as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : item,
  );
}

/** A time compared as an instant: engines may write the same one differently. */
function instant(time: string | null | undefined): number | null {
  if (!time) return null;
  const ms = Date.parse(time);
  return Number.isNaN(ms) ? null : ms;
}

type DocumentFields = Omit<StoredDocument, "content"> & { content?: string };

/**
 * Everything of a document a copy keeps, as one string: equal on both sides means nothing to
 * copy. Chunks count by id and embedded state, so `embed --pending` on the source shows up.
 */
export function documentFingerprint(
  doc: DocumentFields,
  chunks: { id: string; embedded: boolean }[],
  file: StoredFile | undefined,
): string {
  return canonical({
    key: doc.key,
    source: doc.source,
    title: doc.title,
    contentHash: doc.contentHash,
    metadata: doc.metadata,
    collection: doc.collection,
    createdAt: instant(doc.createdAt),
    updatedAt: instant(doc.updatedAt),
    chunks: chunks.map((c) => [c.id, c.embedded]),
    file: file ? [file.collection, file.path, file.size, file.mtime, file.contentHash, file.chunking] : null,
  });
}

/** The settings of a collection a copy keeps (its own times are the target's). */
export function collectionFingerprint(c: CollectionRecord): string {
  return canonical({
    description: c.description,
    source: c.source,
    enabled: c.enabled,
    settings: c.settings,
    lastImportAt: instant(c.lastImportAt),
  });
}

/** The write that puts a source document, its chunks (with their vectors) and file row at the target. */
export function documentWrite(doc: StoredDocument, chunks: ExportedChunk[], file: StoredFile | undefined): DocumentWrite {
  return {
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
      locator: c.locator,
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
}
