import { ANALYZER_VERSION } from "@docdb/analyzer";
import type { Database } from "./db.js";
import { chunkPostings } from "./keyword.js";

/** Chunks re-analysed per transaction when the keyword index is rebuilt. */
const REINDEX_BATCH = 1000;

/**
 * The postings are derived from the chunk text by `@docdb/analyzer`: when they were written by
 * another analyzer version (or before versions were recorded), they are rebuilt in batches, each
 * a transaction that replaces the postings of its chunks and corrects the BM25 statistics. A
 * rebuild interrupted, or run by two processes at once, leaves every chunk's postings whole (a
 * chunk's are replaced in one transaction); the version is recorded when the last batch is done.
 */
export async function refreshKeywordIndex(db: Database, s: string): Promise<void> {
  const version = String(ANALYZER_VERSION);
  const current = await db.read<{ value: string }>(`SELECT value FROM ${s}.meta WHERE key = 'analyzer_version'`);
  if (current[0]?.value === version) return;
  let after = "0";
  for (;;) {
    const rows = await db.read<{
      seq: string;
      text: string;
      heading: string | null;
      symbol: string | null;
      symbols: { symbol: string }[] | null;
      doc: string | null;
      language: string | null;
      title: string | null;
    }>(
      `SELECT c.seq, c.text, c.heading, c.symbol, c.symbols, c.doc, c.language, d.title FROM ${s}.chunks c JOIN ${s}.documents d ON d.id = c.doc_id
       WHERE c.seq > $1::bigint ORDER BY c.seq LIMIT $2`,
      [after, REINDEX_BATCH],
    );
    if (rows.length === 0) break;
    const postings = rows.map((r) => chunkPostings(r.title, r, r.text));
    await db.transaction(async (client) => {
      const seqs = rows.map((r) => r.seq);
      // Locked, so a concurrent rebuild of the same chunks waits and computes the same delta from our result.
      const { rows: old } = await client.query<{ seq: string; kw_length: number }>(
        `SELECT seq, kw_length FROM ${s}.chunks WHERE seq = ANY($1::bigint[]) FOR UPDATE`,
        [seqs],
      );
      const present = new Map(old.map((r) => [r.seq, r.kw_length]));
      await client.query(`DELETE FROM ${s}.postings WHERE seq = ANY($1::bigint[])`, [seqs]);
      const terms: string[] = [];
      const termSeqs: string[] = [];
      const lengths: number[] = [];
      const titlePos: string[] = [];
      const bodyPos: string[] = [];
      let delta = 0;
      rows.forEach((r, i) => {
        const p = postings[i];
        const before = present.get(r.seq);
        // A chunk deleted meanwhile is skipped.
        if (!p || before === undefined) return;
        delta += p.length - before;
        for (const [term, pos] of p.terms) {
          terms.push(term);
          termSeqs.push(r.seq);
          lengths.push(p.length);
          titlePos.push(`{${pos.title.join(",")}}`);
          bodyPos.push(`{${pos.body.join(",")}}`);
        }
      });
      if (terms.length > 0) {
        await client.query(
          `INSERT INTO ${s}.postings (term, seq, length, title_pos, body_pos)
           SELECT x.term, x.seq, x.length, x.t::int[], x.b::int[] FROM unnest($1::text[], $2::bigint[], $3::int[], $4::text[], $5::text[]) AS x(term, seq, length, t, b)`,
          [terms, termSeqs, lengths, titlePos, bodyPos],
        );
      }
      await client.query(`UPDATE ${s}.chunks c SET kw_length = x.n FROM unnest($1::bigint[], $2::int[]) AS x(seq, n) WHERE c.seq = x.seq`, [
        rows.map((r) => r.seq),
        postings.map((p) => p.length),
      ]);
      await client.query(`UPDATE ${s}.counters SET version = version + 1, terms = terms + $1 WHERE id = 1`, [delta]);
    });
    after = (rows[rows.length - 1] as { seq: string }).seq;
  }
  await db.transaction(async (client) => {
    await client.query(
      `INSERT INTO ${s}.meta (key, value) VALUES ('analyzer_version', $1) ON CONFLICT (key) DO UPDATE SET value = excluded.value`,
      [version],
    );
  });
}
