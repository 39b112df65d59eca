import type Database from "better-sqlite3";
import type { SqliteStore } from "./store.js";
import type { NewChunk, NewDocument } from "./types.js";

export interface CollectionRow {
  name: string;
  description: string;
  source: string;
  enabled: boolean;
  settings: Record<string, unknown>;
  created_at: string;
  updated_at: string;
  last_import_at: string | null;
}

export interface FileRow {
  collection: string;
  path: string;
  size: number;
  mtime: number;
  content_hash: string;
  doc_id: string;
  chunking: string;
  imported_at: string;
}

export interface FileRecord {
  path: string;
  size: number;
  mtime: number;
  contentHash: string;
  chunking: string;
}

export interface CollectionCounts {
  documents: number;
  chunks: number;
  embedded: number;
  pending: number;
  files: number;
}

type RawCollection = Omit<CollectionRow, "enabled" | "settings"> & { enabled: number; settings: string };

function toCollection(row: RawCollection): CollectionRow {
  return { ...row, enabled: row.enabled === 1, settings: JSON.parse(row.settings) as Record<string, unknown> };
}

/**
 * The collections and files tables of one database. Kept apart from SqliteStore so the
 * document store stays about documents; writes that touch both go through the store's own
 * methods inside one transaction (better-sqlite3 nests them as savepoints).
 */
export class CollectionStore {
  constructor(private readonly store: SqliteStore) {}

  private readonly statements = new Map<string, Database.Statement>();

  private get db() {
    return this.store.db;
  }

  /** Prepared once per SQL text: imports run these statements once per file. */
  private statement(sql: string): Database.Statement {
    let statement = this.statements.get(sql);
    if (!statement) {
      statement = this.db.prepare(sql);
      this.statements.set(sql, statement);
    }
    return statement;
  }

  /** Changes whenever another connection commits to the file: a cheap "did anything change?". */
  dataVersion(): number {
    return this.db.pragma("data_version", { simple: true }) as number;
  }

  list(): CollectionRow[] {
    return (this.db.prepare("SELECT * FROM collections ORDER BY name").all() as RawCollection[]).map(toCollection);
  }

  get(name: string): CollectionRow | undefined {
    const row = this.db.prepare("SELECT * FROM collections WHERE name = ?").get(name) as RawCollection | undefined;
    return row ? toCollection(row) : undefined;
  }

  insert(row: { name: string; description: string; source: string; enabled: boolean }): void {
    const now = new Date().toISOString();
    this.db
      .prepare("INSERT INTO collections (name, description, source, enabled, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)")
      .run(row.name, row.description, row.source, row.enabled ? 1 : 0, now, now);
  }

  update(name: string, patch: { description?: string; source?: string; enabled?: boolean; settings?: Record<string, unknown> }): void {
    const values: Record<string, unknown> = {
      description: patch.description,
      source: patch.source,
      enabled: patch.enabled === undefined ? undefined : patch.enabled ? 1 : 0,
      settings: patch.settings === undefined ? undefined : JSON.stringify(patch.settings),
    };
    const columns = Object.keys(values).filter((k) => values[k] !== undefined);
    if (columns.length === 0) return;
    const sets = [...columns.map((c) => `${c} = ?`), "updated_at = ?"];
    const params = [...columns.map((c) => values[c]), new Date().toISOString()];
    this.db.prepare(`UPDATE collections SET ${sets.join(", ")} WHERE name = ?`).run(...params, name);
  }

  markImported(name: string, at: string = new Date().toISOString()): void {
    this.db.prepare("UPDATE collections SET last_import_at = ? WHERE name = ?").run(at, name);
  }

  /** Removes every document of the collection (and so its file rows); returns what went. */
  clear(name: string): { documents: number; chunks: number } {
    return this.db.transaction(() => {
      const ids = this.db.prepare("SELECT id FROM documents WHERE collection = ?").pluck().all(name) as string[];
      let chunks = 0;
      for (const id of ids) chunks += Math.max(0, this.store.deleteDocument(id));
      this.db.prepare("DELETE FROM files WHERE collection = ?").run(name);
      return { documents: ids.length, chunks };
    })();
  }

