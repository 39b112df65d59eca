// Writing documents: insert or upsert by key, replacing a file's or key's old document (carrying
// over vectors whose embedding input did not change), and deletes (bulk ones in batches).
import { ANALYZER_VERSION, analyzeForIndex, type IndexTerms, indexTerms } from "@docdb/analyzer";
import {
  assertStorableWrites,
  type DocumentWrite,
  type EmbeddingInfo,
  type RemovedCounts,
  StoreError,
  type WriteResult,
} from "@docdb/store";
import type Database from "better-sqlite3";
import type { Connection } from "./connection.js";
import type { WrittenRow, WrittenRowsSink } from "./keyword-live/written.js";
import { embeddingInfo, hasVectorTable } from "./meta.js";
import { addReusedVectors } from "./reuse-counter.js";
import { checkVector, toVectorBlob } from "./vector.js";

/** Documents deleted per transaction by bulk deletes, so other writers get their turn. */
export const DELETE_BATCH = 200;

/**
 * Vectors and keyword rows of a write, inserted after every other row of it, keyword rows last.
 * FTS5 writes out the terms it holds in memory whenever another statement of the transaction
 * opens a savepoint (an INSERT into `chunks` does: it also updates sqlite_sequence), so keyword
 * rows interleaved with chunk inserts made one tiny index segment per chunk, and merging those
 * was most of the cost of a write.
 */
class LateRows {
  private rows: { seq: number; terms: IndexTerms }[] = [];
  /** Every keyword row inserted, when the write hands them to the keyword index (WrittenRowsSink). */
  readonly inserted: { seq: number; terms: IndexTerms }[] | undefined;
  private vectors: { seq: number; blob: Buffer }[] = [];
  constructor(
    private readonly insert: Database.Statement,
    private readonly insertVector: () => Database.Statement,
    keep: boolean,
  ) {
    this.inserted = keep ? [] : undefined;
  }

  add(seq: number, terms: IndexTerms, vector?: Buffer): void {
    this.rows.push({ seq, terms });
    if (vector) this.vectors.push({ seq, blob: vector });
  }

  /** Vectors, then keyword rows (the last statements of the write). */
  flush(): void {
    if (this.vectors.length > 0) {
      const insert = this.insertVector();
      for (const { seq, blob } of this.vectors) insert.run(BigInt(seq), blob);
      this.vectors = [];
    }
    for (const { seq, terms } of this.rows) this.insert.run(seq, terms.title, terms.body);
    if (this.inserted) for (const row of this.rows) this.inserted.push(row);
    this.rows = [];
  }
}

/**
 * Writes documents with their chunks (and file rows) in one transaction. The keyword rows given
 * to FTS5 go to `sink` (the live keyword index) once the transaction has committed, each with the
 * keyword_log entry of its chunk, so that its catch-up need not analyse them again.
 */
export async function writeDocuments(conn: Connection, writes: DocumentWrite[], sink?: WrittenRowsSink): Promise<WriteResult[]> {
  if (writes.length === 0) return [];
  // SQLite would keep NUL and lone surrogates (as bytes no other engine holds): refused, as everywhere.
  assertStorableWrites(writes);
  let written: WrittenRow[] = [];
  const results = await conn.write(() => {
    written = []; // a retried transaction starts over
    const before = sink ? (conn.statement("SELECT coalesce(max(id), 0) AS n FROM keyword_log").get() as { n: number }).n : 0;
    const info = embeddingInfo(conn);
    const vectors = info !== undefined && hasVectorTable(conn);
    const late = new LateRows(
      conn.statement("INSERT INTO chunks_fts (rowid, title, body) VALUES (?, ?, ?)"),
      () => conn.statement("INSERT INTO chunks_vec (rowid, embedding) VALUES (?, ?)"),
      sink !== undefined,
    );
    const results = writes.map((w) => writeOne(conn, w, vectors ? info : undefined, late));
    late.flush();
    if (sink && late.inserted && late.inserted.length > 0 && sink.wants(maxSeq(late.inserted))) {
      written = withLogIds(conn, before, late.inserted);
    }
    return results;
  });
  // Only now: a transaction that rolled back gave its seqs and log ids to the next write.
  if (sink && written.length > 0) sink.committed(written);
  return results;
}

