// Writing documents: new ones in bulk, upserts by key and collection files one by one (the
// replaced document removed, its vectors reused for chunks computed from the same input).
import { assertStorableWrites, type DocumentWrite, StoreError, type WriteResult } from "@docdb/store";
import { type KeywordDelta, now, type StoreContext } from "./connection.js";
import { pgCode, type Queryable } from "./db.js";
import { deleteIn } from "./delete.js";
import { type ChunkPostings, chunkPostings } from "./keyword.js";
import { addReusedVectors, dimensions } from "./meta.js";
import { vectorText } from "./vector.js";

/** Characters as the contract counts them (code points, like SQLite's length()). */
function codePoints(text: string): number {
  let n = 0;
  for (const _ of text) n++;
  return n;
}

/** A conflict on the key of a document another writer inserted meanwhile: the write runs again. */
class KeyRace extends StoreError {}

/** A write with nothing to replace: no upsert by key, not a collection file. */
function isFresh(w: DocumentWrite): boolean {
  return !w.file && !(w.upsertByKey && w.document.key);
}

/** A unique violation on a document insert in the contract's words (other errors pass through). */
function documentConflict(error: unknown, upsert: boolean): unknown {
  const { code, constraint } = pgCode(error);
  if (code !== "23505") return error;
  // The server names the clashing value: "Key (key)=(notes/a) already exists."
  const detail = (error as { detail?: unknown }).detail;
  const which = typeof detail === "string" ? ` (${detail})` : "";
  if (constraint?.endsWith("_key_key")) {
    if (upsert) return new KeyRace("CONFLICT", `a document with that key was written meanwhile${which}`);
    return new StoreError("CONFLICT", `a document with that key already exists${which}`);
  }
  return new StoreError("CONFLICT", `a document with that id already exists${which}`);
}

export async function writeDocuments(ctx: StoreContext, writes: DocumentWrite[]): Promise<WriteResult[]> {
  if (writes.length === 0) return [];
  for (const w of writes) {
    if (!w?.document || typeof w.document.id !== "string" || typeof w.document.content !== "string") {
      throw new StoreError("INVALID_REQUEST", "every write needs a document with an id and content");
    }
  }
  // PostgreSQL's text and jsonb hold neither NUL nor lone surrogates: refused before the server sees them.
  assertStorableWrites(writes);
  // Analysed once, outside the transaction (which may run again).
  const postings = writes.map((w) => w.chunks.map((c) => chunkPostings(w.document.title, c, c.text, c.terms)));
  return ctx.db.transaction(
    async (client) => {
      const dims = await dimensions(ctx, client);
      const delta: KeywordDelta = { chunks: 0, terms: 0 };
      const results: WriteResult[] = [];
      // In order; consecutive new documents (nothing to replace) go in together, a few
      // statements for the lot, while upserts and collection files are written one by one.
      for (let i = 0; i < writes.length; ) {
        let j = i;
        while (j < writes.length && isFresh(writes[j] as DocumentWrite)) j++;
        if (j > i) {
          results.push(...(await insertFresh(ctx, client, writes.slice(i, j), postings.slice(i, j), dims, delta)));
          i = j;
        } else {
          results.push(await writeOne(ctx, client, writes[i] as DocumentWrite, postings[i] ?? [], dims, delta));
          i++;
        }
      }
      const reused = results.reduce((sum, r) => sum + r.reusedVectors, 0);
      // The running total StoreCounts.reusedVectors reports, in the same transaction.
      if (reused > 0) await addReusedVectors(ctx, client, reused);
      await ctx.bump(client, delta);
      return results;
    },
    { retryOn: (error) => error instanceof KeyRace },
  );
}

/** New documents (no upsert, no file): one INSERT for the documents, then their chunks together. */
async function insertFresh(
  ctx: StoreContext,
  client: Queryable,
  writes: DocumentWrite[],
  postings: ChunkPostings[][],
  dims: number | undefined,
  delta: KeywordDelta,
): Promise<WriteResult[]> {
  const time = now();
  const docs = writes.map((w) => w.document);
  try {
    await client.query(
      `INSERT INTO ${ctx.s}.documents (id, key, source, title, content, content_hash, content_length, metadata, collection, created_at, updated_at)
       SELECT x.id, x.key, x.source, x.title, x.content, x.content_hash, x.content_length, x.metadata::jsonb, x.collection, x.created_at, x.updated_at
       FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::int[], $8::text[], $9::text[], $10::text[], $11::text[])
         AS x(id, key, source, title, content, content_hash, content_length, metadata, collection, created_at, updated_at)`,
      [
        docs.map((d) => d.id),
        docs.map((d) => d.key ?? null),
        docs.map((d) => d.source ?? null),
        docs.map((d) => d.title ?? null),
        docs.map((d) => d.content),
        docs.map((d) => d.contentHash),
        docs.map((d) => codePoints(d.content)),
        docs.map((d) => JSON.stringify(d.metadata ?? {})),
        docs.map((d) => d.collection ?? null),
        docs.map((d) => d.createdAt ?? time),
        docs.map((d) => d.updatedAt ?? time),
      ],
    );
  } catch (error) {
    throw documentConflict(error, false);
  }
  const vectors = writes.map((w) => w.chunks.map((c) => (c.vector ? vectorOf(c.vector, dims) : null)));
  await insertChunks(
    ctx,
    client,
    writes.map((w, i) => ({ docId: w.document.id, chunks: w.chunks, postings: postings[i] ?? [], vectors: vectors[i] ?? [] })),
    delta,
  );
  return writes.map((w) => ({ docId: w.document.id, replaced: false, reusedVectors: 0 }));
}

