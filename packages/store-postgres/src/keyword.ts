import { ANALYZER_VERSION, type IndexedChunk, type IndexTerms, indexTerms, type KeywordQuery, splitTerms } from "@docdb/analyzer";
import type { Filter, KeywordHit, SearchOptions } from "@docdb/store";
import type { StoreContext } from "./connection.js";
import { filterToSql, Params } from "./filter.js";
import { CHUNK_HIT_COLUMNS, toChunkHit } from "./rows.js";

/**
 * Keyword search with BM25 computed in SQL over docdb's own inverted index (`postings`: one row
 * per term and chunk with its positions in the title and the body), the same formula SQLite's
 * FTS5 `bm25()` uses, so both engines rank alike:
 *
 *   score = Σ over query sequences  idf · f·(k1+1) / (f + k1·(1 − b + b·len/avglen))
 *   idf   = max(ln((N − n + 0.5) / (n + 0.5)), 1e-6)
 *   f     = 2 · (matches in the title) + 1 · (matches in the body)
 *
 * with k1 = 1.2, b = 0.75, N the chunks, n the chunks a sequence matches, len the index terms of
 * a chunk (title + body) and avglen their mean. A sequence of several terms (a phrase) matches
 * where its terms stand next to each other in order, within one column.
 *
 * Then, when the query has phrases, the best max(limit, 100) are re-scored with 0.1 × the
 * phrases' BM25 (a word-order bonus), as the SQLite engine does.
 */

const K1 = 1.2;
const B = 0.75;
export const TITLE_WEIGHT = 2;
export const BODY_WEIGHT = 1;
const PROXIMITY_WEIGHT = 0.1;
const RERANK_DEPTH = 100;

/** The postings rows of one chunk: term → positions in the title and the body. */
export interface ChunkPostings {
  length: number;
  terms: Map<string, { title: number[]; body: number[] }>;
}

/**
 * The postings of a chunk from its index terms: title = document title + chunk heading + code
 * symbols + documentation (weight 2), body = the chunk text (a code chunk's without its
 * language's reserved words). Terms analysed beforehand are used when they are of this analyzer
 * version; otherwise the chunk is analysed here, the same way (`indexTerms`).
 */
export function chunkPostings(title: string | null | undefined, chunk: IndexedChunk, text: string, analysed?: IndexTerms): ChunkPostings {
  const terms = analysed?.version === ANALYZER_VERSION ? analysed : indexTerms(title, chunk, text);
  const titleTerms = splitTerms(terms.title);
  const bodyTerms = splitTerms(terms.body);
  const positions = new Map<string, { title: number[]; body: number[] }>();
  const entry = (term: string) => {
    let e = positions.get(term);
    if (!e) {
      e = { title: [], body: [] };
      positions.set(term, e);
    }
    return e;
  };
  titleTerms.forEach((term, i) => {
    entry(term).title.push(i);
  });
  bodyTerms.forEach((term, i) => {
    entry(term).body.push(i);
  });
  return { length: titleTerms.length + bodyTerms.length, terms: positions };
}

/** Cleans a query: non-empty sequences of non-empty terms, each sequence once. */
function sequences(list: string[][] | undefined): string[][] {
  const seen = new Set<string>();
  const out: string[][] = [];
  for (const seq of list ?? []) {
    if (!Array.isArray(seq)) continue;
    const terms = seq.filter((t): t is string => typeof t === "string" && t !== "");
    if (terms.length === 0) continue;
    const key = JSON.stringify(terms);
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(terms);
  }
  return out;
}

/** SQL for the chunks a sequence matches: (seq, length, f), f > 0 the weighted match count. */
function matchesSql(schema: string, terms: string[], params: Params): string {
  const p = `${schema}.postings`;
  if (terms.length === 1) {
    return `SELECT seq, length, tf::float8 AS f FROM ${p} WHERE term = ${params.add(terms[0])}::text`;
  }
  const joins: string[] = [];
  const nextTo = (column: string) =>
    terms
      .slice(1)
      .map((_, i) => `x + ${i + 1} = ANY(p${i + 2}.${column})`)
      .join(" AND ");
  terms.slice(1).forEach((term, i) => {
    joins.push(`JOIN ${p} p${i + 2} ON p${i + 2}.term = ${params.add(term)}::text AND p${i + 2}.seq = p1.seq`);
  });
  const first = params.add(terms[0]);
  return `SELECT seq, length, f FROM (SELECT p1.seq, p1.length,
      (${TITLE_WEIGHT} * (SELECT count(*) FROM unnest(p1.title_pos) AS x WHERE ${nextTo("title_pos")})
       + ${BODY_WEIGHT} * (SELECT count(*) FROM unnest(p1.body_pos) AS x WHERE ${nextTo("body_pos")}))::float8 AS f
    FROM ${p} p1 ${joins.join(" ")} WHERE p1.term = ${first}::text OFFSET 0) AS m WHERE f > 0`;
}

