// Rows as the `pg` driver returns them (JSONB parsed, booleans as booleans) → the contract's
// objects, through the codec both engines share (@docdb/store); the column lists are this engine's SQL.
import { type ExportedChunk, type Row, rowCodec } from "@docdb/store";

export const codec = rowCodec({ json: (value) => value, bool: (value) => value as boolean });
export const { toDocument, toDocumentSummary, toChunk, toChunkHit, toPendingChunk, toCollection, toFile } = codec;

/** A chunk row with `input_hash` and `vector`, pgvector's text form (`[0.1,0.2]`) or null. */
export function toExportedChunk(r: Row): ExportedChunk {
  const chunk = codec.toExportedChunk(r);
  // pgvector prints the shortest decimal that reads back as the same float4.
  const text = r.vector as string | null;
  if (text) chunk.vector = Float32Array.from(text.slice(1, -1).split(","), Number);
  return chunk;
}

// --- the columns the mappers read (this engine's SQL) -----------------------------------

export const DOCUMENT_COLUMNS =
  "d.id, d.key, d.source, d.title, d.content, d.content_hash, d.metadata, d.collection, d.created_at, d.updated_at";
export const CHUNK_COLUMNS = `c.id, c.doc_id, c.idx, c.text, c.start, c."end", c.heading, c.line_start, c.line_end, c.language, c.symbol, c.symbol_kind, c.symbols, c.code_fallback, c.doc, c.locator, c.embedded`;
/** A ChunkHit's columns, over `chunks c` and `documents d`. */
export const CHUNK_HIT_COLUMNS = `${CHUNK_COLUMNS}, d.title, d.source, d.collection, d.metadata, d.updated_at AS doc_updated_at`;
