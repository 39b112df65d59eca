// Rows as SQLite returns them → the contract's objects (documents, chunks, collections, files).
// Plain row objects in; SQLite keeps JSON as text and booleans as 0/1, decoded here.
import type {
  ChunkHit,
  CodeSymbol,
  CollectionRecord,
  DocumentSummary,
  ExportedChunk,
  StoredChunk,
  StoredDocument,
  StoredFile,
} from "@docdb/store";

/** A row as better-sqlite3 returns it: column name → value. */
export type Row = Record<string, unknown>;

export function toDocument(row: Row): StoredDocument {
  return {
    id: row.id as string,
    key: (row.key as string | null) ?? null,
    source: (row.source as string | null) ?? null,
    title: (row.title as string | null) ?? null,
    content: row.content as string,
    contentHash: row.content_hash as string,
    metadata: JSON.parse(row.metadata as string) as Record<string, unknown>,
    collection: (row.collection as string | null) ?? null,
    createdAt: row.created_at as string,
    updatedAt: row.updated_at as string,
  };
}

/** A listing's row: the document's columns without its content, with `length` and `chunk_count`. */
export function toDocumentSummary(row: Row): DocumentSummary {
  const { content: _content, ...rest } = toDocument({ ...row, content: "" });
  return { ...rest, chunkCount: row.chunk_count as number, length: row.length as number };
}

export function toChunk(row: Row): StoredChunk {
  return {
    id: row.id as string,
    docId: row.doc_id as string,
    idx: row.idx as number,
    text: row.text as string,
    start: row.start as number,
    end: row.end as number,
    heading: (row.heading as string | null) ?? null,
    lineStart: (row.line_start as number | null) ?? null,
    lineEnd: (row.line_end as number | null) ?? null,
    language: (row.language as string | null) ?? null,
    symbol: (row.symbol as string | null) ?? null,
    symbolKind: (row.symbol_kind as string | null) ?? null,
    symbols: row.symbols ? (JSON.parse(row.symbols as string) as CodeSymbol[]) : [],
    codeFallback: (row.code_fallback as string | null) ?? null,
    doc: (row.doc as string | null) ?? null,
    embedded: row.embedded === 1,
  };
}

/** A chunk row with its `input_hash` (the vector is added by the caller). */
export function toExportedChunk(row: Row): ExportedChunk {
  return { ...toChunk(row), inputHash: (row.input_hash as string | null) ?? null };
}

/** A chunk row joined with its document's title, source, collection, metadata and `doc_updated_at`. */
export function toChunkHit(row: Row): ChunkHit {
  return {
    ...toChunk(row),
    title: (row.title as string | null) ?? null,
    source: (row.source as string | null) ?? null,
    collection: (row.collection as string | null) ?? null,
    metadata: JSON.parse(row.metadata as string) as Record<string, unknown>,
    docUpdatedAt: row.doc_updated_at as string,
  };
}

export function toCollection(row: Row): CollectionRecord {
  return {
    name: row.name as string,
    description: row.description as string,
    source: row.source as string,
    enabled: row.enabled === 1,
    settings: JSON.parse(row.settings as string) as Record<string, unknown>,
    createdAt: row.created_at as string,
    updatedAt: row.updated_at as string,
    lastImportAt: (row.last_import_at as string | null) ?? null,
  };
}

export function toFile(row: Row): StoredFile {
  return {
    collection: row.collection as string,
    path: row.path as string,
    size: row.size as number,
    mtime: row.mtime as number,
    contentHash: row.content_hash as string,
    chunking: row.chunking as string,
    docId: row.doc_id as string,
    importedAt: row.imported_at as string,
    chunkCount: row.chunk_count as number,
  };
}
