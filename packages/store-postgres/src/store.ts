import type { KeywordQuery } from "@docdb/analyzer";
import {
  type ChunkHit,
  type CodeSymbol,
  type CollectionCounts,
  type CollectionPatch,
  type CollectionRecord,
  type DocumentSummary,
  type DocumentWrite,
  type EmbeddingInfo,
  type EngineCapabilities,
  type ExportedChunk,
  type KeywordHit,
  type PendingChunk,
  type RemovedCounts,
  type SearchOptions,
  type SqlQueryOptions,
  type SqlQueryResult,
  type Store,
  type StoreCounts,
  type StoredChunk,
  type StoredDocument,
  type StoredFile,
  StoreError,
  type VectorHit,
  type VectorSearchOptions,
  type WriteResult,
} from "@docdb/store";
import { pgCode, type Queryable } from "./db.js";
import { atLeast, type PostgresEngine, quoteIdent, type ServerInfo } from "./engine.js";
import { filterToSql, Params } from "./filter.js";
import { type ChunkPostings, chunkPostings, keywordSearchSql } from "./keyword.js";
import { runReadOnlySql } from "./sql-query.js";
import { annSearchSql, exactSearchSql, type VectorSql } from "./vector.js";

/** Documents removed per transaction by clearCollection/deleteCollection. */
export const DELETE_BATCH = 200;
/** HNSW indexes `vector` columns up to this many dimensions; larger ones are always scanned exactly. */
/** Candidates pgvector's HNSW search keeps (`hnsw.ef_search`) for a top-k up to this many. */
const HNSW_EF_SEARCH = 128;
const HNSW_MAX_DIMENSIONS = 2000;
const SETTING_PREFIX = "setting:";
/** The meta row holding StoreCounts.reusedVectors (the same key as SQLite's). */
const REUSED_VECTORS_KEY = "reused_vectors";

type Row = Record<string, unknown>;

function now(): string {
  return new Date().toISOString();
}

function vectorText(vector: Float32Array, dimensions: number | undefined): string {
  if (!(vector instanceof Float32Array)) throw new StoreError("INVALID_REQUEST", "a vector must be a Float32Array");
  if (dimensions !== undefined && vector.length !== dimensions) {
    throw new StoreError("INVALID_REQUEST", `vector has ${vector.length} dimensions; this database stores ${dimensions}`);
  }
  let out = "[";
  for (let i = 0; i < vector.length; i++) {
    const x = vector[i] as number;
    if (!Number.isFinite(x)) throw new StoreError("INVALID_REQUEST", "a vector holds a NaN or infinite value");
    out += (i === 0 ? "" : ",") + x;
  }
  return `${out}]`;
}

/** Characters as the contract counts them (code points, like SQLite's length()). */
function codePoints(text: string): number {
  let n = 0;
  for (const _ of text) n++;
  return n;
}

