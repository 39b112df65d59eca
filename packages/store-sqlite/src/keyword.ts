// Keyword search over the FTS5 index `chunks_fts` (BM25 with a word-order bonus), and the
// index's refill from chunk text when the analyser version changes.
import { ANALYZER_VERSION, indexTerms, type KeywordQuery } from "@docdb/analyzer";
import type { CodeSymbol, Filter, NewChunk } from "@docdb/store";
import type Database from "better-sqlite3";
import type { Connection } from "./connection.js";
import { filterToSql } from "./filter.js";
import { KeywordLog } from "./keyword-live/log.js";
import { metaValue, setMetaValue } from "./meta.js";
import { DOCUMENTS } from "./rows.js";

/** Chunks re-indexed per transaction when the keyword index is rebuilt. */
const REINDEX_BATCH = 2000;

/** What the keyword index reads of a chunk besides its text. */
type IndexedChunk = Pick<NewChunk, "heading" | "symbol" | "symbols" | "doc" | "language">;

/**
 * BM25 column weights, title : body. The title column holds the document title and the
 * chunk's heading path: words there describe the whole passage, so they count double (the
 * usual BM25F-style field boost; measured effect on the eval sets is small either way).
 */
const TITLE_WEIGHT = 2.0;
const BODY_WEIGHT = 1.0;
const BM25 = `bm25(chunks_fts, ${TITLE_WEIGHT}, ${BODY_WEIGHT})`;

/**
 * Share of the phrase (word-order) BM25 added to the bag-of-words BM25. 0.1 is the weight the
 * sequential dependence model (Metzler & Croft, SIGIR 2005) gives ordered windows next to 0.85
 * for single words; it is the literature's default, not fitted to our eval sets.
 */
export const PROXIMITY_WEIGHT = 0.1;

/** How many of the best bag-of-words candidates the proximity bonus may reorder. */
export const RERANK_DEPTH = 100;

function quote(text: string): string {
  return `"${text.replaceAll('"', '""')}"`;
}

/**
 * An FTS5 MATCH expression for term sequences: each one quoted (a phrase; one term is a word),
 * OR-ed. Quoting means no term can be read as FTS5 syntax (operators, columns, hyphens).
 */
export function toMatchExpression(sequences: string[][]): string {
  return sequences.map((s) => quote(s.join(" "))).join(" OR ");
}

/**
 * Keyword search over `chunks_fts`: BM25 of the OR-ed query terms (higher score is better),
 * then, when the query has phrases, the best candidates re-scored with a share of the phrase
 * BM25 so passages that keep the query's word order rise. Filters apply to the candidates.
 * Returns chunk seqs (the store maps them to chunk ids).
 */
export function keywordSearch(
  db: Database.Database,
  query: KeywordQuery,
  limit: number,
  filter?: Filter,
): { seq: number; score: number }[] {
  if (query.any.length === 0) return [];
  const { sql, params } = filterToSql(filter);
  const filtered = sql !== "1";
  const join = filtered ? `JOIN chunks c ON c.seq = f.rowid JOIN ${DOCUMENTS} ON d.id = c.doc_id` : "";
  const where = filtered ? `AND ${sql}` : "";
  const proximity = query.phrases.length > 0 ? toMatchExpression(query.phrases) : null;
  const depth = proximity ? Math.max(limit, RERANK_DEPTH) : limit;
  const rows = db
    .prepare(`SELECT f.rowid AS seq, ${BM25} AS rank FROM chunks_fts f ${join} WHERE chunks_fts MATCH ? ${where} ORDER BY rank LIMIT ?`)
    .all(toMatchExpression(query.any), ...params, depth) as { seq: number; rank: number }[];
  const hits = rows.map((r) => ({ seq: r.seq, score: -r.rank }));
  if (!proximity || hits.length < 2) return hits.slice(0, limit);

  // Phrases are rare, so scoring all their matches is cheaper than probing each candidate
  // (a rowid-restricted MATCH recomputes the phrase statistics on every probe).
  const phraseScores = new Map<number, number>();
  for (const r of db
    .prepare(`SELECT rowid AS seq, ${BM25} AS rank FROM chunks_fts WHERE chunks_fts MATCH ?`)
    .iterate(proximity) as Iterable<{
    seq: number;
    rank: number;
  }>) {
    phraseScores.set(r.seq, -r.rank);
  }
  return hits
    .map((h) => ({ seq: h.seq, score: h.score + PROXIMITY_WEIGHT * (phraseScores.get(h.seq) ?? 0) }))
    .sort((a, b) => b.score - a.score)
    .slice(0, limit);
}

/**
 * The keyword index is derived from the chunk text: when it was built by another analyzer
 * version (or never), it is refilled in batches. Interrupted, it starts over on the next open.
 * True when it was refilled (the keyword log is emptied: the index file beside the database,
 * written for the old analyser version, is built again).
 */
export async function refreshKeywordIndex(conn: Connection): Promise<boolean> {
  if (metaValue(conn, "analyzer_version") === String(ANALYZER_VERSION)) return false;
  const chunks = (conn.statement("SELECT count(*) AS n FROM chunks").get() as { n: number }).n;
  if (chunks === 0) {
    await conn.write(() => setMetaValue(conn, "analyzer_version", String(ANALYZER_VERSION)));
    return true;
  }
  await conn.write(() => {
    conn.db.exec("INSERT INTO chunks_fts (chunks_fts) VALUES ('delete-all')");
    new KeywordLog(conn).reset();
  });
  let after = 0;
  for (;;) {
    const rows = conn
      .statement(
        `SELECT c.seq, c.text, c.heading, c.symbol, c.symbols, c.doc, c.language, d.title FROM chunks c JOIN ${DOCUMENTS} ON d.id = c.doc_id
         WHERE c.seq > ? ORDER BY c.seq LIMIT ?`,
      )
      .all(after, REINDEX_BATCH) as ({ seq: number; text: string; title: string | null; symbols: string | null } & Omit<
      IndexedChunk,
      "symbols"
    >)[];
    if (rows.length === 0) break;
    // Analysed before the transaction, which then holds the write lock only to insert.
    const indexed = rows.map((r) => ({
      seq: r.seq,
      terms: indexTerms(r.title, { ...r, symbols: r.symbols ? (JSON.parse(r.symbols) as CodeSymbol[]) : null }, r.text),
    }));
    await conn.write(() => {
      const insert = conn.statement("INSERT INTO chunks_fts (rowid, title, body) VALUES (?, ?, ?)");
      for (const { seq, terms } of indexed) insert.run(seq, terms.title, terms.body);
    });
    after = (rows[rows.length - 1] as { seq: number }).seq;
  }
  await conn.write(() => setMetaValue(conn, "analyzer_version", String(ANALYZER_VERSION)));
  return true;
}
