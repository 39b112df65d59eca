// Reading documents and chunks: one document (by id or key), a page of summaries, a document's
// chunks (with their vectors for export), and chunks with their documents' fields by id.
import type { ChunkHit, DocumentSummary, ExportedChunk, Filter, StoredChunk, StoredDocument } from "@docdb/store";
import type { StoreContext } from "./connection.js";
import { filterToSql, Params } from "./filter.js";
import { hasVectorTable } from "./meta.js";
import {
  CHUNK_COLUMNS,
  CHUNK_HIT_COLUMNS,
  DOCUMENT_COLUMNS,
  toChunk,
  toChunkHit,
  toDocument,
  toDocumentSummary,
  toExportedChunk,
} from "./rows.js";

export async function getDocument(ctx: StoreContext, id: string): Promise<StoredDocument | undefined> {
  const rows = await ctx.read(`SELECT ${DOCUMENT_COLUMNS} FROM ${ctx.s}.documents d WHERE d.id = $1`, [id]);
  return rows[0] ? toDocument(rows[0]) : undefined;
}

export async function getDocumentByKey(ctx: StoreContext, key: string): Promise<StoredDocument | undefined> {
  const rows = await ctx.read(`SELECT ${DOCUMENT_COLUMNS} FROM ${ctx.s}.documents d WHERE d.key = $1`, [key]);
  return rows[0] ? toDocument(rows[0]) : undefined;
}

export async function listDocuments(
  ctx: StoreContext,
  options: { limit: number; offset?: number; filter?: Filter },
): Promise<DocumentSummary[]> {
  const { s } = ctx;
  const params = new Params();
  const where = options.filter ? `WHERE ${filterToSql(options.filter, params, { chunks: "document", schema: s })}` : "";
  const limit = params.add(Math.max(0, Math.floor(options.limit)));
  const offset = params.add(Math.max(0, Math.floor(options.offset ?? 0)));
  const rows = await ctx.read(
    `SELECT d.id, d.key, d.source, d.title, d.content_hash, d.metadata, d.collection, d.created_at, d.updated_at, d.content_length AS length,
       (SELECT count(*) FROM ${s}.chunks c WHERE c.doc_id = d.id) AS chunk_count
     FROM ${s}.documents d ${where} ORDER BY d.created_at, d.id LIMIT ${limit} OFFSET ${offset}`,
    params.values,
  );
  return rows.map(toDocumentSummary);
}

export async function getChunks(ctx: StoreContext, docId: string): Promise<StoredChunk[]> {
  const rows = await ctx.read(`SELECT ${CHUNK_COLUMNS} FROM ${ctx.s}.chunks c WHERE c.doc_id = $1 ORDER BY c.idx`, [docId]);
  return rows.map(toChunk);
}

export async function exportChunks(ctx: StoreContext, docId: string): Promise<ExportedChunk[]> {
  const { s } = ctx;
  const vectors = await hasVectorTable(ctx);
  const rows = await ctx.read(
    vectors
      ? `SELECT ${CHUNK_COLUMNS}, c.input_hash, v.embedding::text AS vector FROM ${s}.chunks c
         LEFT JOIN ${s}.chunk_vectors v ON v.seq = c.seq WHERE c.doc_id = $1 ORDER BY c.idx`
      : `SELECT ${CHUNK_COLUMNS}, c.input_hash, NULL AS vector FROM ${s}.chunks c WHERE c.doc_id = $1 ORDER BY c.idx`,
    [docId],
  );
  return rows.map(toExportedChunk);
}

export async function chunkHits(ctx: StoreContext, chunkIds: string[]): Promise<ChunkHit[]> {
  if (chunkIds.length === 0) return [];
  const rows = await ctx.read(
    `SELECT ${CHUNK_HIT_COLUMNS}
     FROM unnest($1::text[]) WITH ORDINALITY AS x(id, ord)
     JOIN ${ctx.s}.chunks c ON c.id = x.id JOIN ${ctx.s}.documents d ON d.id = c.doc_id ORDER BY x.ord`,
    [chunkIds],
  );
  return rows.map(toChunkHit);
}
