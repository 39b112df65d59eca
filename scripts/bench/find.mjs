// Find latency through Database.findSimilar (query embedding excluded: the query vectors are
// precomputed), next to the engine's own KNN on the same table (sqlite-vec's, or pgvector's on
// PostgreSQL), so docdb's overhead over the vector index is a ratio from the same run on the
// same machine state.
import { clusteredVectors, queries } from "./data.mjs";
import { keywordIndexReady } from "./keyword-ready.mjs";
import { PrecomputedEmbeddings } from "./model.mjs";
import { percentile } from "./stats.mjs";

const TOP_K = 10;
const WARMUP = 5;
const BROAD_FILTER = { n: { $gte: 1 } };
const OPERATIONS = ["keyword", "vector", "hybrid", "vectorFiltered", "rawKnn"];

/** `target` (scripts/bench/target.mjs) says where the database is and opens the engine's raw KNN. */
export async function findLatency(core, { target, name, dims, seed, count }) {
  // Each operation asks questions of its own: a find keeps what it computed for a query (a
  // phrase's matches, the graph's last answer), which the same question in another mode would
  // reuse, so a mode asked second would be timed with a warm cache.
  const perOperation = count + WARMUP;
  const texts = queries(perOperation * OPERATIONS.length, { seed: seed + 1 });
  // Other samples around the same cluster centres as the passages.
  const queryVectors = clusteredVectors(texts.length, dims, { seed: seed + 2 });
  const byText = new Map(texts.map((t, i) => [t, queryVectors.at(i)]));
  // Passage vectors are never asked for here; the model only answers queries.
  const model = new PrecomputedEmbeddings({ dims, count: 0, at: () => undefined }, byText);
  model.modelId = `clustered-${dims}`;
  const docdb = core.openDocDB({ store: target.store, embedding: model, logger: core.silentLogger() });
  try {
    const db = await docdb.database(name);
    // Above the threshold the first vector query would build the index: build it untimed.
    const index = await db.indexStatus();
    let indexBuildSeconds;
    if (index && index.state === "missing") {
      const t0 = performance.now();
      await db.rebuildIndex({});
      indexBuildSeconds = (performance.now() - t0) / 1000;
    }
    // The keyword index (SQLite, above its threshold) is built in the background: timed apart.
    const keywordIndex = await keywordIndexReady(db, { query: texts[0] });
    const raw = await target.openRawKnn(name);
    try {
      const operations = {
        keyword: (t) => db.findSimilar({ query: t, mode: "keyword", top_k: TOP_K }),
        vector: (t) => db.findSimilar({ query: t, mode: "vector", top_k: TOP_K }),
        hybrid: (t) => db.findSimilar({ query: t, mode: "hybrid", top_k: TOP_K }),
        // A filter nearly every chunk passes (all documents but the first): the path a database
        // holding agent memory takes, whose find leaves the memory collections out.
        vectorFiltered: (t) => db.findSimilar({ query: t, mode: "vector", top_k: TOP_K, filter: BROAD_FILTER }),
        rawKnn: (t) => raw.knn(byText.get(t), TOP_K),
      };
      const names = OPERATIONS;
      const asked = Object.fromEntries(names.map((n, k) => [n, texts.slice(k * perOperation, (k + 1) * perOperation)]));
      for (let i = 0; i < WARMUP; i++) for (const name of names) await operations[name](asked[name][i]);
      // Interleaved, in a rotating order, so every operation meets the same machine state
      // (caches, other load) and the ratios compare like with like.
      const times = Object.fromEntries(names.map((n) => [n, []]));
      let empty = 0;
      for (let i = 0; i < count; i++) {
        for (let j = 0; j < names.length; j++) {
          const name = names[(i + j) % names.length];
          const t = asked[name][WARMUP + i];
          const started = performance.now();
          const found = await operations[name](t);
          times[name].push(performance.now() - started);
          if (name === "vector" && found.results.length === 0) empty++;
        }
      }
      const result = Object.fromEntries(names.map((n) => [n, { p50: percentile(times[n], 50), p95: percentile(times[n], 95) }]));
      result.vector.empty = empty;
      // PostgreSQL keeps its HNSW index in the server (pgvector indexes up to 2,000 dimensions).
      if (target.kind === "postgres") result.vectorPath = dims <= 2000 ? "hnsw" : "exact";
      else result.vectorPath = index && index.state !== "exact" ? "hnsw" : "exact";
      result.indexBuildSeconds = indexBuildSeconds;
      if (keywordIndex.state === "ready") result.keywordIndexSeconds = keywordIndex.seconds;
      return result;
    } finally {
      await raw.close();
    }
  } finally {
    await docdb.close();
  }
}
