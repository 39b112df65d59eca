// Reading documents and chunks: by id or key, listings, chunk hits, exports with vectors, and
// the chunk ids of search hits (which carry chunk seqs).
import type { ChunkHit, DocumentSummary, ExportedChunk, Filter, KeywordHit, StoredChunk, StoredDocument, VectorHit } from "@docdb/store";
import type { Connection } from "./connection.js";
import { filterToSql } from "./filter.js";
import { hasVectorTable } from "./meta.js";
import {
  DOCUMENTS,
  HIT_COLUMNS,
  HIT_ID,
  HIT_SEQ,
  KEYWORD_HIT_COLUMNS,
  type Row,
  toChunk,
  toChunkHit,
  toDocument,
  toDocumentSummary,
  toExportedChunk,
  toHit,
} from "./rows.js";

export function getDocument(conn: Connection, id: string): StoredDocument | undefined {
  const row = conn.statement("SELECT * FROM documents WHERE id = ?").get(id) as Row | undefined;
  return row ? toDocument(row) : undefined;
}

export function getDocumentByKey(conn: Connection, key: string): StoredDocument | undefined {
  const row = conn.statement("SELECT * FROM documents WHERE key = ?").get(key) as Row | undefined;
  return row ? toDocument(row) : undefined;
}

/**
 * A page of documents: the page's ids chosen first (the filter and order as the planner likes,
 * e.g. by collection), then their fields from documents_fields, so a listed book's content is
 * never read (its length is kept in that index).
 */
