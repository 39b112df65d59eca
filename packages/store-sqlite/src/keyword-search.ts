import type Database from "better-sqlite3";
import type { KeywordQuery } from "./analyzer.js";
import { filterToSql, type SearchFilter } from "./filter.js";

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
const PROXIMITY_WEIGHT = 0.1;

/** How many of the best bag-of-words candidates the proximity bonus may reorder. */
const RERANK_DEPTH = 100;

export interface KeywordHit {
  seq: number;
  score: number;
}

/**
 * Keyword search over `chunks_fts`: BM25 of the OR-ed query words (higher score is better),
 * then, when the query has phrases, the best candidates re-scored with a share of the phrase
 * BM25 so passages that keep the query's word order rise. Filters apply to the candidates.
 */
export function keywordSearch(db: Database.Database, query: KeywordQuery | string, limit: number, filter?: SearchFilter): KeywordHit[] {
  const { match, proximity } = typeof query === "string" ? { match: query, proximity: null } : query;
  const { sql, params } = filterToSql(filter);
  const join = sql ? "JOIN chunks c ON c.seq = f.rowid JOIN documents d ON d.id = c.doc_id" : "";
  const where = sql ? `AND ${sql}` : "";
  const depth = proximity ? Math.max(limit, RERANK_DEPTH) : limit;
  const rows = db
    .prepare(`SELECT f.rowid AS seq, ${BM25} AS rank FROM chunks_fts f ${join} WHERE chunks_fts MATCH ? ${where} ORDER BY rank LIMIT ?`)
    .all(match, ...params, depth) as { seq: number; rank: number }[];
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
