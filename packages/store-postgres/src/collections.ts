// Collections (a name, a source, settings) and the files imported into them: each file's
// document, its size and mtime, and removing a file or emptying a collection in batches.
import {
  assertStorableText,
  type CollectionCounts,
  type CollectionPatch,
  type CollectionRecord,
  type RemovedCounts,
  type StoredFile,
  StoreError,
} from "@docdb/store";
import { now, type Row, type StoreContext } from "./connection.js";
import { pgCode } from "./db.js";
import { DELETE_BATCH, deleteIn } from "./delete.js";
import { Params } from "./filter.js";
import { toCollection, toFile } from "./rows.js";

export async function listCollections(ctx: StoreContext): Promise<CollectionRecord[]> {
  return (await ctx.read(`SELECT * FROM ${ctx.s}.collections ORDER BY name`)).map(toCollection);
}

export async function getCollection(ctx: StoreContext, name: string): Promise<CollectionRecord | undefined> {
  const rows = await ctx.read(`SELECT * FROM ${ctx.s}.collections WHERE name = $1`, [name]);
  return rows[0] ? toCollection(rows[0]) : undefined;
}

export async function createCollection(
  ctx: StoreContext,
  input: { name: string; description: string; source: string; enabled: boolean },
): Promise<CollectionRecord> {
  assertStorableText(input, "collection");
  const time = now();
  return ctx.db.transaction(async (client) => {
    try {
      const { rows } = await client.query(
        `INSERT INTO ${ctx.s}.collections (name, description, source, enabled, settings, created_at, updated_at) VALUES ($1, $2, $3, $4, '{}', $5, $5) RETURNING *`,
        [input.name, input.description, input.source, input.enabled, time],
      );
      await ctx.bump(client);
      return toCollection(rows[0] as Row);
    } catch (error) {
      if (pgCode(error).code === "23505")
        throw new StoreError("CONFLICT", `a collection named ${JSON.stringify(input.name)} already exists`);
      throw error;
    }
  });
}

export async function updateCollection(ctx: StoreContext, name: string, patch: CollectionPatch): Promise<boolean> {
  assertStorableText(patch, "collection");
  const sets: string[] = [];
  const params = new Params([name]);
  if (patch.description !== undefined) sets.push(`description = ${params.add(patch.description)}`);
  if (patch.source !== undefined) sets.push(`source = ${params.add(patch.source)}`);
  if (patch.enabled !== undefined) sets.push(`enabled = ${params.add(patch.enabled)}`);
  if (patch.settings !== undefined) sets.push(`settings = ${params.add(JSON.stringify(patch.settings))}::jsonb`);
  if (patch.lastImportAt !== undefined) sets.push(`last_import_at = ${params.add(patch.lastImportAt)}`);
  // Recording an import is not a change to the collection itself.
  if (
    sets.length === 0 ||
    patch.description !== undefined ||
    patch.source !== undefined ||
    patch.enabled !== undefined ||
    patch.settings !== undefined
  ) {
    sets.push(`updated_at = ${params.add(now())}`);
  }
  return ctx.db.transaction(async (client) => {
    const result = await client.query(`UPDATE ${ctx.s}.collections SET ${sets.join(", ")} WHERE name = $1`, params.values);
    if (!result.rowCount) return false;
    await ctx.bump(client);
    return true;
  });
}

export async function clearCollection(ctx: StoreContext, name: string): Promise<RemovedCounts> {
  const total = { documents: 0, chunks: 0 };
  for (;;) {
    const done = await ctx.db.transaction(async (client) => {
      const { rows } = await client.query<{ id: string }>(
        `SELECT id FROM ${ctx.s}.documents WHERE collection = $1 ORDER BY id LIMIT ${DELETE_BATCH} FOR UPDATE SKIP LOCKED`,
        [name],
      );
      if (rows.length === 0) {
        const files = await client.query(`DELETE FROM ${ctx.s}.files WHERE collection = $1`, [name]);
        if (files.rowCount) await ctx.bump(client);
        return undefined;
      }
      const { delta, ...removed } = await deleteIn(
        ctx,
        client,
        rows.map((r) => r.id),
      );
      await ctx.bump(client, delta);
      return removed;
    });
    if (!done) return total;
    total.documents += done.documents;
    total.chunks += done.chunks;
  }
}

