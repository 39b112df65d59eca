// Find latency through Database.findSimilar (query embedding excluded: the query vectors are
// precomputed), next to sqlite-vec's own KNN on the same table, so docdb's overhead over the
// vector index is a ratio from the same run on the same machine state.
import { clusteredVectors, queries } from "./data.mjs";
import { PrecomputedEmbeddings } from "./model.mjs";
import { timeEach } from "./stats.mjs";

const TOP_K = 10;
const WARMUP = 5;

export async function findLatency(core, { dataDir, name, dims, seed, count }) {
  const texts = queries(count + WARMUP, { seed: seed + 1 });
  // Other samples around the same cluster centres as the passages.
  const queryVectors = clusteredVectors(texts.length, dims, { seed: seed + 2 });
  const byText = new Map(texts.map((t, i) => [t, queryVectors.at(i)]));
  // Passage vectors are never asked for here; the model only answers queries.
  const model = new PrecomputedEmbeddings({ dims, count: 0, at: () => undefined }, byText);
  model.modelId = `clustered-${dims}`;
  const docdb = core.openDocDB({ dataDir, embedding: model, logger: core.silentLogger() });
  try {
    const db = docdb.database(name);
    const warm = texts.slice(0, WARMUP);
    const measured = texts.slice(WARMUP);
    const knn = db.store.db.prepare("SELECT rowid, distance FROM chunks_vec WHERE embedding MATCH ? AND k = ? ORDER BY distance");
    const blob = (t) => {
      const v = byText.get(t);
      return Buffer.from(v.buffer, v.byteOffset, v.byteLength);
    };
    const result = {};
    for (const mode of ["keyword", "vector", "hybrid"]) {
      for (const t of warm) await db.findSimilar({ query: t, mode, topK: TOP_K });
      let empty = 0;
      result[mode] = await timeEach(measured, async (t) => {
        const found = await db.findSimilar({ query: t, mode, topK: TOP_K });
        if (found.results.length === 0) empty++;
      });
      result[mode].empty = empty;
    }
    for (const t of warm) knn.all(blob(t), TOP_K);
    result.rawKnn = await timeEach(measured, (t) => knn.all(blob(t), TOP_K));
    return result;
  } finally {
    await docdb.close();
  }
}
