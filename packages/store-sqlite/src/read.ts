// Reading documents and chunks: by id or key, listings, chunk hits, exports with vectors, and
// the chunk ids of search hits (which carry chunk seqs).
import type { ChunkHit, DocumentSummary, ExportedChunk, Filter, StoredChunk, StoredDocument } from "@docdb/store";
import type { Connection } from "./connection.js";
import { filterToSql } from "./filter.js";
import { hasVectorTable } from "./meta.js";
import { type Row, toChunk, toChunkHit, toDocument, toDocumentSummary, toExportedChunk } from "./rows.js";

export function getDocument(conn: Connection, id: string): StoredDocument | undefined {
  const row = conn.statement("SELECT * FROM documents WHERE id = ?").get(id) as Row | undefined;
  return row ? toDocument(row) : undefined;
}

export function getDocumentByKey(conn: Connection, key: string): StoredDocument | undefined {
  const row = conn.statement("SELECT * FROM documents WHERE key = ?").get(key) as Row | undefined;
  return row ? toDocument(row) : undefined;
}

export function listDocuments(conn: Connection, options: { limit: number; offset?: number; filter?: Filter }): DocumentSummary[] {
  const { sql, params } = filterToSql(options.filter, "document");
  const rows = conn
    .statement(
      `SELECT d.id, d.key, d.source, d.title, d.content_hash, d.metadata, d.collection, d.created_at, d.updated_at,
              length(d.content) AS length, (SELECT count(*) FROM chunks c WHERE c.doc_id = d.id) AS chunk_count
       FROM documents d WHERE ${sql} ORDER BY d.created_at, d.id LIMIT ? OFFSET ?`,
    )
    .all(...params, options.limit, options.offset ?? 0) as Row[];
  return rows.map(toDocumentSummary);
}

export function getChunks(conn: Connection, docId: string): StoredChunk[] {
  return (conn.statement("SELECT * FROM chunks WHERE doc_id = ? ORDER BY idx").all(docId) as Row[]).map(toChunk);
}

/** A document's chunks with their embedding input hash and, when embedded, their vector. */
export function exportChunks(conn: Connection, docId: string): ExportedChunk[] {
  const rows = conn.statement("SELECT * FROM chunks WHERE doc_id = ? ORDER BY idx").all(docId) as Row[];
  const vectors = hasVectorTable(conn);
  return rows.map((row) => {
    const chunk = toExportedChunk(row);
    if (vectors && chunk.embedded) {
      const blob = conn
        .statement("SELECT embedding FROM chunks_vec WHERE rowid = ?")
        .pluck()
        .get(BigInt(row.seq as number)) as Buffer | undefined;
      // A copy of the bytes, aligned for a Float32Array.
      if (blob) chunk.vector = new Float32Array(new Uint8Array(blob).buffer);
    }
    return chunk;
  });
}

/** The chunks with their document's fields, in the order asked (missing ones left out). */
export function chunkHits(conn: Connection, chunkIds: string[]): ChunkHit[] {
  if (chunkIds.length === 0) return [];
  const rows = conn
    .statement(
      `SELECT c.*, d.title, d.source, d.collection, d.metadata, d.updated_at AS doc_updated_at
       FROM chunks c JOIN documents d ON d.id = c.doc_id WHERE c.id IN (SELECT value FROM json_each(?))`,
    )
    .all(JSON.stringify(chunkIds)) as Row[];
  const byId = new Map(rows.map((r) => [r.id as string, toChunkHit(r)]));
  return chunkIds.flatMap((id) => {
    const hit = byId.get(id);
    return hit ? [hit] : [];
  });
}

/**
 * Search hits with their chunk read in one statement (as `chunkHits` returns it), in order;
 * those whose chunk was deleted meanwhile — or, with `embedded`, lost its vector — left out.
 */
export function withChunks<T extends { seq: number }>(conn: Connection, hits: T[], embedded = false): (T & { chunk: ChunkHit })[] {
  if (hits.length === 0) return [];
  const rows = conn
    .statement(
      `SELECT c.*, d.title, d.source, d.collection, d.metadata, d.updated_at AS doc_updated_at
       FROM chunks c JOIN documents d ON d.id = c.doc_id WHERE c.seq IN (SELECT value FROM json_each(?))${embedded ? " AND c.embedded = 1" : ""}`,
    )
    .all(JSON.stringify(hits.map((h) => h.seq))) as Row[];
  const bySeq = new Map(rows.map((r) => [r.seq as number, toChunkHit(r)]));
  return hits.flatMap((hit) => {
    const chunk = bySeq.get(hit.seq);
    return chunk === undefined ? [] : [{ ...hit, chunk }];
  });
}

/**
 * Search hits with their chunk's id in place of its seq (chunks deleted meanwhile — or, with
 * `embedded`, that lost their vector — left out).
 */
export function idsOf<T extends { seq: number }>(conn: Connection, hits: T[], embedded = false): (Omit<T, "seq"> & { chunkId: string })[] {
  if (hits.length === 0) return [];
  const ids = new Map(
    (
      conn
        .statement(`SELECT seq, id FROM chunks WHERE seq IN (SELECT value FROM json_each(?))${embedded ? " AND embedded = 1" : ""}`)
        .all(JSON.stringify(hits.map((h) => h.seq))) as {
        seq: number;
        id: string;
      }[]
    ).map((r) => [r.seq, r.id]),
  );
  return hits.flatMap(({ seq, ...rest }) => {
    const chunkId = ids.get(seq);
    return chunkId === undefined ? [] : [{ ...rest, chunkId }];
  });
}
