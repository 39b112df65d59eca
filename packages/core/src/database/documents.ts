// Reading and removing stored documents: one by id (whole or a range), deletion, and listing.
import { allOf } from "@docdb/store";
import { DocDBError, echo } from "../errors.js";
import { parseFilter } from "../filter.js";
import { lineIndex } from "../lines.js";
import { withoutMemory } from "../search/filters.js";
import type { DocumentListing, DocumentRange, DocumentView } from "../types.js";
import { validateId } from "../validate.js";
import type { DatabaseContext } from "./context.js";
import { pageRange, resolveRange } from "./ranges.js";

/** A document with its text and chunk layout, or the part `range` names (see Database.getDocument). */
export async function getDocument(ctx: DatabaseContext, id: string, range?: DocumentRange): Promise<DocumentView> {
  validateId(id);
  const doc = await ctx.store.getDocument(id);
  if (!doc) throw new DocDBError("NOT_FOUND", `no document with id "${echo(id)}" in database "${ctx.name}"`);
  const content = doc.content;
  const lineOf = lineIndex(content);
  const lines = lineOf(content.length);
  const all = await ctx.store.getChunks(id);
  const page = range?.page !== undefined ? pageRange(doc, all, range) : undefined;
  const part = page?.part ?? resolveRange(content, range);
  const chunks =
    page?.chunks ?? all.filter((c) => !part || (c.start < part.end && c.end > part.start) || (c.start === c.end && c.start === part.start));
  return {
    doc_id: doc.id,
    key: doc.key,
    title: doc.title,
    source: doc.source,
    text: part ? content.slice(part.start, part.end) : content,
    length: content.length,
    lines,
    ...(part
      ? {
          range: {
            start: part.start,
            end: part.end,
            line_start: lineOf(part.start),
            line_end: lineOf(Math.max(part.start, part.end - 1)),
          },
        }
      : {}),
    ...(page ? { page: page.page } : {}),
    metadata: doc.metadata,
    collection: doc.collection,
    created_at: doc.createdAt,
    updated_at: doc.updatedAt,
    chunks: chunks.map((c) => ({
      chunk_id: c.id,
      index: c.idx,
      start: c.start,
      end: c.end,
      embedded: c.embedded,
      ...(c.lineStart !== null ? { line_start: c.lineStart } : {}),
      ...(c.lineEnd !== null ? { line_end: c.lineEnd } : {}),
      ...(c.locator ? { locator: c.locator } : {}),
      ...(c.symbol !== null ? { symbol: c.symbol } : {}),
      ...(c.symbolKind !== null ? { symbol_kind: c.symbolKind } : {}),
    })),
  };
}

/** Deletes a document with its chunks, vectors and keyword rows; NOT_FOUND for an unknown id. */
export async function deleteDocument(ctx: DatabaseContext, id: string): Promise<{ deleted_chunks: number }> {
  const started = performance.now();
  validateId(id);
  const removed = await ctx.store.deleteDocuments([id]);
  if (removed.documents === 0) {
    throw new DocDBError("NOT_FOUND", `no document with id "${echo(id)}" in database "${ctx.name}"; nothing was deleted`);
  }
  ctx.logger.info({ db: ctx.name, doc_id: id, chunks: removed.chunks, ms: Math.round(performance.now() - started) }, "delete");
  return { deleted_chunks: removed.chunks };
}

/** Documents in creation order, optionally of one collection or matching a filter. */
export async function listDocuments(
  ctx: DatabaseContext,
  options: { limit?: number; offset?: number; collection?: string; filter?: Record<string, unknown> },
): Promise<DocumentListing[]> {
  const limit = options.limit ?? 100;
  const offset = options.offset ?? 0;
  if (!Number.isInteger(limit) || limit < 1 || limit > 10_000)
    throw new DocDBError("INVALID_REQUEST", "limit must be an integer from 1 to 10000");
  if (!Number.isInteger(offset) || offset < 0) throw new DocDBError("INVALID_REQUEST", "offset must be a whole number, 0 or more");
  const filter = allOf([
    parseFilter(options.filter),
    options.collection !== undefined ? { op: "eq", field: { builtin: "collection" }, value: options.collection } : await withoutMemory(ctx),
  ]);
  const rows = await ctx.store.listDocuments({ limit, offset, filter });
  return rows.map((d) => ({
    doc_id: d.id,
    key: d.key,
    title: d.title,
    source: d.source,
    metadata: d.metadata,
    collection: d.collection,
    chunk_count: d.chunkCount,
    length: d.length,
    created_at: d.createdAt,
    updated_at: d.updatedAt,
  }));
}
