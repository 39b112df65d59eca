// Ingest through docdb's own insert path (validate → chunk → one transaction for document,
// chunks and FTS rows → vectors), with precomputed vectors so no embedding time is counted.
import { copyFileSync } from "node:fs";
import { join } from "node:path";
import { clusteredVectors, documents } from "./data.mjs";
import { PrecomputedEmbeddings } from "./model.mjs";

/**
 * Builds database `name` in `dataDir` with about `chunks` chunks of `dims`-dimension vectors.
 * Returns chunks/s and the counts. The vectors come from `seed`, so the same size and
 * dimension always get the same data.
 */
export async function ingest(core, { dataDir, store, name, chunks, dims, seed }) {
  const vectors = clusteredVectors(chunks + 64, dims, { seed });
  const model = new PrecomputedEmbeddings(vectors);
  // `store`: where the databases live (a postgres:// URL); default the SQLite folder `dataDir`.
  const docdb = core.openDocDB({ dataDir, store: store ?? dataDir, embedding: model, logger: core.silentLogger() });
  try {
    const db = await docdb.database(name, { create: true });
    let stored = 0;
    let docs = 0;
    const started = performance.now();
    for (const doc of documents({ seed })) {
      if (stored >= chunks) break;
      const result = await db.insertDocument(doc);
      if (!result.embedded) throw new Error(`document ${docs} was not embedded: ${result.warnings.join("; ")}`);
      stored += result.chunk_count;
      docs++;
    }
    const seconds = (performance.now() - started) / 1000;
    return { name, dims, chunks: stored, documents: docs, seconds, chunksPerSecond: stored / seconds };
  } finally {
    await docdb.close();
  }
}

/**
 * Copies database `from` to `name` and gives it `dims`-dimension vectors through docdb's
 * re-embed path (drop the vector table, embed every chunk again in batches): the same chunks
 * and keyword index at another dimension, without segmenting the text again.
 */
export async function reembedCopy(core, { dataDir, store, from, name, dims, seed, chunks }) {
  // With `from` equal to `name` (PostgreSQL: no file to copy) the database is re-embedded in place.
  if (from !== name) copyFileSync(join(dataDir, `${from}.db`), join(dataDir, `${name}.db`));
  // A few spare vectors: reembed first proves the model works with one call.
  const vectors = clusteredVectors(chunks + 64, dims, { seed });
  const docdb = core.openDocDB({
    dataDir,
    store: store ?? dataDir,
    embedding: new PrecomputedEmbeddings(vectors),
    logger: core.silentLogger(),
  });
  try {
    const started = performance.now();
    const result = await (await docdb.database(name)).reembed({ batch_size: 256 });
    if (result.remaining !== 0) throw new Error(`${result.remaining} chunks left without vectors`);
    const seconds = (performance.now() - started) / 1000;
    return { name, dims, chunks: result.embedded, seconds, chunksPerSecond: result.embedded / seconds };
  } finally {
    await docdb.close();
  }
}
