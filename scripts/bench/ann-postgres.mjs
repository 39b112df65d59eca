// Approximate vector search on PostgreSQL (pgvector's HNSW index, kept in the server) against
// the exact answer: docdb's vector path (HNSW, ef_search 40 for top 10), docdb's exact path
// (`exact: true`: a sequential scan the index cannot serve), and the same two queries sent to
// pgvector alone, interleaved query by query so they meet the same machine state. Recall@10 is
// measured against docdb's `exact: true` answer (one result per chunk: `merge: false`). Then
// pgvector alone with other ef_search values (docdb sets 40 for top 10: the sweep shows what
// that setting leaves on the table),
// and the time to build the index from scratch (REINDEX; docdb itself fills it row by row).
import { clusteredVectors, queries } from "./data.mjs";
import { PrecomputedEmbeddings } from "./model.mjs";
import { percentile } from "./stats.mjs";
import { quoteIdent, vectorSchema, vectorText } from "./target.mjs";

const TOP_K = 10;
const WARMUP = 5;
/** docdb's hnsw.ef_search for a top-10 search: max(40, limit). */
const DOCDB_EF_SEARCH = 40;

const recallOf = (found, truth) => found.filter((id) => truth.has(id)).length / TOP_K;
const summary = (times, recalls) => ({
  p50: percentile(times, 50),
  p95: percentile(times, 95),
  recall: recalls.length ? recalls.reduce((a, b) => a + b, 0) / recalls.length : undefined,
});

/** The HNSW index of a database's vectors: its size and build settings (pgvector defaults unless set). */
async function indexInfo(client) {
  const { rows } = await client.query(
    `SELECT pg_relation_size(i.oid)::float8 AS bytes, i.reloptions AS options, pg_table_size('chunk_vectors'::regclass)::float8 AS table_bytes
       FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid
      WHERE x.indrelid = 'chunk_vectors'::regclass AND i.relname = 'chunk_vectors_hnsw'`,
  );
  if (!rows[0]) return undefined;
  const options = Object.fromEntries((rows[0].options ?? []).map((o) => o.split("=")));
  return {
    bytes: Number(rows[0].bytes),
    tableBytes: Number(rows[0].table_bytes),
    settings: { m: Number(options.m ?? 16), efConstruction: Number(options.ef_construction ?? 64), efSearch: DOCDB_EF_SEARCH },
  };
}

/**
 * HNSW vs exact on database `name` of `target` (already filled with clustered vectors, which
 * pgvector indexed as they were written).
 */
export async function annLatencyPostgres(core, { target, name, dims, seed, count, efs }) {
  const texts = queries(count + WARMUP, { seed: seed + 1 });
  const queryVectors = clusteredVectors(texts.length, dims, { seed: seed + 2 });
  const byText = new Map(texts.map((t, i) => [t, queryVectors.at(i)]));
  const model = new PrecomputedEmbeddings({ dims, count: 0, at: () => undefined }, byText);
  model.modelId = `clustered-${dims}`;
  const docdb = core.openDocDB({ store: target.store, embedding: model, logger: core.silentLogger() });
  const client = await target.connect();
  try {
    const db = await docdb.database(name);
    await client.query(`SET search_path = ${quoteIdent(target.schemaOf(name))}, ${quoteIdent(await vectorSchema(client))}`);
    const idOf = new Map((await client.query("SELECT seq, id FROM chunks")).rows.map((r) => [String(r.seq), r.id]));
    const vectors = Number((await client.query("SELECT count(*) AS n FROM chunk_vectors")).rows[0].n);
    const result = { vectors, index: await indexInfo(client) };
    result.state = result.index ? "hnsw" : "exact";

    const ids = (found) => found.results.map((r) => r.chunk_id);
    const rawIds = (rows) => rows.map((r) => idOf.get(String(r.seq)));
    const rawHnsw = async (t) =>
      rawIds(
        (await client.query("SELECT seq FROM chunk_vectors ORDER BY embedding <=> $1::vector LIMIT $2", [vectorText(byText.get(t)), TOP_K]))
          .rows,
      );
    const rawExact = async (t) =>
      rawIds(
        (
          await client.query(
            "SELECT seq FROM (SELECT seq, embedding <=> $1::vector AS distance FROM chunk_vectors OFFSET 0) AS s ORDER BY distance, seq LIMIT $2",
            [vectorText(byText.get(t)), TOP_K],
          )
        ).rows,
      );
    await client.query(`SET hnsw.ef_search = ${DOCDB_EF_SEARCH}`);
    const operations = {
      // merge: false — one result per chunk (adjacent chunks of a document would merge into one passage).
      ann: async (t) => ids(await db.findSimilar({ query: t, mode: "vector", top_k: TOP_K, merge: false })),
      exact: async (t) => ids(await db.findSimilar({ query: t, mode: "vector", top_k: TOP_K, exact: true, merge: false })),
      pgvectorHnsw: rawHnsw,
      pgvectorExact: rawExact,
    };
    // The exact answers first (untimed; they also warm the caches).
    const truth = new Map();
    for (const t of texts) truth.set(t, new Set(await operations.exact(t)));
    const measured = texts.slice(WARMUP);
    const names = Object.keys(operations);
    for (const t of texts.slice(0, WARMUP)) for (const n of names) await operations[n](t);
    const times = Object.fromEntries(names.map((n) => [n, []]));
    const recalls = Object.fromEntries(names.map((n) => [n, []]));
    for (const [i, t] of measured.entries()) {
      for (let j = 0; j < names.length; j++) {
        const n = names[(i + j) % names.length];
        const t0 = performance.now();
        const found = await operations[n](t);
        times[n].push(performance.now() - t0);
        recalls[n].push(recallOf(found, truth.get(t)));
      }
    }
    result.paths = Object.fromEntries(names.map((n) => [n, summary(times[n], recalls[n])]));

    if (result.index) {
      // pgvector alone at other ef_search values (a session setting; the index is the same).
      result.sweep = [];
      for (const ef of [...new Set(efs)].sort((a, b) => a - b)) {
        await client.query(`SET hnsw.ef_search = ${Number(ef)}`);
        for (const t of texts.slice(0, WARMUP)) await rawHnsw(t);
        const efTimes = [];
        const efRecalls = [];
        for (const t of measured) {
          const t0 = performance.now();
          const found = await rawHnsw(t);
          efTimes.push(performance.now() - t0);
          efRecalls.push(recallOf(found, truth.get(t)));
        }
        result.sweep.push({ ef, ...summary(efTimes, efRecalls) });
      }
      // The index built from scratch over the stored vectors (docdb fills it row by row while
      // writing; this is what a bulk load followed by CREATE INDEX would cost).
      const t0 = performance.now();
      await client.query("REINDEX INDEX chunk_vectors_hnsw");
      result.index.rebuildSeconds = (performance.now() - t0) / 1000;
      result.index.bytesAfterRebuild = (await indexInfo(client)).bytes;
    }
    return result;
  } finally {
    await client.end();
    await docdb.close();
  }
}
