// The keyword index's side of SQLite: the keyword log it replays to catch up (high-water mark,
// floor, pruning), the keyword rows of chunks re-derived from their text, and filter checks.
import { analyzeForIndex, indexTerms } from "@docdb/analyzer";
import type { CodeSymbol, Filter } from "@docdb/store";
import type { Connection } from "../connection.js";
import { filterToSql } from "../filter.js";
import type { IndexedRow } from "../keyword-index/index.js";
import { DOCUMENTS } from "../rows.js";
import type { WrittenRows } from "./written.js";

const FLOOR_KEY = "keyword_log_floor";

type ChunkRow = {
  seq: number;
  text: string;
  title: string | null;
  heading: string | null;
  symbol: string | null;
  symbols: string | null;
  doc: string | null;
  language: string | null;
};

const ROW_COLUMNS = "c.seq, c.text, c.heading, c.symbol, c.symbols, c.doc, c.language, d.title";

/** SQLite's variable-length integers, one after another (up to 8 bytes of 7 bits, a 9th of 8). */
function readVarints(bytes: Uint8Array): number[] {
  const out: number[] = [];
  let at = 0;
  while (at < bytes.length) {
    let value = 0;
    for (let i = 0; i < 9 && at < bytes.length; i++) {
      const byte = bytes[at++] as number;
      if (i === 8) {
        value = value * 256 + byte;
        break;
      }
      value = value * 128 + (byte & 0x7f);
      if (byte < 0x80) break;
    }
    out.push(value);
  }
  return out;
}

/** Rows re-derived from chunk text, and rows taken from this process's writes (WrittenRows), since the store opened. */
export interface KeywordRowCounts {
  derived: number;
  fromWrites: number;
}

/** The exact strings FTS5 was given for a chunk (the analyser's terms, as write.ts and refreshKeywordIndex make them). */
function toIndexedRows(rows: ChunkRow[]): IndexedRow[] {
  // Chunks of one document share its title: analysed once per batch.
  const titles = new Map<string, string>();
  return rows.map((r) => {
    let titleTerms = "";
    if (r.title) {
      titleTerms = titles.get(r.title) ?? analyzeForIndex(r.title);
      titles.set(r.title, titleTerms);
    }
    const symbols = r.symbols ? (JSON.parse(r.symbols) as CodeSymbol[]) : null;
    const chunk = { heading: r.heading, symbol: r.symbol, symbols, doc: r.doc, language: r.language };
    const terms = indexTerms(r.title, chunk, r.text, titleTerms);
    return { seq: r.seq, title: terms.title, body: terms.body };
  });
}

/**
 * SQLite as the keyword index reads it. Every chunk written, deleted or re-derived appends its
 * `seq` to `keyword_log` (triggers, migration 0011) in the writing transaction, so log ids follow
 * commit order; the index remembers the last id it applied (its high-water mark).
 */
export class KeywordLog {
  readonly counts: KeywordRowCounts = { derived: 0, fromWrites: 0 };
  constructor(private readonly conn: Connection) {}

  /** The last log id written (entries up to the floor may have been pruned). */
  high(): number {
    const high = (this.conn.statement("SELECT coalesce(max(id), 0) AS n FROM keyword_log").get() as { n: number }).n;
    return Math.max(high, this.floor());
  }

  /** The last log id pruned: an index older than this cannot catch up. */
  floor(): number {
    const row = this.conn.statement("SELECT value FROM meta WHERE key = ?").get(FLOOR_KEY) as { value: string } | undefined;
    return row === undefined ? 0 : Number(row.value);
  }

  /** Drops the entries up to a written file's mark and records the new floor (in a write transaction). */
  prune(highWater: number): void {
    if (highWater <= this.floor()) return;
    this.conn.statement("DELETE FROM keyword_log WHERE id <= ?").run(highWater);
    this.conn
      .statement("INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value")
      .run(FLOOR_KEY, String(highWater));
  }

  /** Forgets the whole log (the keyword rows were refilled: no index file survives that). In a write transaction. */
  reset(): void {
    // One more entry moves the mark past every file written so far; then all are pruned.
    this.conn.statement("INSERT INTO keyword_log (seq) VALUES (0)").run();
    const high = this.high();
    this.conn.statement("DELETE FROM keyword_log").run();
    this.conn
      .statement("INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value")
      .run(FLOOR_KEY, String(high));
  }

  /** Log entries after `highWater` (an upper bound on the chunks to apply). */
  backlog(highWater: number): number {
    return Math.max(0, this.high() - highWater);
  }

