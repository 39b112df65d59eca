// Collections and their files: the collection records, per-collection counts, file rows, and
// clearing or removing what a collection or file holds.
import {
  assertStorableText,
  type CollectionCounts,
  type CollectionPatch,
  type CollectionRecord,
  type RemovedCounts,
  type StoredFile,
  StoreError,
} from "@docdb/store";
import type { Connection } from "./connection.js";
import { type Row, toCollection, toFile } from "./rows.js";
import { DELETE_BATCH, deleteOne } from "./write.js";

export function listCollections(conn: Connection): CollectionRecord[] {
  return (conn.statement("SELECT * FROM collections ORDER BY name").all() as Row[]).map(toCollection);
}

export function getCollection(conn: Connection, name: string): CollectionRecord | undefined {
  const row = conn.statement("SELECT * FROM collections WHERE name = ?").get(name) as Row | undefined;
  return row ? toCollection(row) : undefined;
}

export async function createCollection(
  conn: Connection,
  input: { name: string; description: string; source: string; enabled: boolean },
): Promise<CollectionRecord> {
  assertStorableText(input, "collection");
  const now = new Date().toISOString();
  await conn.write(() => {
    if (conn.statement("SELECT 1 FROM collections WHERE name = ?").get(input.name) !== undefined) {
      throw new StoreError("CONFLICT", `collection "${input.name}" already exists`);
    }
    conn
      .statement("INSERT INTO collections (name, description, source, enabled, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)")
      .run(input.name, input.description, input.source, input.enabled ? 1 : 0, now, now);
  });
  return getCollection(conn, input.name) as CollectionRecord;
}

export async function updateCollection(conn: Connection, name: string, patch: CollectionPatch): Promise<boolean> {
  assertStorableText(patch, "collection");
  const values: Record<string, unknown> = {
    description: patch.description,
    source: patch.source,
    enabled: patch.enabled === undefined ? undefined : patch.enabled ? 1 : 0,
    settings: patch.settings === undefined ? undefined : JSON.stringify(patch.settings),
    last_import_at: patch.lastImportAt,
  };
  const columns = Object.keys(values).filter((k) => values[k] !== undefined);
  const sets = [...columns.map((c) => `${c} = ?`), "updated_at = ?"];
  const params = [...columns.map((c) => values[c]), new Date().toISOString()];
  // Recording an import is not a change to the collection itself.
  if (columns.length === 1 && columns[0] === "last_import_at") {
    sets.pop();
    params.pop();
  }
  return conn.write(() => conn.db.prepare(`UPDATE collections SET ${sets.join(", ")} WHERE name = ?`).run(...params, name).changes > 0);
}

export async function clearCollection(conn: Connection, name: string): Promise<RemovedCounts> {
  const removed = { documents: 0, chunks: 0 };
  for (;;) {
    // One bounded batch per transaction, so a long clear never starves other writers.
    const batch = await conn.write(() => {
      const ids = conn.statement("SELECT id FROM documents WHERE collection = ? LIMIT ?").pluck().all(name, DELETE_BATCH) as string[];
      for (const id of ids) {
        removed.chunks += Math.max(0, deleteOne(conn, id));
        removed.documents++;
      }
      if (ids.length === 0) conn.statement("DELETE FROM files WHERE collection = ?").run(name);
      return ids.length;
    });
    if (batch === 0) return removed;
  }
}

export async function deleteCollection(conn: Connection, name: string): Promise<RemovedCounts> {
  const removed = await clearCollection(conn, name);
  await conn.write(() => conn.statement("DELETE FROM collections WHERE name = ?").run(name));
  return removed;
}

export function collectionCounts(conn: Connection, name: string): CollectionCounts {
  const row = conn
    .statement(
      `SELECT
         (SELECT count(*) FROM documents WHERE collection = @c) AS documents,
         (SELECT count(*) FROM chunks c JOIN documents d ON d.id = c.doc_id WHERE d.collection = @c) AS chunks,
         (SELECT count(*) FROM chunks c JOIN documents d ON d.id = c.doc_id WHERE d.collection = @c AND c.embedded = 1) AS embedded,
         (SELECT count(*) FROM files WHERE collection = @c) AS files,
         (SELECT count(DISTINCT c.doc_id) FROM chunks c JOIN documents d ON d.id = c.doc_id
          WHERE d.collection = @c AND c.code_fallback IS NOT NULL) AS codeFallbackDocuments,
         (SELECT count(*) FROM chunks c JOIN documents d ON d.id = c.doc_id
          WHERE d.collection = @c AND c.code_fallback IS NOT NULL) AS codeFallbackChunks`,
    )
    .get({ c: name }) as Omit<CollectionCounts, "pending">;
  return { ...row, pending: row.chunks - row.embedded };
}

export function listFiles(conn: Connection, collection: string): StoredFile[] {
  return (
    conn
      .statement(
        `SELECT f.*, (SELECT count(*) FROM chunks c WHERE c.doc_id = f.doc_id) AS chunk_count
         FROM files f WHERE f.collection = ? ORDER BY f.path`,
      )
      .all(collection) as Row[]
  ).map(toFile);
}

export function filesOfDocuments(conn: Connection, docIds: string[]): StoredFile[] {
  if (docIds.length === 0) return [];
  return (
    conn
      .statement(
        `SELECT f.*, (SELECT count(*) FROM chunks c WHERE c.doc_id = f.doc_id) AS chunk_count
         FROM files f WHERE f.doc_id IN (SELECT value FROM json_each(?))`,
      )
      .all(JSON.stringify(docIds)) as Row[]
  ).map(toFile);
}

export async function touchFile(conn: Connection, collection: string, path: string, size: number, mtime: number): Promise<void> {
  await conn.write(() =>
    conn.statement("UPDATE files SET size = ?, mtime = ? WHERE collection = ? AND path = ?").run(size, mtime, collection, path),
  );
}

/** Removes a file's document and its row; the number of chunks removed (0 when unknown). */
export function removeFile(conn: Connection, collection: string, path: string): Promise<number> {
  return conn.write(() => {
    const docId = conn.statement("SELECT doc_id FROM files WHERE collection = ? AND path = ?").pluck().get(collection, path) as
      | string
      | undefined;
    if (docId === undefined) return 0;
    const chunks = Math.max(0, deleteOne(conn, docId));
    conn.statement("DELETE FROM files WHERE collection = ? AND path = ?").run(collection, path);
    return chunks;
  });
}
