// Rows as the `pg` driver returns them (JSONB parsed, booleans as booleans) → the contract's
// objects. The mappers take plain row objects; the column lists below are this engine's SQL.
import type {
  ChunkHit,
  CodeSymbol,
  CollectionRecord,
  DocumentSummary,
  ExportedChunk,
  PendingChunk,
  StoredChunk,
  StoredDocument,
  StoredFile,
} from "@docdb/store";

type Row = Record<string, unknown>;

export function toDocument(r: Row): StoredDocument {
  return {
    id: r.id as string,
    key: (r.key as string | null) ?? null,
    source: (r.source as string | null) ?? null,
    title: (r.title as string | null) ?? null,
    content: r.content as string,
    contentHash: r.content_hash as string,
    metadata: r.metadata as Record<string, unknown>,
    collection: (r.collection as string | null) ?? null,
    createdAt: r.created_at as string,
    updatedAt: r.updated_at as string,
  };
}

/** A document row without its content, with `chunk_count` and `content_length`. */
export function toDocumentSummary(r: Row): DocumentSummary {
  const { content: _content, ...rest } = toDocument({ ...r, content: "" });
  return { ...rest, chunkCount: Number(r.chunk_count), length: r.content_length as number };
}

export function toChunk(r: Row): StoredChunk {
  return {
    id: r.id as string,
    docId: r.doc_id as string,
    idx: r.idx as number,
    text: r.text as string,
    start: r.start as number,
    end: r.end as number,
    heading: (r.heading as string | null) ?? null,
    lineStart: (r.line_start as number | null) ?? null,
    lineEnd: (r.line_end as number | null) ?? null,
    language: (r.language as string | null) ?? null,
    symbol: (r.symbol as string | null) ?? null,
    symbolKind: (r.symbol_kind as string | null) ?? null,
    symbols: (r.symbols as CodeSymbol[] | null) ?? [],
    codeFallback: (r.code_fallback as string | null) ?? null,
    doc: (r.doc as string | null) ?? null,
    embedded: r.embedded as boolean,
  };
}

/** A chunk row with its document's title, source, collection, metadata and `doc_updated_at`. */
export function toChunkHit(r: Row): ChunkHit {
  return {
    ...toChunk(r),
    title: (r.title as string | null) ?? null,
    source: (r.source as string | null) ?? null,
    collection: (r.collection as string | null) ?? null,
    metadata: r.metadata as Record<string, unknown>,
    docUpdatedAt: r.doc_updated_at as string,
  };
}

/** A chunk row with `input_hash` and `vector`, pgvector's text form (`[0.1,0.2]`) or null. */
export function toExportedChunk(r: Row): ExportedChunk {
  const chunk: ExportedChunk = { ...toChunk(r), inputHash: (r.input_hash as string | null) ?? null };
  // pgvector prints the shortest decimal that reads back as the same float4.
  const text = r.vector as string | null;
  if (text) chunk.vector = Float32Array.from(text.slice(1, -1).split(","), Number);
  return chunk;
}

export function toPendingChunk(r: Row): PendingChunk {
  return {
    chunkId: r.id as string,
    text: r.text as string,
    heading: (r.heading as string | null) ?? null,
    title: (r.title as string | null) ?? null,
  };
}

export function toCollection(r: Row): CollectionRecord {
  return {
    name: r.name as string,
    description: r.description as string,
    source: r.source as string,
    enabled: r.enabled as boolean,
    settings: r.settings as Record<string, unknown>,
    createdAt: r.created_at as string,
    updatedAt: r.updated_at as string,
    lastImportAt: (r.last_import_at as string | null) ?? null,
  };
}

export function toFile(r: Row): StoredFile {
  return {
    collection: r.collection as string,
    path: r.path as string,
    size: Number(r.size),
    mtime: Number(r.mtime),
    contentHash: r.content_hash as string,
    chunking: r.chunking as string,
    docId: r.doc_id as string,
    importedAt: r.imported_at as string,
    chunkCount: Number(r.chunk_count),
  };
}

// --- the columns the mappers read (this engine's SQL) -----------------------------------

export const DOCUMENT_COLUMNS =
  "d.id, d.key, d.source, d.title, d.content, d.content_hash, d.metadata, d.collection, d.created_at, d.updated_at";
export const CHUNK_COLUMNS = `c.id, c.doc_id, c.idx, c.text, c.start, c."end", c.heading, c.line_start, c.line_end, c.language, c.symbol, c.symbol_kind, c.symbols, c.code_fallback, c.doc, c.embedded`;
/** A ChunkHit's columns, over `chunks c` and `documents d`. */
export const CHUNK_HIT_COLUMNS = `${CHUNK_COLUMNS}, d.title, d.source, d.collection, d.metadata, d.updated_at AS doc_updated_at`;