function maxSeq(rows: { seq: number }[]): number {
  let max = 0;
  for (const r of rows) if (r.seq > max) max = r.seq;
  return max;
}

/** The rows inserted with the last keyword_log entry of their chunk in this transaction (entries after `before`). */
function withLogIds(conn: Connection, before: number, rows: { seq: number; terms: IndexTerms }[]): WrittenRow[] {
  const entries = conn.statement("SELECT id, seq FROM keyword_log WHERE id > ? ORDER BY id").all(before) as { id: number; seq: number }[];
  const last = new Map<number, number>();
  for (const e of entries) last.set(e.seq, e.id);
  const out: WrittenRow[] = [];
  for (const { seq, terms } of rows) {
    const logId = last.get(seq);
    if (logId !== undefined) out.push({ seq, title: terms.title, body: terms.body, logId });
  }
  return out;
}

function writeOne(conn: Connection, write: DocumentWrite, info: EmbeddingInfo | undefined, late: LateRows): WriteResult {
  const { document: doc, chunks } = write;
  const now = new Date().toISOString();
  const collection = write.file ? write.file.collection : (doc.collection ?? null);
  const source = write.file ? write.file.record.path : (doc.source ?? null);
  const replacedIds = new Set<string>();
  let kept: { id: string; created_at: string } | undefined;
  if (write.upsertByKey && doc.key) {
    kept = conn.statement("SELECT id, created_at FROM documents WHERE key = ?").get(doc.key) as typeof kept;
    if (kept) replacedIds.add(kept.id);
  }
  if (write.file) {
    const old = conn
      .statement(
        `SELECT doc_id FROM files WHERE collection = ? AND path = ? UNION SELECT id FROM documents WHERE collection = ? AND source = ?`,
      )
      .pluck()
      .all(collection, source, collection, source) as string[];
    for (const id of old) replacedIds.add(id);
  }
  // The replaced document may be one written earlier in this call: its late rows first.
  if (replacedIds.size > 0) late.flush();
  // Vectors of replaced chunks whose embedding input did not change carry over.
  const reusable = new Map<string, Buffer>();
  if (info && replacedIds.size > 0 && chunks.some((c) => c.inputHash)) {
    const rows = conn
      .statement(
        `SELECT c.input_hash AS hash, v.embedding AS embedding FROM chunks c JOIN chunks_vec v ON v.rowid = c.seq
         WHERE c.doc_id IN (SELECT value FROM json_each(?)) AND c.embedded = 1 AND c.input_hash IS NOT NULL`,
      )
      .all(JSON.stringify([...replacedIds])) as { hash: string; embedding: Buffer }[];
    for (const r of rows) reusable.set(r.hash, r.embedding);
  }
  for (const id of replacedIds) deleteOne(conn, id);

  const docId = kept?.id ?? doc.id;
  conn
    .statement(
      `INSERT INTO documents (id, key, source, title, content, content_hash, metadata, collection, created_at, updated_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    )
    .run(
      docId,
      doc.key ?? null,
      source,
      doc.title ?? null,
      doc.content,
      doc.contentHash,
      JSON.stringify(doc.metadata),
      collection,
      kept?.created_at ?? doc.createdAt ?? now,
      doc.updatedAt ?? now,
    );
  // Terms analysed beforehand (core does it outside the transaction) or, failing that, here.
  let titleTerms: string | undefined;
  const termsOf = (chunk: (typeof chunks)[number]): IndexTerms => {
    if (chunk.terms?.version === ANALYZER_VERSION) return chunk.terms;
    titleTerms ??= doc.title ? analyzeForIndex(doc.title) : "";
    return indexTerms(doc.title, chunk, chunk.text, titleTerms);
  };
  const insertChunk = conn.statement(
    `INSERT INTO chunks (id, doc_id, idx, text, start, end, heading, line_start, line_end, input_hash, embedded,
                         language, symbol, symbol_kind, symbols, code_fallback, doc, locator)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  let reused = 0;
  for (const chunk of chunks) {
    let vector: Buffer | undefined;
    if (chunk.vector) {
      if (!info)
        throw new StoreError("INVALID_REQUEST", "vectors given before an embedding model was recorded: call setEmbeddingInfo first");
      checkVector(chunk.vector, info.dimensions, `chunk ${chunk.id}`);
      vector = toVectorBlob(chunk.vector);
    } else if (chunk.inputHash && reusable.has(chunk.inputHash)) {
      vector = reusable.get(chunk.inputHash);
      reused++;
    }
    const result = insertChunk.run(
      chunk.id,
      docId,
      chunk.idx,
      chunk.text,
      chunk.start,
      chunk.end,
      chunk.heading ?? null,
      chunk.lineStart ?? null,
      chunk.lineEnd ?? null,
      chunk.inputHash ?? null,
      vector ? 1 : 0,
      chunk.language ?? null,
      chunk.symbol ?? null,
      chunk.symbolKind ?? null,
      chunk.symbols && chunk.symbols.length > 0 ? JSON.stringify(chunk.symbols) : null,
      chunk.codeFallback ?? null,
      chunk.doc ?? null,
      chunk.locator ? JSON.stringify(chunk.locator) : null,
    );
    const seq = Number(result.lastInsertRowid);
    late.add(seq, termsOf(chunk), vector);
  }
  if (write.file) {
    const f = write.file.record;
    conn
      .statement(
        `INSERT INTO files (collection, path, size, mtime, content_hash, doc_id, chunking, imported_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT(collection, path) DO UPDATE SET size = excluded.size, mtime = excluded.mtime,
           content_hash = excluded.content_hash, doc_id = excluded.doc_id, chunking = excluded.chunking,
           imported_at = excluded.imported_at`,
      )
      .run(collection, f.path, f.size, f.mtime, f.contentHash, docId, f.chunking, now);
  }
  addReusedVectors(conn.db, reused);
  return { docId, replaced: replacedIds.size > 0, reusedVectors: reused };
}

/**
 * Removes one document with its chunks, vectors, keyword rows and file rows; -1 when absent.
 * Inside the caller's write transaction.
 */
export function deleteOne(conn: Connection, id: string): number {
  if (conn.statement("SELECT 1 FROM documents WHERE id = ?").get(id) === undefined) return -1;
  const seqs = conn.statement("SELECT seq FROM chunks WHERE doc_id = ?").pluck().all(id) as number[];
  const vectors = hasVectorTable(conn);
  for (const seq of seqs) {
    conn.statement("DELETE FROM chunks_fts WHERE rowid = ?").run(seq);
    if (vectors) conn.statement("DELETE FROM chunks_vec WHERE rowid = ?").run(BigInt(seq));
  }
  conn.statement("DELETE FROM chunks WHERE doc_id = ?").run(id);
  conn.statement("DELETE FROM files WHERE doc_id = ?").run(id);
  conn.statement("DELETE FROM documents WHERE id = ?").run(id);
  return seqs.length;
}

/** Deletes documents, DELETE_BATCH per transaction. */
export async function deleteDocuments(conn: Connection, ids: string[]): Promise<RemovedCounts> {
  const removed = { documents: 0, chunks: 0 };
  for (let i = 0; i < ids.length; i += DELETE_BATCH) {
    const batch = ids.slice(i, i + DELETE_BATCH);
    await conn.write(() => {
      for (const id of batch) {
        const chunks = deleteOne(conn, id);
        if (chunks < 0) continue;
        removed.documents++;
        removed.chunks += chunks;
      }
    });
  }
  return removed;
}