  /**
   * Chunks named by log entries after `from` up to `to` (at most `limit` entries), each with the id
   * of its last entry there, in log order of first mention.
   */
  touched(from: number, to: number, limit: number): { last: Map<number, number>; through: number } {
    const rows = this.conn
      .statement("SELECT id, seq FROM keyword_log WHERE id > ? AND id <= ? ORDER BY id LIMIT ?")
      .all(from, to, limit) as { id: number; seq: number }[];
    const through = rows.length === limit ? (rows[rows.length - 1] as { id: number }).id : to;
    const last = new Map<number, number>();
    for (const r of rows) last.set(r.seq, r.id);
    return { last, through };
  }

  /**
   * The current keyword rows of these chunks (seq → id of its last log entry replayed); a chunk
   * that is gone is absent. A row this process's write gave FTS5, and nothing logged since, is
   * taken from `written`; the others are analysed again from their text.
   */
  rowsOf(last: Map<number, number>, written?: WrittenRows): IndexedRow[] {
    if (last.size === 0) return [];
    const rows = this.conn
      .statement(`SELECT ${ROW_COLUMNS} FROM chunks c JOIN documents d ON d.id = c.doc_id WHERE c.seq IN (SELECT value FROM json_each(?))`)
      .all(JSON.stringify([...last.keys()])) as ChunkRow[];
    if (!written || written.size === 0) return this.derive(rows);
    return this.derive(rows, (seq) => written.take(seq, last.get(seq) as number));
  }

  /**
   * Up to `limit` keyword rows of chunks after `after`, in seq order (a build reads them batch by
   * batch); a row `kept` gives (this process's write analysed it) is taken, the others analysed.
   */
  rowsAfter(after: number, limit: number, kept?: (seq: number) => IndexedRow | undefined): IndexedRow[] {
    const rows = this.conn
      .statement(`SELECT ${ROW_COLUMNS} FROM chunks c JOIN documents d ON d.id = c.doc_id WHERE c.seq > ? ORDER BY c.seq LIMIT ?`)
      .all(after, limit) as ChunkRow[];
    return this.derive(rows, kept);
  }

  /** The rows' keyword rows in the order read: those `kept` gives in place, the others analysed in one pass. */
  private derive(rows: ChunkRow[], kept?: (seq: number) => IndexedRow | undefined): IndexedRow[] {
    if (!kept) {
      this.counts.derived += rows.length;
      return toIndexedRows(rows);
    }
    const out = rows.map((r) => kept(r.seq));
    const derive = rows.filter((_, i) => out[i] === undefined);
    this.counts.fromWrites += rows.length - derive.length;
    this.counts.derived += derive.length;
    const derived = toIndexedRows(derive);
    let next = 0;
    return out.map((row) => row ?? (derived[next++] as IndexedRow));
  }

  /** The id of each chunk's last log entry up to `through`, for these chunks (one pass over the log). */
  lastEntries(seqs: number[], through: number): Map<number, number> {
    const rows = this.conn
      .statement("SELECT seq, max(id) AS id FROM keyword_log WHERE id <= ? AND seq IN (SELECT value FROM json_each(?)) GROUP BY seq")
      .all(through, JSON.stringify(seqs)) as { seq: number; id: number }[];
    return new Map(rows.map((r) => [r.seq, r.id]));
  }

  /**
   * FTS5's own totals, from its averages record (`chunks_fts_data` id 1: rows, then tokens per
   * column, as SQLite varints). bm25 reads N and the mean row length from them, and FTS5 never
   * lowers them when a row of a contentless table is deleted (only 'delete-all' resets them), so
   * they count every row inserted since: the index must score with these, not its live counts.
   */
  ftsTotals(): { rows: number; tokens: number } {
    const row = this.conn.statement("SELECT block FROM chunks_fts_data WHERE id = 1").get() as { block: Buffer } | undefined;
    if (!row) return { rows: 0, tokens: 0 };
    const values = readVarints(row.block);
    return { rows: values[0] ?? 0, tokens: values.slice(1).reduce((a, b) => a + b, 0) };
  }

  /** Chunks in the database (keyword rows: one per chunk). */
  chunks(): number {
    return (this.conn.statement("SELECT count(*) AS n FROM chunks").get() as { n: number }).n;
  }

  /** A filter as a check of candidate seqs (the `accept` of KeywordIndex.search); undefined when nothing is filtered. */
  acceptor(filter: Filter | undefined): ((seqs: number[]) => Set<number>) | undefined {
    const { sql, params } = filterToSql(filter);
    if (sql === "1") return undefined;
    const check = this.conn.statement(
      `SELECT c.seq FROM chunks c JOIN ${DOCUMENTS} ON d.id = c.doc_id WHERE c.seq IN (SELECT value FROM json_each(?)) AND ${sql}`,
    );
    return (seqs) => new Set((check.all(JSON.stringify(seqs), ...params) as { seq: number }[]).map((r) => r.seq));
  }
}