export function listDocuments(conn: Connection, options: { limit: number; offset?: number; filter?: Filter }): DocumentSummary[] {
  const { sql, params } = filterToSql(options.filter, "document");
  const rows = conn
    .statement(
      `SELECT d.id, d.key, d.source, d.title, d.content_hash, d.metadata, d.collection, d.created_at, d.updated_at,
              length(d.content) AS length, (SELECT count(*) FROM chunks c WHERE c.doc_id = d.id) AS chunk_count
       FROM (SELECT d.id FROM documents d WHERE ${sql} ORDER BY d.created_at, d.id LIMIT ? OFFSET ?) AS page
       JOIN ${DOCUMENTS} ON d.id = page.id ORDER BY d.created_at, d.id`,
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
       FROM chunks c JOIN ${DOCUMENTS} ON d.id = c.doc_id WHERE c.id IN (SELECT value FROM json_each(?))`,
    )
    .all(JSON.stringify(chunkIds)) as Row[];
  const byId = new Map(rows.map((r) => [r.id as string, toChunkHit(r)]));
  return chunkIds.flatMap((id) => {
    const hit = byId.get(id);
    return hit ? [hit] : [];
  });
}

/** Chunks known to be there and embedded while the database does not change (see `known`). */
interface Known {
  /** seq → chunk id. */
  ids: Map<number, string>;
  /** seq → its row with its document's fields (HIT_COLUMNS, as values), as a find reads it. */
  rows: Map<number, unknown[]>;
}

/**
 * A search's few hits go into a statement as parameters, `IN (?, ?, …)` (one statement text per
 * count, prepared once); more than this as one JSON array (json_each), which costs a little more.
 */
const MAX_LISTED_SEQS = 32;
const listedSql = new Map<string, string[]>();
/** The rows of hits, and the ids of hits, whose chunk is there with its vector (the list of seqs follows). */
const HIT_ROWS = `SELECT ${HIT_COLUMNS} FROM chunks c JOIN ${DOCUMENTS} ON d.id = c.doc_id WHERE c.embedded = 1 AND c.seq IN `;
const HIT_IDS = "SELECT seq, id FROM chunks WHERE embedded = 1 AND seq IN ";

/** `head` followed by the list of `count` seqs (the same string object per head and count, so the statement cache finds it at once). */
function bySeqs(count: number, head: string): string {
  if (count > MAX_LISTED_SEQS) return `${head}(SELECT value FROM json_each(?))`;
  let texts = listedSql.get(head);
  if (!texts) {
    texts = [];
    listedSql.set(head, texts);
  }
  texts[count] ??= `${head}(${Array(count).fill("?").join(", ")})`;
  return texts[count];
}

function seqParams(seqs: number[]): unknown[] {
  return seqs.length > MAX_LISTED_SEQS ? [JSON.stringify(seqs)] : seqs;
}

/**
 * Known chunks kept at most: past this the memory starts again. Rows kept this long survive
 * young-generation collections (each copies the rows read since the last, ~4 MB every few hundred
 * finds at 100k), but a bound of 256 read 3–4% more at 10k, where hits repeat across queries.
 */
const MAX_KNOWN_IDS = 65_536;
const MAX_KNOWN_ROWS = 4096;

/**
 * What the vector path learnt about chunks since the database last changed: which are there
 * with their vector (and their ids), and the rows read for hits. While the change token does not
 * move nothing was written by anyone, so a chunk seen alive is still alive, and its row the
 * same; any write, here or in another process, forgets it all (Connection.kept). Rows, not
 * objects, are kept: each caller gets objects of its own.
 */
function known(conn: Connection): Known {
  return conn.kept("read.known", () => ({ ids: new Map(), rows: new Map() }));
}

/**
 * Reads (into `known`) the rows of the hits not read yet, with their document's fields; a row read
 * also shows that its chunk is there with its vector, so its id is kept as well. Rows come as
 * arrays of values (no object per row from the driver), only the columns a hit shows.
 */
function readRows(conn: Connection, hits: { seq: number }[]): Known {
  const found = known(conn);
  const { ids, rows } = found;
  let missing = hits.filter((h) => !rows.has(h.seq));
  if (missing.length === 0) return found;
  // Past the bound the kept rows start again, and every hit's row is read (none is lost).
  if (rows.size + missing.length > MAX_KNOWN_ROWS) {
    rows.clear();
    missing = hits;
  }
  if (ids.size + missing.length > MAX_KNOWN_IDS) ids.clear();
  const seqs = missing.map((h) => h.seq);
  const read = conn
    .statement(bySeqs(seqs.length, HIT_ROWS))
    .raw()
    .all(...seqParams(seqs)) as unknown[][];
  for (const values of read) {
    rows.set(values[HIT_SEQ] as number, values);
    ids.set(values[HIT_SEQ] as number, values[HIT_ID] as string);
  }
  return found;
}

/**
 * The hits whose chunk is there with its vector, in order (their ids kept for `vectorHits`). The
 * rows of the first `rowsOf` are read in the same pass (one statement both checks and reads them:
 * a find reads those next), the others' ids alone.
 */
export function embeddedHits<T extends { seq: number }>(conn: Connection, hits: T[], rowsOf = 0): T[] {
  if (hits.length === 0) return hits;
  const { ids } = rowsOf > 0 ? readRows(conn, hits.slice(0, rowsOf)) : known(conn);
  idsOfMissing(conn, ids, hits);
  return hits.filter((hit) => ids.has(hit.seq));
}

/** Reads (into `ids`) the ids of the hits not known yet; those not there with a vector stay unknown. */
function idsOfMissing(conn: Connection, ids: Map<number, string>, hits: { seq: number }[]): void {
  let missing = hits.filter((h) => !ids.has(h.seq));
  if (missing.length === 0) return;
  if (ids.size + missing.length > MAX_KNOWN_IDS) {
    ids.clear();
    missing = hits;
  }
  const seqs = missing.map((h) => h.seq);
  const read = conn
    .statement(bySeqs(seqs.length, HIT_IDS))
    .raw()
    .all(...seqParams(seqs)) as [number, string][];
  for (const [seq, id] of read) ids.set(seq, id);
}

/**
 * Search hits as the store returns them, in order: those whose chunk is there with its vector,
 * each with its chunk's id, and the first `reads` of them with their chunk read (as `chunkHits`
 * returns it). Hits already checked by `embeddedHits` are not read again.
 */
export function vectorHits(conn: Connection, hits: { seq: number; distance: number }[], reads: number): VectorHit[] {
  if (hits.length === 0) return [];
  const { ids, rows } = known(conn);
  idsOfMissing(conn, ids, hits);
  const alive: { seq: number; distance: number; chunkId: string }[] = [];
  let unread = false;
  for (const { seq, distance } of hits) {
    const chunkId = ids.get(seq);
    if (chunkId === undefined) continue;
    if (alive.length < reads && !rows.has(seq)) unread = true;
    alive.push({ seq, distance, chunkId });
  }
  // A deleted hit moved later ones up into the first `reads`: their rows are read now.
  const read = unread ? readRows(conn, alive.slice(0, reads)).rows : rows;
  return alive.map(({ seq, distance, chunkId }, i) => {
    const values = i < reads ? read.get(seq) : undefined;
    return values ? { chunkId, distance, chunk: toHit(values) } : { chunkId, distance };
  });
}

/** How many of a search's first `count` hits the caller reads the chunks of (`withChunks`: all, none or a number). */
export function chunkReads(withChunks: boolean | number | undefined, count: number): number {
  return withChunks === true ? count : Math.min(count, Number(withChunks ?? 0));
}

/** A keyword hit's row (any chunk, embedded or not), and a chunk's id, by seq (the list of seqs follows). */
const KEYWORD_ROWS = `SELECT ${KEYWORD_HIT_COLUMNS} FROM chunks c JOIN ${DOCUMENTS} ON d.id = c.doc_id WHERE c.seq IN `;
const CHUNK_IDS = "SELECT seq, id FROM chunks WHERE seq IN ";

/**
 * Keyword hits as the store returns them, in order, each with its chunk's id (chunks deleted
 * meanwhile left out), the first `reads` with their chunk read by seq in the same statement (as
 * `chunkHits` returns it, without a second walk through the chunks' id index); the others' ids alone.
 */
export function keywordHits(conn: Connection, hits: { seq: number; score: number }[], reads: number): KeywordHit[] {
  if (hits.length === 0) return [];
  const rows = new Map<number, unknown[]>();
  const ids = new Map<number, string>();
  const first = hits.slice(0, reads).map((h) => h.seq);
  if (first.length > 0) {
    for (const values of conn
      .statement(bySeqs(first.length, KEYWORD_ROWS))
      .raw()
      .all(...seqParams(first)) as unknown[][]) {
      rows.set(values[HIT_SEQ] as number, values);
      ids.set(values[HIT_SEQ] as number, values[HIT_ID] as string);
    }
  }
  const rest = hits.slice(first.length).map((h) => h.seq);
  if (rest.length > 0) {
    for (const [seq, id] of conn
      .statement(bySeqs(rest.length, CHUNK_IDS))
      .raw()
      .all(...seqParams(rest)) as [number, string][])
      ids.set(seq, id);
  }
  return hits.flatMap(({ seq, score }) => {
    const chunkId = ids.get(seq);
    if (chunkId === undefined) return [];
    const values = rows.get(seq);
    return [values ? { chunkId, score, chunk: toHit(values) } : { chunkId, score }];
  });
}