function vectorOf(vector: Float32Array, dims: number | undefined): string {
  if (dims === undefined)
    throw new StoreError("INVALID_REQUEST", "a chunk has a vector but no embedding model is recorded (setEmbeddingInfo first)");
  return vectorText(vector, dims);
}

/** Chunks of several documents: one INSERT each for the chunks, their postings and their vectors. */
async function insertChunks(
  ctx: StoreContext,
  client: Queryable,
  docs: { docId: string; chunks: DocumentWrite["chunks"]; postings: ChunkPostings[]; vectors: (string | null)[] }[],
  delta: KeywordDelta,
): Promise<void> {
  const chunks = docs.flatMap((d) => d.chunks.map((c, i) => ({ docId: d.docId, c, p: d.postings[i], v: d.vectors[i] ?? null })));
  if (chunks.length === 0) return;
  const s = ctx.s;
  const { rows } = await client.query<{ seq: string; id: string }>(
    `INSERT INTO ${s}.chunks (id, doc_id, idx, text, start, "end", heading, line_start, line_end, input_hash, embedded, kw_length,
                             language, symbol, symbol_kind, symbols, code_fallback, doc, locator)
     SELECT x.id, x.doc_id, x.idx, x.text, x.start, x.e, x.heading, x.line_start, x.line_end, x.input_hash, x.embedded, x.kw_length,
            x.language, x.symbol, x.symbol_kind, x.symbols::jsonb, x.code_fallback, x.doc, x.locator::jsonb
     FROM unnest($1::text[], $2::text[], $3::int[], $4::text[], $5::int[], $6::int[], $7::text[], $8::int[], $9::int[], $10::text[], $11::bool[], $12::int[],
                 $13::text[], $14::text[], $15::text[], $16::text[], $17::text[], $18::text[], $19::text[])
       AS x(id, doc_id, idx, text, start, e, heading, line_start, line_end, input_hash, embedded, kw_length,
            language, symbol, symbol_kind, symbols, code_fallback, doc, locator)
     RETURNING seq, id`,
    [
      chunks.map((x) => x.c.id),
      chunks.map((x) => x.docId),
      chunks.map((x) => x.c.idx),
      chunks.map((x) => x.c.text),
      chunks.map((x) => x.c.start),
      chunks.map((x) => x.c.end),
      chunks.map((x) => x.c.heading ?? null),
      chunks.map((x) => x.c.lineStart ?? null),
      chunks.map((x) => x.c.lineEnd ?? null),
      chunks.map((x) => x.c.inputHash ?? null),
      chunks.map((x) => x.v !== null),
      chunks.map((x) => x.p?.length ?? 0),
      chunks.map((x) => x.c.language ?? null),
      chunks.map((x) => x.c.symbol ?? null),
      chunks.map((x) => x.c.symbolKind ?? null),
      chunks.map((x) => (x.c.symbols && x.c.symbols.length > 0 ? JSON.stringify(x.c.symbols) : null)),
      chunks.map((x) => x.c.codeFallback ?? null),
      chunks.map((x) => x.c.doc ?? null),
      chunks.map((x) => (x.c.locator ? JSON.stringify(x.c.locator) : null)),
    ],
  );
  const seqById = new Map(rows.map((r) => [r.id, r.seq]));
  delta.chunks += chunks.length;
  const terms: string[] = [];
  const seqs: string[] = [];
  const lengths: number[] = [];
  const titlePos: string[] = [];
  const bodyPos: string[] = [];
  const vecSeqs: string[] = [];
  const vecValues: string[] = [];
  for (const { c, p, v } of chunks) {
    const seq = seqById.get(c.id) as string;
    if (p) {
      delta.terms += p.length;
      for (const [term, pos] of p.terms) {
        terms.push(term);
        seqs.push(seq);
        lengths.push(p.length);
        titlePos.push(`{${pos.title.join(",")}}`);
        bodyPos.push(`{${pos.body.join(",")}}`);
      }
    }
    if (v !== null) {
      vecSeqs.push(seq);
      vecValues.push(v);
    }
  }
  if (terms.length > 0) {
    await client.query(
      `INSERT INTO ${s}.postings (term, seq, length, title_pos, body_pos)
       SELECT x.term, x.seq, x.length, x.t::int[], x.b::int[] FROM unnest($1::text[], $2::bigint[], $3::int[], $4::text[], $5::text[]) AS x(term, seq, length, t, b)`,
      [terms, seqs, lengths, titlePos, bodyPos],
    );
  }
  if (vecSeqs.length > 0) {
    await client.query(
      `INSERT INTO ${s}.chunk_vectors (seq, embedding) SELECT x.seq, x.v::${ctx.vectorType} FROM unnest($1::bigint[], $2::text[]) AS x(seq, v)`,
      [vecSeqs, vecValues],
    );
  }
}