function toDocument(r: Row): StoredDocument {
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

function toChunk(r: Row): StoredChunk {
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

function toCollection(r: Row): CollectionRecord {
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

function toFile(r: Row): StoredFile {
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

const DOCUMENT_COLUMNS = "d.id, d.key, d.source, d.title, d.content, d.content_hash, d.metadata, d.collection, d.created_at, d.updated_at";
const CHUNK_COLUMNS = `c.id, c.doc_id, c.idx, c.text, c.start, c."end", c.heading, c.line_start, c.line_end, c.language, c.symbol, c.symbol_kind, c.symbols, c.code_fallback, c.doc, c.embedded`;
/** A ChunkHit's columns, over `chunks c` and `documents d`. */
const CHUNK_HIT_COLUMNS = `${CHUNK_COLUMNS}, d.title, d.source, d.collection, d.metadata, d.updated_at AS doc_updated_at`;

function toChunkHit(r: Row): ChunkHit {
  return {
    ...toChunk(r),
    title: (r.title as string | null) ?? null,
    source: (r.source as string | null) ?? null,
    collection: (r.collection as string | null) ?? null,
    metadata: r.metadata as Record<string, unknown>,
    docUpdatedAt: r.doc_updated_at as string,
  };
}

/** A transaction's change to the keyword statistics. */
interface KeywordDelta {
  chunks: number;
  terms: number;
}

/** What a vector search needs to know about the database: its model and whether its vector table exists. */
interface VectorState {
  info: EmbeddingInfo | undefined;
  table: boolean;
}

/** A statement failed because the vector table changed under a cached VectorState (another process re-embedded). */
function staleVectorTable(error: unknown): boolean {
  const cause = StoreError.isInstance(error) ? error.cause : error;
  const { code } = pgCode(cause);
  if (code === "42P01") return true;
  const message = (cause as { message?: unknown } | null)?.message;
  return code === "22000" && typeof message === "string" && message.includes("different vector dimensions");
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

/** One docdb database: one PostgreSQL schema. */
export class PostgresStore implements Store {
  readonly name: string;
  readonly location: string;
  readonly capabilities: EngineCapabilities;
  private readonly s: string;
  private readonly vectorType: string;
  private readonly cosine: string;
  private readonly vectorSql: VectorSql;
  /**
   * The model and vector table as last read (by getEmbeddingInfo, which core calls before every
   * vector search, or by a search itself). A search trusts it and reads it again when it turns
   * out wrong: no vectors recorded, a query of another dimension, or the table gone or of another
   * dimension (another process re-embedded). `generation` keeps a slow read from overwriting a
   * newer one.
   */
  private vectorState: VectorState | undefined;
  private vectorGeneration = 0;
  private closed = false;

  constructor(
    private readonly engine: PostgresEngine,
    name: string,
    readonly schema: string,
    private readonly info: ServerInfo,
    private readonly onClose: () => void,
  ) {
    this.name = name;
    this.s = quoteIdent(schema);
    this.location = `${engine.location} (schema ${schema})`;
    this.capabilities = engine.capabilities;
    const vs = quoteIdent(info.vectorSchema);
    this.vectorType = `${vs}.vector`;
    this.cosine = `OPERATOR(${vs}.<=>)`;
    this.vectorSql = { schema: this.s, vectorType: this.vectorType, cosine: this.cosine };
  }

  private get db() {
    if (this.closed) throw new StoreError("INVALID_REQUEST", `database ${this.name} is closed`);
    return this.engine.db;
  }

  private read<R extends Row = Row>(sql: string, params: unknown[] = []): Promise<R[]> {
    return this.db.read<R>(sql, params);
  }

  /**
   * Marks a change (changeToken) and applies the transaction's change to the keyword statistics
   * (chunk count and total index terms, which BM25 needs on every query). Called last in a
   * transaction, so the row it locks is held only briefly.
   */
  private async bump(client: Queryable, delta: KeywordDelta = { chunks: 0, terms: 0 }): Promise<void> {
    await client.query(`UPDATE ${this.s}.counters SET version = version + 1, chunks = chunks + $1, terms = terms + $2 WHERE id = 1`, [
      delta.chunks,
      delta.terms,
    ]);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.onClose();
  }

  // --- embedding info and settings -------------------------------------------------------

  private async meta(client: Queryable | undefined, keys: string[]): Promise<Map<string, string>> {
    const sql = `SELECT key, value FROM ${this.s}.meta WHERE key = ANY($1::text[])`;
    const rows = client
      ? (await client.query<{ key: string; value: string }>(sql, [keys])).rows
      : await this.read<{ key: string; value: string }>(sql, [keys]);
    return new Map(rows.map((r) => [r.key, r.value]));
  }

  private static embedding(meta: Map<string, string>): EmbeddingInfo | undefined {
    const provider = meta.get("embedding_provider");
    const model = meta.get("embedding_model");
    const dimensions = meta.get("embedding_dimensions");
    if (provider === undefined || model === undefined || dimensions === undefined) return undefined;
    return { provider, model, dimensions: Number(dimensions) };
  }

  private static readonly EMBEDDING_KEYS = ["embedding_provider", "embedding_model", "embedding_dimensions"];

  async getEmbeddingInfo(): Promise<EmbeddingInfo | undefined> {
    return (await this.loadVectorState()).info;
  }

  /** Reads the model and whether the vector table exists (one statement), and keeps them for vector searches. */
  private async loadVectorState(): Promise<VectorState> {
    const generation = ++this.vectorGeneration;
    const rows = await this.read<{ key: string; value: string }>(
      `SELECT key, value FROM ${this.s}.meta WHERE key = ANY($1::text[])
       UNION ALL SELECT '', CASE WHEN to_regclass($2) IS NULL THEN '' ELSE 't' END`,
      [PostgresStore.EMBEDDING_KEYS, `${this.s}.chunk_vectors`],
    );
    const meta = new Map(rows.map((r) => [r.key, r.value]));
    const state: VectorState = { info: PostgresStore.embedding(meta), table: meta.get("") === "t" };
    if (generation === this.vectorGeneration) this.vectorState = state;
    return state;
  }

  private async setMeta(client: Queryable, key: string, value: string): Promise<void> {
    await client.query(`INSERT INTO ${this.s}.meta (key, value) VALUES ($1, $2) ON CONFLICT (key) DO UPDATE SET value = excluded.value`, [
      key,
      value,
    ]);
  }

  async setEmbeddingInfo(info: EmbeddingInfo, options: { replace?: boolean } = {}): Promise<void> {
    const dims = info.dimensions;
    if (!Number.isInteger(dims) || dims < 1 || dims > this.capabilities.maxDimensions) {
      throw new StoreError("INVALID_REQUEST", `embedding dimensions must be an integer from 1 to ${this.capabilities.maxDimensions}`);
    }
    await this.db.transaction(async (client) => {
      await client.query(`LOCK TABLE ${this.s}.meta IN SHARE ROW EXCLUSIVE MODE`);
      const current = PostgresStore.embedding(await this.meta(client, PostgresStore.EMBEDDING_KEYS));
      if (current && !options.replace && current.dimensions !== dims) {
        throw new StoreError(
          "INVALID_REQUEST",
          `database ${this.name} holds ${current.dimensions}-dimensional vectors (${current.provider}/${current.model}); re-embed to change to ${dims}`,
        );
      }
      if (!current || options.replace) {
        await client.query(`DROP TABLE IF EXISTS ${this.s}.chunk_vectors`);
        await client.query(`UPDATE ${this.s}.chunks SET embedded = FALSE WHERE embedded`);
        await client.query(
          `CREATE TABLE ${this.s}.chunk_vectors (seq BIGINT PRIMARY KEY REFERENCES ${this.s}.chunks (seq) ON DELETE CASCADE, embedding ${this.vectorType}(${dims}) NOT NULL)`,
        );
        if (dims <= HNSW_MAX_DIMENSIONS) {
          await client.query(
            `CREATE INDEX chunk_vectors_hnsw ON ${this.s}.chunk_vectors USING hnsw (embedding ${quoteIdent(this.info.vectorSchema)}.vector_cosine_ops)`,
          );
        }
      }
      await this.setMeta(client, "embedding_provider", info.provider);
      await this.setMeta(client, "embedding_model", info.model);
      await this.setMeta(client, "embedding_dimensions", String(dims));
      await this.bump(client);
    });
    this.vectorGeneration++;
    this.vectorState = undefined;
  }

  async getSetting(key: string): Promise<string | undefined> {
    const rows = await this.read<{ value: string }>(`SELECT value FROM ${this.s}.meta WHERE key = $1`, [SETTING_PREFIX + key]);
    return rows[0]?.value;
  }

  async setSetting(key: string, value: string | undefined): Promise<void> {
    await this.db.transaction(async (client) => {
      if (value === undefined) await client.query(`DELETE FROM ${this.s}.meta WHERE key = $1`, [SETTING_PREFIX + key]);
      else await this.setMeta(client, SETTING_PREFIX + key, value);
      await this.bump(client);
    });
  }

  // --- writes ----------------------------------------------------------------------------

  private async dimensions(client: Queryable): Promise<number | undefined> {
    return PostgresStore.embedding(await this.meta(client, PostgresStore.EMBEDDING_KEYS))?.dimensions;
  }

  async writeDocuments(writes: DocumentWrite[]): Promise<WriteResult[]> {
    if (writes.length === 0) return [];
    for (const w of writes) {
      if (!w?.document || typeof w.document.id !== "string" || typeof w.document.content !== "string") {
        throw new StoreError("INVALID_REQUEST", "every write needs a document with an id and content");
      }
    }
    // Analysed once, outside the transaction (which may run again).
    const postings = writes.map((w) => w.chunks.map((c) => chunkPostings(w.document.title, c, c.text, c.terms)));
    return this.db.transaction(
      async (client) => {
        const dims = await this.dimensions(client);
        const delta: KeywordDelta = { chunks: 0, terms: 0 };
        const results: WriteResult[] = [];
        // In order; consecutive new documents (nothing to replace) go in together, a few
        // statements for the lot, while upserts and collection files are written one by one.
        for (let i = 0; i < writes.length; ) {
          let j = i;
          while (j < writes.length && isFresh(writes[j] as DocumentWrite)) j++;
          if (j > i) {
            results.push(...(await this.insertFresh(client, writes.slice(i, j), postings.slice(i, j), dims, delta)));
            i = j;
          } else {
            results.push(await this.writeOne(client, writes[i] as DocumentWrite, postings[i] ?? [], dims, delta));
            i++;
          }
        }
        const reused = results.reduce((sum, r) => sum + r.reusedVectors, 0);
        if (reused > 0) {
          // The running total StoreCounts.reusedVectors reports, in the same transaction.
          await client.query(
            `INSERT INTO ${this.s}.meta AS m (key, value) VALUES ($1, $2)
             ON CONFLICT (key) DO UPDATE SET value = (m.value::bigint + excluded.value::bigint)::text`,
            [REUSED_VECTORS_KEY, String(reused)],
          );
        }
        await this.bump(client, delta);
        return results;
      },
      { retryOn: (error) => error instanceof KeyRace },
    );
  }

  /** New documents (no upsert, no file): one INSERT for the documents, then their chunks together. */
  private async insertFresh(
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
        `INSERT INTO ${this.s}.documents (id, key, source, title, content, content_hash, content_length, metadata, collection, created_at, updated_at)
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
    const vectors = writes.map((w) => w.chunks.map((c) => (c.vector ? this.vectorOf(c.vector, dims) : null)));
    await this.insertChunks(
      client,
      writes.map((w, i) => ({ docId: w.document.id, chunks: w.chunks, postings: postings[i] ?? [], vectors: vectors[i] ?? [] })),
      delta,
    );
    return writes.map((w) => ({ docId: w.document.id, replaced: false, reusedVectors: 0 }));
  }

  private vectorOf(vector: Float32Array, dims: number | undefined): string {
    if (dims === undefined)
      throw new StoreError("INVALID_REQUEST", "a chunk has a vector but no embedding model is recorded (setEmbeddingInfo first)");
    return vectorText(vector, dims);
  }

  /** Chunks of several documents: one INSERT each for the chunks, their postings and their vectors. */
  private async insertChunks(
    client: Queryable,
    docs: { docId: string; chunks: DocumentWrite["chunks"]; postings: ChunkPostings[]; vectors: (string | null)[] }[],
    delta: KeywordDelta,
  ): Promise<void> {
    const chunks = docs.flatMap((d) => d.chunks.map((c, i) => ({ docId: d.docId, c, p: d.postings[i], v: d.vectors[i] ?? null })));
    if (chunks.length === 0) return;
    const s = this.s;
    const { rows } = await client.query<{ seq: string; id: string }>(
      `INSERT INTO ${s}.chunks (id, doc_id, idx, text, start, "end", heading, line_start, line_end, input_hash, embedded, kw_length,
                               language, symbol, symbol_kind, symbols, code_fallback, doc)
       SELECT x.id, x.doc_id, x.idx, x.text, x.start, x.e, x.heading, x.line_start, x.line_end, x.input_hash, x.embedded, x.kw_length,
              x.language, x.symbol, x.symbol_kind, x.symbols::jsonb, x.code_fallback, x.doc
       FROM unnest($1::text[], $2::text[], $3::int[], $4::text[], $5::int[], $6::int[], $7::text[], $8::int[], $9::int[], $10::text[], $11::bool[], $12::int[],
                   $13::text[], $14::text[], $15::text[], $16::text[], $17::text[], $18::text[])
         AS x(id, doc_id, idx, text, start, e, heading, line_start, line_end, input_hash, embedded, kw_length,
              language, symbol, symbol_kind, symbols, code_fallback, doc)
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
        `INSERT INTO ${s}.chunk_vectors (seq, embedding) SELECT x.seq, x.v::${this.vectorType} FROM unnest($1::bigint[], $2::text[]) AS x(seq, v)`,
        [vecSeqs, vecValues],
      );
    }
  }

  private async writeOne(
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
    const s = this.s;
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
      const removed = await this.deleteIn(client, [...replaced]);
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
      if (c.vector) return this.vectorOf(c.vector, dims);
      const reused = c.inputHash ? reusable.get(c.inputHash) : undefined;
      if (reused === undefined) return null;
      reusedVectors++;
      return reused;
    });
    await this.insertChunks(client, [{ docId: id, chunks: w.chunks, postings, vectors }], delta);

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

  async writeVectors(items: { chunkId: string; vector: Float32Array }[]): Promise<number> {
    if (items.length === 0) return 0;
    const byId = new Map<string, Float32Array>();
    for (const item of items) byId.set(item.chunkId, item.vector);
    return this.db.transaction(async (client) => {
      const dims = await this.dimensions(client);
      if (dims === undefined)
        throw new StoreError("INVALID_REQUEST", "no embedding model is recorded for this database (setEmbeddingInfo first)");
      const ids = [...byId.keys()];
      const values = ids.map((id) => vectorText(byId.get(id) as Float32Array, dims));
      const { rows } = await client.query<{ n: string }>(
        `WITH x AS (SELECT c.seq, x.v FROM unnest($1::text[], $2::text[]) AS x(id, v) JOIN ${this.s}.chunks c ON c.id = x.id),
           ins AS (INSERT INTO ${this.s}.chunk_vectors (seq, embedding) SELECT seq, v::${this.vectorType} FROM x
                   ON CONFLICT (seq) DO UPDATE SET embedding = excluded.embedding RETURNING seq),
           upd AS (UPDATE ${this.s}.chunks c SET embedded = TRUE FROM ins WHERE c.seq = ins.seq AND NOT c.embedded)
         SELECT count(*) AS n FROM ins`,
        [ids, values],
      );
      const n = Number(rows[0]?.n ?? 0);
      if (n > 0) await this.bump(client);
      return n;
    });
  }

  async pendingChunks(limit: number, afterChunkId?: string): Promise<PendingChunk[]> {
    const rows = await this.read(
      `SELECT c.id, c.text, c.heading, d.title FROM ${this.s}.chunks c JOIN ${this.s}.documents d ON d.id = c.doc_id
       WHERE NOT c.embedded AND ($1::text IS NULL OR c.id > $1::text) ORDER BY c.id LIMIT $2`,
      [afterChunkId ?? null, Math.max(0, Math.floor(limit))],
    );
    return rows.map((r) => ({
      chunkId: r.id as string,
      text: r.text as string,
      heading: (r.heading as string | null) ?? null,
      title: (r.title as string | null) ?? null,
    }));
  }

  async getDocument(id: string): Promise<StoredDocument | undefined> {
    const rows = await this.read(`SELECT ${DOCUMENT_COLUMNS} FROM ${this.s}.documents d WHERE d.id = $1`, [id]);
    return rows[0] ? toDocument(rows[0]) : undefined;
  }

  async getDocumentByKey(key: string): Promise<StoredDocument | undefined> {
    const rows = await this.read(`SELECT ${DOCUMENT_COLUMNS} FROM ${this.s}.documents d WHERE d.key = $1`, [key]);
    return rows[0] ? toDocument(rows[0]) : undefined;
  }

  async getChunks(docId: string): Promise<StoredChunk[]> {
    const rows = await this.read(`SELECT ${CHUNK_COLUMNS} FROM ${this.s}.chunks c WHERE c.doc_id = $1 ORDER BY c.idx`, [docId]);
    return rows.map(toChunk);
  }

  async exportChunks(docId: string): Promise<ExportedChunk[]> {
    const vectors = await this.hasVectorTable();
    const rows = await this.read(
      vectors
        ? `SELECT ${CHUNK_COLUMNS}, c.input_hash, v.embedding::text AS vector FROM ${this.s}.chunks c
           LEFT JOIN ${this.s}.chunk_vectors v ON v.seq = c.seq WHERE c.doc_id = $1 ORDER BY c.idx`
        : `SELECT ${CHUNK_COLUMNS}, c.input_hash, NULL AS vector FROM ${this.s}.chunks c WHERE c.doc_id = $1 ORDER BY c.idx`,
      [docId],
    );
    return rows.map((r) => {
      const chunk: ExportedChunk = { ...toChunk(r), inputHash: (r.input_hash as string | null) ?? null };
      // pgvector prints the shortest decimal that reads back as the same float4.
      const text = r.vector as string | null;
      if (text) chunk.vector = Float32Array.from(text.slice(1, -1).split(","), Number);
      return chunk;
    });
  }

  /** Deletes documents (cascading to chunks, postings, vectors and file rows) inside a transaction. */
  private async deleteIn(client: Queryable, ids: string[]): Promise<RemovedCounts & { delta: KeywordDelta }> {
    if (ids.length === 0) return { documents: 0, chunks: 0, delta: { chunks: 0, terms: 0 } };
    // Postings carry no foreign key (a per-row check made bulk inserts a third slower): every
    // chunk deletion goes through here and removes them first.
    await client.query(`DELETE FROM ${this.s}.postings p USING ${this.s}.chunks c WHERE p.seq = c.seq AND c.doc_id = ANY($1::text[])`, [
      ids,
    ]);
    const { rows } = await client.query<{ documents: string; chunks: string; terms: string | null }>(
      `WITH gone AS (DELETE FROM ${this.s}.documents WHERE id = ANY($1::text[]) RETURNING id)
       SELECT (SELECT count(*) FROM gone) AS documents, count(c.seq) AS chunks, sum(c.kw_length) AS terms
       FROM ${this.s}.chunks c WHERE c.doc_id IN (SELECT id FROM gone)`,
      [ids],
    );
    // The data-modifying CTE's effects are not visible to the statement itself, so the chunks
    // counted above are the ones the delete cascades to.
    const chunks = Number(rows[0]?.chunks ?? 0);
    return {
      documents: Number(rows[0]?.documents ?? 0),
      chunks,
      delta: { chunks: -chunks, terms: -Number(rows[0]?.terms ?? 0) },
    };
  }

  async deleteDocuments(ids: string[]): Promise<RemovedCounts> {
    const unique = [...new Set(ids)];
    const total = { documents: 0, chunks: 0 };
    // Bounded batches, each its own transaction, so a long delete never holds up other writers.
    for (let i = 0; i < unique.length; i += DELETE_BATCH) {
      const removed = await this.db.transaction(async (client) => {
        const { delta, ...removed } = await this.deleteIn(client, unique.slice(i, i + DELETE_BATCH));
        if (removed.documents > 0) await this.bump(client, delta);
        return removed;
      });
      total.documents += removed.documents;
      total.chunks += removed.chunks;
    }
    return total;
  }

  async listDocuments(options: { limit: number; offset?: number; filter?: import("@docdb/store").Filter }): Promise<DocumentSummary[]> {
    const params = new Params();
    const where = options.filter ? `WHERE ${filterToSql(options.filter, params, { chunks: "document", schema: this.s })}` : "";
    const limit = params.add(Math.max(0, Math.floor(options.limit)));
    const offset = params.add(Math.max(0, Math.floor(options.offset ?? 0)));
    const rows = await this.read(
      `SELECT d.id, d.key, d.source, d.title, d.content_hash, d.metadata, d.collection, d.created_at, d.updated_at, d.content_length,
         (SELECT count(*) FROM ${this.s}.chunks c WHERE c.doc_id = d.id) AS chunk_count
       FROM ${this.s}.documents d ${where} ORDER BY d.created_at, d.id LIMIT ${limit} OFFSET ${offset}`,
      params.values,
    );
    return rows.map((r) => {
      const { content: _content, ...rest } = toDocument({ ...r, content: "" });
      return { ...rest, chunkCount: Number(r.chunk_count), length: r.content_length as number };
    });
  }

  async counts(): Promise<StoreCounts> {
    const hasVectors = await this.hasVectorTable();
    const rows = await this.read(
      `SELECT (SELECT count(*) FROM ${this.s}.documents) AS documents,
              (SELECT count(*) FROM ${this.s}.chunks) AS chunks,
              (SELECT count(*) FROM ${this.s}.chunks WHERE embedded) AS embedded,
              (SELECT count(*) FROM ${this.s}.chunks c WHERE c.kw_length = 0 OR EXISTS (SELECT 1 FROM ${this.s}.postings p WHERE p.seq = c.seq)) AS keyword_rows,
              ${hasVectors ? `(SELECT count(*) FROM ${this.s}.chunk_vectors)` : "0"} AS vectors,
              (SELECT value FROM ${this.s}.meta WHERE key = '${REUSED_VECTORS_KEY}') AS reused_vectors`,
    );
    const r = rows[0] ?? {};
    const chunks = Number(r.chunks);
    const embedded = Number(r.embedded);
    return {
      documents: Number(r.documents),
      chunks,
      embedded,
      pending: chunks - embedded,
      keywordRows: Number(r.keyword_rows),
      vectors: Number(r.vectors),
      reusedVectors: Number(r.reused_vectors ?? 0),
    };
  }

  private async hasVectorTable(): Promise<boolean> {
    const rows = await this.read(`SELECT to_regclass($1) IS NOT NULL AS ok`, [`${this.s}.chunk_vectors`]);
    return rows[0]?.ok === true;
  }

  // --- search ----------------------------------------------------------------------------

  async keywordSearch(query: KeywordQuery, options: SearchOptions): Promise<KeywordHit[]> {
    const statement = keywordSearchSql(this.s, query, Math.floor(options.limit), options.filter);
    if (!statement) return [];
    const rows = await this.read<{ id: string; score: number }>(statement.sql, statement.params);
    return rows.map((r) => ({ chunkId: r.id, score: Number(r.score) }));
  }

  async vectorSearch(vector: Float32Array, options: VectorSearchOptions): Promise<VectorHit[]> {
    const limit = Math.floor(options.limit);
    if (limit <= 0) return [];
    let fresh = this.vectorState === undefined;
    let state = this.vectorState ?? (await this.loadVectorState());
    // What the cache cannot prove by an error: no vectors yet, or a query of another dimension.
    const suspect = (s: VectorState) => !s.info || !s.table || (vector instanceof Float32Array && vector.length !== s.info.dimensions);
    if (!fresh && suspect(state)) {
      state = await this.loadVectorState();
      fresh = true;
    }
    for (;;) {
      try {
        return await this.searchVectors(vector, state, limit, options);
      } catch (error) {
        // The table was re-created (or dropped) by another process since the state was read.
        if (fresh || !staleVectorTable(error)) throw error;
        state = await this.loadVectorState();
        fresh = true;
      }
    }
  }

  private async searchVectors(vector: Float32Array, state: VectorState, limit: number, options: VectorSearchOptions): Promise<VectorHit[]> {
    const { info } = state;
    if (!info || !state.table) return [];
    const text = vectorText(vector, info.dimensions);
    const columns = options.withChunks ? CHUNK_HIT_COLUMNS : undefined;
    const toHits = (rows: Row[]): VectorHit[] =>
      rows.map((r) => ({ chunkId: r.id as string, distance: Number(r.distance), ...(columns ? { chunk: toChunkHit(r) } : {}) }));
    const exact = async () => {
      const statement = exactSearchSql(this.vectorSql, text, { limit, filter: options.filter, columns });
      return toHits(await this.read(statement.sql, statement.params));
    };
    if (options.exact || info.dimensions > HNSW_MAX_DIMENSIONS) return exact();
    // ef_search 128 (pgvector's default is 40): at 100k × 384 40 found 0.86–0.93 of the exact
    // top 10 and 128 found 0.95–0.996 (BENCHMARKS.md, PostgreSQL).
    const statement = annSearchSql(this.vectorSql, text, {
      limit,
      filter: options.filter,
      efSearch: Math.min(1000, Math.max(HNSW_EF_SEARCH, limit)),
      iterative: atLeast(this.info.vectorVersion, [0, 8, 0]),
      columns,
    });
    const rows = await this.read(statement.sql, statement.params);
    // An approximate scan can come back short when few chunks pass the filter: scan exactly then.
    if (rows.length < limit) return exact();
    return toHits(rows);
  }

  async chunkHits(chunkIds: string[]): Promise<ChunkHit[]> {
    if (chunkIds.length === 0) return [];
    const rows = await this.read(
      `SELECT ${CHUNK_HIT_COLUMNS}
       FROM unnest($1::text[]) WITH ORDINALITY AS x(id, ord)
       JOIN ${this.s}.chunks c ON c.id = x.id JOIN ${this.s}.documents d ON d.id = c.doc_id ORDER BY x.ord`,
      [chunkIds],
    );
    return rows.map(toChunkHit);
  }

  // --- collections and files -------------------------------------------------------------

  async listCollections(): Promise<CollectionRecord[]> {
    return (await this.read(`SELECT * FROM ${this.s}.collections ORDER BY name`)).map(toCollection);
  }

  async getCollection(name: string): Promise<CollectionRecord | undefined> {
    const rows = await this.read(`SELECT * FROM ${this.s}.collections WHERE name = $1`, [name]);
    return rows[0] ? toCollection(rows[0]) : undefined;
  }

  async createCollection(input: { name: string; description: string; source: string; enabled: boolean }): Promise<CollectionRecord> {
    const time = now();
    return this.db.transaction(async (client) => {
      try {
        const { rows } = await client.query(
          `INSERT INTO ${this.s}.collections (name, description, source, enabled, settings, created_at, updated_at) VALUES ($1, $2, $3, $4, '{}', $5, $5) RETURNING *`,
          [input.name, input.description, input.source, input.enabled, time],
        );
        await this.bump(client);
        return toCollection(rows[0] as Row);
      } catch (error) {
        if (pgCode(error).code === "23505")
          throw new StoreError("CONFLICT", `a collection named ${JSON.stringify(input.name)} already exists`);
        throw error;
      }
    });
  }

  async updateCollection(name: string, patch: CollectionPatch): Promise<boolean> {
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
    return this.db.transaction(async (client) => {
      const result = await client.query(`UPDATE ${this.s}.collections SET ${sets.join(", ")} WHERE name = $1`, params.values);
      if (!result.rowCount) return false;
      await this.bump(client);
      return true;
    });
  }

  async clearCollection(name: string): Promise<RemovedCounts> {
    const total = { documents: 0, chunks: 0 };
    for (;;) {
      const done = await this.db.transaction(async (client) => {
        const { rows } = await client.query<{ id: string }>(
          `SELECT id FROM ${this.s}.documents WHERE collection = $1 ORDER BY id LIMIT ${DELETE_BATCH} FOR UPDATE SKIP LOCKED`,
          [name],
        );
        if (rows.length === 0) {
          const files = await client.query(`DELETE FROM ${this.s}.files WHERE collection = $1`, [name]);
          if (files.rowCount) await this.bump(client);
          return undefined;
        }
        const { delta, ...removed } = await this.deleteIn(
          client,
          rows.map((r) => r.id),
        );
        await this.bump(client, delta);
        return removed;
      });
      if (!done) return total;
      total.documents += done.documents;
      total.chunks += done.chunks;
    }
  }

  async deleteCollection(name: string): Promise<RemovedCounts> {
    const removed = await this.clearCollection(name);
    await this.db.transaction(async (client) => {
      const result = await client.query(`DELETE FROM ${this.s}.collections WHERE name = $1`, [name]);
      if (result.rowCount) await this.bump(client);
    });
    return removed;
  }

  async collectionCounts(name: string): Promise<CollectionCounts> {
    const rows = await this.read(
      `SELECT (SELECT count(*) FROM ${this.s}.documents WHERE collection = $1) AS documents,
              count(c.seq) AS chunks, count(c.seq) FILTER (WHERE c.embedded) AS embedded,
              (SELECT count(*) FROM ${this.s}.files WHERE collection = $1) AS files,
              count(DISTINCT c.doc_id) FILTER (WHERE c.code_fallback IS NOT NULL) AS fallback_documents,
              count(c.seq) FILTER (WHERE c.code_fallback IS NOT NULL) AS fallback_chunks
       FROM ${this.s}.documents d JOIN ${this.s}.chunks c ON c.doc_id = d.id WHERE d.collection = $1`,
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

  private fileSql(where: string): string {
    return `SELECT f.*, (SELECT count(*) FROM ${this.s}.chunks c WHERE c.doc_id = f.doc_id) AS chunk_count FROM ${this.s}.files f WHERE ${where} ORDER BY f.collection, f.path`;
  }

  async listFiles(collection: string): Promise<StoredFile[]> {
    return (await this.read(this.fileSql("f.collection = $1"), [collection])).map(toFile);
  }

  async filesOfDocuments(docIds: string[]): Promise<StoredFile[]> {
    if (docIds.length === 0) return [];
    return (await this.read(this.fileSql("f.doc_id = ANY($1::text[])"), [docIds])).map(toFile);
  }

  async touchFile(collection: string, path: string, size: number, mtime: number): Promise<void> {
    await this.db.transaction(async (client) => {
      const result = await client.query(`UPDATE ${this.s}.files SET size = $3, mtime = $4 WHERE collection = $1 AND path = $2`, [
        collection,
        path,
        size,
        mtime,
      ]);
      if (result.rowCount) await this.bump(client);
    });
  }

  async removeFile(collection: string, path: string): Promise<number> {
    return this.db.transaction(async (client) => {
      const { rows } = await client.query<{ doc_id: string }>(
        `DELETE FROM ${this.s}.files WHERE collection = $1 AND path = $2 RETURNING doc_id`,
        [collection, path],
      );
      if (rows.length === 0) return 0;
      const { delta, chunks } = await this.deleteIn(
        client,
        rows.map((r) => r.doc_id),
      );
      await this.bump(client, delta);
      return chunks;
    });
  }

  /**
   * One read-only query over the documented views (migrations/postgres/0005_views.sql), checked
   * by PostgreSQL's own parser and run in a READ ONLY transaction capped in rows and time (see
   * sql-guard.ts and sql-query.ts).
   */
  async querySql(sql: string, options: SqlQueryOptions): Promise<SqlQueryResult> {
    return runReadOnlySql({ db: this.db, schema: this.schema, role: this.engine.sqlRole }, sql, options);
  }

  async changeToken(): Promise<string> {
    const rows = await this.read<{ version: string; instance: string | null }>(
      `SELECT c.version::text AS version, (SELECT value FROM ${this.s}.meta WHERE key = 'instance') AS instance FROM ${this.s}.counters c WHERE c.id = 1`,
    );
    const r = rows[0];
    if (!r) throw new StoreError("INTERNAL", `database ${this.name} has no change counter`);
    return `${r.instance ?? ""}:${r.version}`;
  }
}