  /** Deletes the collection with all its documents, in one transaction. */
  delete(name: string): { documents: number; chunks: number } {
    return this.db.transaction(() => {
      const removed = this.clear(name);
      this.db.prepare("DELETE FROM collections WHERE name = ?").run(name);
      return removed;
    })();
  }

  files(collection: string): (FileRow & { chunk_count: number })[] {
    return this.db
      .prepare(
        `SELECT f.*, (SELECT count(*) FROM chunks c WHERE c.doc_id = f.doc_id) AS chunk_count
         FROM files f WHERE f.collection = ? ORDER BY f.path`,
      )
      .all(collection) as (FileRow & { chunk_count: number })[];
  }

  file(collection: string, path: string): FileRow | undefined {
    return this.statement("SELECT * FROM files WHERE collection = ? AND path = ?").get(collection, path) as FileRow | undefined;
  }

  /** File rows of the given documents (to tell which search results come from which file). */
  filesOfDocuments(docIds: string[]): FileRow[] {
    if (docIds.length === 0) return [];
    return this.db.prepare("SELECT * FROM files WHERE doc_id IN (SELECT value FROM json_each(?))").all(JSON.stringify(docIds)) as FileRow[];
  }

  /**
   * Replaces the document of one file: whatever document the file (or its path) had is deleted,
   * the new document and chunks are written, and the file row points at it, all in one
   * transaction. Reading the old document inside the transaction keeps two importers racing
   * on the same file from leaving two documents behind. Returns the new chunks' seqs.
   */
  writeFile(collection: string, file: FileRecord, doc: NewDocument, chunks: NewChunk[]): number[] {
    return this.db.transaction(() => {
      const old = this.statement(
        `SELECT doc_id AS id FROM files WHERE collection = ? AND path = ?
           UNION SELECT id FROM documents WHERE collection = ? AND source = ?`,
      )
        .pluck()
        .all(collection, file.path, collection, file.path) as string[];
      for (const id of old) this.store.deleteDocument(id);
      const seqs = this.store.insertDocument({ ...doc, collection, source: file.path }, chunks);
      this.statement(
        `INSERT INTO files (collection, path, size, mtime, content_hash, doc_id, chunking, imported_at)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?)
           ON CONFLICT(collection, path) DO UPDATE SET size = excluded.size, mtime = excluded.mtime,
             content_hash = excluded.content_hash, doc_id = excluded.doc_id, chunking = excluded.chunking,
             imported_at = excluded.imported_at`,
      ).run(collection, file.path, file.size, file.mtime, file.contentHash, doc.id, file.chunking, new Date().toISOString());
      return seqs;
    })();
  }

  /** Records a new size/mtime for a file whose content did not change. */
  touchFile(collection: string, path: string, size: number, mtime: number): void {
    this.statement("UPDATE files SET size = ?, mtime = ? WHERE collection = ? AND path = ?").run(size, mtime, collection, path);
  }

  /** Deletes a file's document and row in one transaction; returns the chunks removed. */
  removeFile(collection: string, path: string): number {
    return this.db.transaction(() => {
      const row = this.file(collection, path);
      if (!row) return 0;
      const chunks = Math.max(0, this.store.deleteDocument(row.doc_id));
      this.db.prepare("DELETE FROM files WHERE collection = ? AND path = ?").run(collection, path);
      return chunks;
    })();
  }

  counts(collection: string): CollectionCounts {
    const row = this.db
      .prepare(
        `SELECT
           (SELECT count(*) FROM documents WHERE collection = @c) AS documents,
           (SELECT count(*) FROM chunks c JOIN documents d ON d.id = c.doc_id WHERE d.collection = @c) AS chunks,
           (SELECT count(*) FROM chunks c JOIN documents d ON d.id = c.doc_id WHERE d.collection = @c AND c.embedded = 1) AS embedded,
           (SELECT count(*) FROM files WHERE collection = @c) AS files`,
      )
      .get({ c: collection }) as Omit<CollectionCounts, "pending">;
    return { ...row, pending: row.chunks - row.embedded };
  }
}