export async function deleteCollection(ctx: StoreContext, name: string): Promise<RemovedCounts> {
  const removed = await clearCollection(ctx, name);
  await ctx.db.transaction(async (client) => {
    const result = await client.query(`DELETE FROM ${ctx.s}.collections WHERE name = $1`, [name]);
    if (result.rowCount) await ctx.bump(client);
  });
  return removed;
}

export async function collectionCounts(ctx: StoreContext, name: string): Promise<CollectionCounts> {
  const rows = await ctx.read(
    `SELECT (SELECT count(*) FROM ${ctx.s}.documents WHERE collection = $1) AS documents,
            count(c.seq) AS chunks, count(c.seq) FILTER (WHERE c.embedded) AS embedded,
            (SELECT count(*) FROM ${ctx.s}.files WHERE collection = $1) AS files,
            count(DISTINCT c.doc_id) FILTER (WHERE c.code_fallback IS NOT NULL) AS fallback_documents,
            count(c.seq) FILTER (WHERE c.code_fallback IS NOT NULL) AS fallback_chunks
     FROM ${ctx.s}.documents d JOIN ${ctx.s}.chunks c ON c.doc_id = d.id WHERE d.collection = $1`,
    [name],
  );
  const r = rows[0] ?? {};
  const chunks = Number(r.chunks ?? 0);
  const embedded = Number(r.embedded ?? 0);
  return {
    documents: Number(r.documents ?? 0),
    chunks,
    embedded,
    pending: chunks - embedded,
    files: Number(r.files ?? 0),
    codeFallbackDocuments: Number(r.fallback_documents ?? 0),
    codeFallbackChunks: Number(r.fallback_chunks ?? 0),
  };
}

function fileSql(ctx: StoreContext, where: string): string {
  return `SELECT f.*, (SELECT count(*) FROM ${ctx.s}.chunks c WHERE c.doc_id = f.doc_id) AS chunk_count FROM ${ctx.s}.files f WHERE ${where} ORDER BY f.collection, f.path`;
}

export async function listFiles(ctx: StoreContext, collection: string): Promise<StoredFile[]> {
  return (await ctx.read(fileSql(ctx, "f.collection = $1"), [collection])).map(toFile);
}

export async function filesOfDocuments(ctx: StoreContext, docIds: string[]): Promise<StoredFile[]> {
  if (docIds.length === 0) return [];
  return (await ctx.read(fileSql(ctx, "f.doc_id = ANY($1::text[])"), [docIds])).map(toFile);
}

export async function touchFile(ctx: StoreContext, collection: string, path: string, size: number, mtime: number): Promise<void> {
  await ctx.db.transaction(async (client) => {
    const result = await client.query(`UPDATE ${ctx.s}.files SET size = $3, mtime = $4 WHERE collection = $1 AND path = $2`, [
      collection,
      path,
      size,
      mtime,
    ]);
    if (result.rowCount) await ctx.bump(client);
  });
}

export async function removeFile(ctx: StoreContext, collection: string, path: string): Promise<number> {
  return ctx.db.transaction(async (client) => {
    const { rows } = await client.query<{ doc_id: string }>(
      `DELETE FROM ${ctx.s}.files WHERE collection = $1 AND path = $2 RETURNING doc_id`,
      [collection, path],
    );
    if (rows.length === 0) return 0;
    const { delta, chunks } = await deleteIn(
      ctx,
      client,
      rows.map((r) => r.doc_id),
    );
    await ctx.bump(client, delta);
    return chunks;
  });
}
