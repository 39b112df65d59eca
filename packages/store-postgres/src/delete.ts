// Deleting documents: inside a caller's transaction (with the keyword statistics' change), and
// in bounded batches of their own transactions.
import type { RemovedCounts } from "@docdb/store";
import type { KeywordDelta, StoreContext } from "./connection.js";
import type { Queryable } from "./db.js";

/** Documents removed per transaction by clearCollection/deleteCollection. */
export const DELETE_BATCH = 200;

/** Deletes documents (cascading to chunks, postings, vectors and file rows) inside a transaction. */
export async function deleteIn(ctx: StoreContext, client: Queryable, ids: string[]): Promise<RemovedCounts & { delta: KeywordDelta }> {
  if (ids.length === 0) return { documents: 0, chunks: 0, delta: { chunks: 0, terms: 0 } };
  const { s } = ctx;
  // Postings carry no foreign key (a per-row check made bulk inserts a third slower): every
  // chunk deletion goes through here and removes them first.
  await client.query(`DELETE FROM ${s}.postings p USING ${s}.chunks c WHERE p.seq = c.seq AND c.doc_id = ANY($1::text[])`, [ids]);
  const { rows } = await client.query<{ documents: string; chunks: string; terms: string | null }>(
    `WITH gone AS (DELETE FROM ${s}.documents WHERE id = ANY($1::text[]) RETURNING id)
     SELECT (SELECT count(*) FROM gone) AS documents, count(c.seq) AS chunks, sum(c.kw_length) AS terms
     FROM ${s}.chunks c WHERE c.doc_id IN (SELECT id FROM gone)`,
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

export async function deleteDocuments(ctx: StoreContext, ids: string[]): Promise<RemovedCounts> {
  const unique = [...new Set(ids)];
  const total = { documents: 0, chunks: 0 };
  // Bounded batches, each its own transaction, so a long delete never holds up other writers.
  for (let i = 0; i < unique.length; i += DELETE_BATCH) {
    const removed = await ctx.db.transaction(async (client) => {
      const { delta, ...removed } = await deleteIn(ctx, client, unique.slice(i, i + DELETE_BATCH));
      if (removed.documents > 0) await ctx.bump(client, delta);
      return removed;
    });
    total.documents += removed.documents;
    total.chunks += removed.chunks;
  }
  return total;
}