async function writeOne(
  ctx: StoreContext,
  client: Queryable,
  w: DocumentWrite,
  postings: ChunkPostings[],
  dims: number | undefined,
  delta: KeywordDelta,
): Promise<WriteResult> {
  const doc = w.document;
  const key = doc.key ?? null;
  // A collection file's document belongs to that collection, under the file's path.
  const collection = w.file ? w.file.collection : (doc.collection ?? null);
  const source = w.file ? w.file.record.path : (doc.source ?? null);
  const s = ctx.s;
  const time = now();
  let id = doc.id;
  let createdAt = doc.createdAt ?? time;
  const replaced = new Set<string>();

  if (w.upsertByKey && key !== null) {
    const { rows } = await client.query<{ id: string; created_at: string }>(
      `SELECT id, created_at FROM ${s}.documents WHERE key = $1 FOR UPDATE`,
      [key],
    );
    const old = rows[0];
    if (old) {
      id = old.id;
      createdAt = old.created_at;
      replaced.add(old.id);
    }
  }
  if (w.file) {
    const { rows } = await client.query<{ id: string }>(
      `SELECT doc_id AS id FROM ${s}.files WHERE collection = $1 AND path = $2
       UNION SELECT id FROM ${s}.documents WHERE collection = $1 AND source = $2`,
      [collection, source],
    );
    for (const r of rows) replaced.add(r.id);
  }

  // Vectors of the replaced document's embedded chunks, by what they were computed from.
  const reusable = new Map<string, string>();
  if (replaced.size > 0 && dims !== undefined && w.chunks.some((c) => c.inputHash && !c.vector)) {
    const { rows } = await client.query<{ input_hash: string; embedding: string }>(
      `SELECT c.input_hash, v.embedding::text AS embedding FROM ${s}.chunks c JOIN ${s}.chunk_vectors v ON v.seq = c.seq
       WHERE c.doc_id = ANY($1::text[]) AND c.embedded AND c.input_hash IS NOT NULL`,
      [[...replaced]],
    );
    for (const r of rows) if (!reusable.has(r.input_hash)) reusable.set(r.input_hash, r.embedding);
  }
  if (replaced.size > 0) {
    const removed = await deleteIn(ctx, client, [...replaced]);
    delta.chunks += removed.delta.chunks;
    delta.terms += removed.delta.terms;
  }

  try {
    await client.query(
      `INSERT INTO ${s}.documents (id, key, source, title, content, content_hash, content_length, metadata, collection, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8::jsonb, $9, $10, $11)`,
      [
        id,
        key,
        source,
        doc.title ?? null,
        doc.content,
        doc.contentHash,
        codePoints(doc.content),
        JSON.stringify(doc.metadata ?? {}),
        collection,
        createdAt,
        doc.updatedAt ?? time,
      ],
    );
  } catch (error) {
    throw documentConflict(error, w.upsertByKey === true);
  }

  let reusedVectors = 0;
  const vectors = w.chunks.map((c) => {
    if (c.vector) return vectorOf(c.vector, dims);
    const reused = c.inputHash ? reusable.get(c.inputHash) : undefined;
    if (reused === undefined) return null;
    reusedVectors++;
    return reused;
  });
  await insertChunks(ctx, client, [{ docId: id, chunks: w.chunks, postings, vectors }], delta);

  if (w.file) {
    const { record } = w.file;
    try {
      await client.query(
        `INSERT INTO ${s}.files (collection, path, size, mtime, content_hash, doc_id, chunking, imported_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
         ON CONFLICT (collection, path) DO UPDATE SET size = excluded.size, mtime = excluded.mtime, content_hash = excluded.content_hash,
           doc_id = excluded.doc_id, chunking = excluded.chunking, imported_at = excluded.imported_at`,
        [collection, record.path, record.size, record.mtime, record.contentHash, id, record.chunking, time],
      );
    } catch (error) {
      if (pgCode(error).code === "23503") throw new StoreError("NOT_FOUND", `no collection named ${JSON.stringify(collection)}`);
      throw error;
    }
  }
  return { docId: id, replaced: replaced.size > 0, reusedVectors };
}