/** CTEs and the expression of summed BM25 per chunk over some sequences; `name` prefixes the CTEs. */
function bm25Sql(schema: string, list: string[][], params: Params, name: string): { ctes: string[]; union: string } {
  const ctes: string[] = [];
  const parts: string[] = [];
  const score = (m: string, df: string) =>
    `greatest(ln((stats.n - ${df} + 0.5) / (${df} + 0.5)), 1e-6) * (${m}.f * ${K1 + 1}) / (${m}.f + ${K1} * (${1 - B} + ${B} * ${m}.length / stats.avglen))`;
  // Single words (most of a query) in one scan of the index, their frequencies counted per term.
  const singles = list.filter((terms) => terms.length === 1).map((terms) => terms[0] as string);
  if (singles.length > 0) {
    const w = `${name}w`;
    ctes.push(
      // tf = TITLE_WEIGHT · title matches + BODY_WEIGHT · body matches, kept by the server
      // (migration 0008) in the primary key beside the length: an index-only scan.
      `${w} AS MATERIALIZED (SELECT term, seq, length, tf::float8 AS f FROM ${schema}.postings WHERE term = ANY(${params.add(singles)}::text[]))`,
    );
    parts.push(`SELECT m.seq, ${score("m", "df.n")} AS score
      FROM ${w} m JOIN (SELECT term, count(*)::float8 AS n FROM ${w} GROUP BY term) AS df ON df.term = m.term CROSS JOIN stats`);
  }
  list
    .filter((terms) => terms.length > 1)
    .forEach((terms, i) => {
      const m = `${name}${i}`;
      ctes.push(`${m} AS MATERIALIZED (${matchesSql(schema, terms, params)})`);
      // Counted once: as a subquery the planner may put the count inside the loop over the
      // matches, counting them again for each (quadratic: 0.6 s for 1,600 matches).
      ctes.push(`${m}n AS MATERIALIZED (SELECT count(*)::float8 AS n FROM ${m})`);
      parts.push(`SELECT m.seq, ${score("m", "df.n")} AS score FROM ${m} m CROSS JOIN stats CROSS JOIN ${m}n AS df`);
    });
  return { ctes, union: `SELECT seq, sum(score) AS score FROM (${parts.join(" UNION ALL ")}) AS u GROUP BY seq` };
}

export interface KeywordStatement {
  sql: string;
  params: unknown[];
}

/**
 * The one statement a keyword search runs: (id, score) rows, best first; with `columns` (of
 * `chunks c` and `documents d`) each with its chunk as `chunkHits` reads it.
 */
export function keywordSearchSql(
  schema: string,
  query: KeywordQuery,
  limit: number,
  filter: Filter | undefined,
  columns?: string,
): KeywordStatement | undefined {
  const any = sequences(query.any);
  if (any.length === 0 || limit <= 0) return undefined;
  const phrases = sequences(query.phrases);
  const params = new Params();
  const main = bm25Sql(schema, any, params, "m");
  const ctes = [
    `stats AS MATERIALIZED (SELECT chunks::float8 AS n, greatest(terms::float8 / greatest(chunks, 1), 1e-9) AS avglen FROM ${schema}.counters WHERE id = 1)`,
    ...main.ctes,
    `scored AS MATERIALIZED (${main.union})`,
  ];
  const where = filter ? `WHERE ${filterToSql(filter, params)}` : "";
  const join = filter ? `JOIN ${schema}.documents d ON d.id = c.doc_id` : "";
  const depth = phrases.length > 0 ? Math.max(limit, RERANK_DEPTH) : limit;
  // The best `depth` first (a top-N sort of the matches), ranked afterwards: a window function
  // over every match would sort them all.
  if (filter) {
    ctes.push(`best AS MATERIALIZED (SELECT c.id, s.seq, s.score
      FROM scored s JOIN ${schema}.chunks c ON c.seq = s.seq ${join} ${where}
      ORDER BY s.score DESC, s.seq LIMIT ${params.add(depth)})`);
    ctes.push(`top AS MATERIALIZED (SELECT b.id, b.seq, b.score, row_number() OVER (ORDER BY b.score DESC, b.seq) AS rank FROM best b)`);
  } else {
    // No filter: cut to the best first, then look up only their chunk ids.
    ctes.push(`best AS MATERIALIZED (SELECT s.seq, s.score FROM scored s ORDER BY s.score DESC, s.seq LIMIT ${params.add(depth)})`);
    ctes.push(`top AS MATERIALIZED (SELECT c.id, b.seq, b.score, row_number() OVER (ORDER BY b.score DESC, b.seq) AS rank
      FROM best b JOIN ${schema}.chunks c ON c.seq = b.seq)`);
  }
  const chunk = columns ? `, ${columns}` : "";
  const chunkJoin = columns ? `JOIN ${schema}.chunks c ON c.seq = t.seq JOIN ${schema}.documents d ON d.id = c.doc_id` : "";
  if (phrases.length === 0) {
    return {
      sql: `WITH ${ctes.join(",\n")} SELECT t.id, t.score${chunk} FROM top t ${chunkJoin} ORDER BY t.rank LIMIT ${params.add(limit)}`,
      params: params.values,
    };
  }
  const bonus = bm25Sql(schema, phrases, params, "p");
  ctes.push(...bonus.ctes, `phrase AS MATERIALIZED (${bonus.union})`);
  return {
    sql: `WITH ${ctes.join(",\n")}
      SELECT t.id, t.score + ${PROXIMITY_WEIGHT} * COALESCE(ph.score, 0) AS score${chunk}
      FROM top t LEFT JOIN phrase ph ON ph.seq = t.seq ${chunkJoin}
      ORDER BY 2 DESC, t.rank LIMIT ${params.add(limit)}`,
    params: params.values,
  };
}

export async function keywordSearch(ctx: StoreContext, query: KeywordQuery, options: SearchOptions): Promise<KeywordHit[]> {
  // Asked for the hits' chunks, every hit comes with its chunk: a round trip less for the caller.
  const columns = options.withChunks ? CHUNK_HIT_COLUMNS : undefined;
  const statement = keywordSearchSql(ctx.s, query, Math.floor(options.limit), options.filter, columns);
  if (!statement) return [];
  const rows = await ctx.read<Record<string, unknown>>(statement.sql, statement.params);
  return rows.map((r) => ({ chunkId: r.id as string, score: Number(r.score), ...(columns ? { chunk: toChunkHit(r) } : {}) }));
}
