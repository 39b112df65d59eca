// The row codec both engines share: a database row (column name → value) → the contract's
// objects. Engines differ only in how a driver hands back JSON and booleans, which they name.
import type {
  ChunkHit,
  ChunkLocator,
  CodeSymbol,
  CollectionRecord,
  DocumentSummary,
  ExportedChunk,
  PendingChunk,
  StoredChunk,
  StoredDocument,
  StoredFile,
} from "./types.js";

/** A row as a driver returns it: column name → value. */
export type Row = Record<string, unknown>;

/** How an engine's driver returns JSON columns and booleans (SQLite: text and 0/1; pg: parsed). */
export interface RowDecoding {
  json(value: unknown): unknown;
  bool(value: unknown): boolean;
}

export interface RowCodec {
  toDocument(row: Row): StoredDocument;
  /** A listing's row: the document's columns without content, with `length` and `chunk_count`. */
  toDocumentSummary(row: Row): DocumentSummary;
  toChunk(row: Row): StoredChunk;
  /** A chunk row with its `input_hash` (the vector, stored differently per engine, is the caller's). */
  toExportedChunk(row: Row): ExportedChunk;
  /** A chunk row joined with its document's title, source, collection, metadata and `doc_updated_at`. */
  toChunkHit(row: Row): ChunkHit;
  /** A chunk waiting for its vector: `id`, `text`, `heading` and its document's `title`. */
  toPendingChunk(row: Row): PendingChunk;
  toCollection(row: Row): CollectionRecord;
  toFile(row: Row): StoredFile;
}

const text = (value: unknown): string | null => (value as string | null) ?? null;
const int = (value: unknown): number | null => (value as number | null) ?? null;

export function rowCodec(decode: RowDecoding): RowCodec {
  const toDocument = (row: Row): StoredDocument => ({
    id: row.id as string,
    key: text(row.key),
    source: text(row.source),
    title: text(row.title),
    content: row.content as string,
    contentHash: row.content_hash as string,
    metadata: decode.json(row.metadata) as Record<string, unknown>,
    collection: text(row.collection),
    createdAt: row.created_at as string,
    updatedAt: row.updated_at as string,
  });
  const toChunk = (row: Row): StoredChunk => ({
    id: row.id as string,
    docId: row.doc_id as string,
    idx: row.idx as number,
    text: row.text as string,
    start: row.start as number,
    end: row.end as number,
    heading: text(row.heading),
    lineStart: int(row.line_start),
    lineEnd: int(row.line_end),
    language: text(row.language),
    symbol: text(row.symbol),
    symbolKind: text(row.symbol_kind),
    symbols: row.symbols ? (decode.json(row.symbols) as CodeSymbol[]) : [],
    codeFallback: text(row.code_fallback),
    doc: text(row.doc),
    locator: row.locator ? (decode.json(row.locator) as ChunkLocator) : null,
    embedded: decode.bool(row.embedded),
  });
  return {
    toDocument,
    toDocumentSummary(row) {
      const { content: _content, ...rest } = toDocument({ ...row, content: "" });
      return { ...rest, chunkCount: Number(row.chunk_count), length: Number(row.length) };
    },
    toChunk,
    toExportedChunk: (row) => ({ ...toChunk(row), inputHash: text(row.input_hash) }),
    // toChunk's fresh object with the document's fields added (a find builds one per hit; a spread copies every field again).
    toChunkHit: (row) =>
      Object.assign(toChunk(row), {
        title: text(row.title),
        source: text(row.source),
        collection: text(row.collection),
        metadata: decode.json(row.metadata) as Record<string, unknown>,
        docUpdatedAt: row.doc_updated_at as string,
      }),
    toPendingChunk: (row) => ({ chunkId: row.id as string, text: row.text as string, heading: text(row.heading), title: text(row.title) }),
    toCollection: (row) => ({
      name: row.name as string,
      description: row.description as string,
      source: row.source as string,
      enabled: decode.bool(row.enabled),
      settings: decode.json(row.settings) as Record<string, unknown>,
      createdAt: row.created_at as string,
      updatedAt: row.updated_at as string,
      lastImportAt: text(row.last_import_at),
    }),
    toFile: (row) => ({
      collection: row.collection as string,
      path: row.path as string,
      size: Number(row.size),
      mtime: Number(row.mtime),
      contentHash: row.content_hash as string,
      chunking: row.chunking as string,
      docId: row.doc_id as string,
      importedAt: row.imported_at as string,
      chunkCount: Number(row.chunk_count),
    }),
  };
}
