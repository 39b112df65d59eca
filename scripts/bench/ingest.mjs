// Ingest through docdb's own insert paths (validate → chunk → analyse words → embed → write
// document, chunks, keyword rows and vectors), with precomputed vectors so no embedding time is
// counted. The bulk path (`insertDocuments`, batches of 100 per transaction) builds the
// benchmark's databases; `ingestPaths` compares the paths on the same documents.
import { copyFileSync } from "node:fs";
import { join } from "node:path";
import { clusteredVectors, documents } from "./data.mjs";
import { PrecomputedEmbeddings } from "./model.mjs";

/** Documents handed to one `insertDocuments` call while building a database. */
const CALL = 500;

/** CPU seconds (user + system, every thread of this process) since `start` (a process.cpuUsage()). */
function cpuSeconds(start) {
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1e6;
}

/**
 * Builds database `name` in `dataDir` with about `chunks` chunks of `dims`-dimension vectors,
 * through the bulk path. Returns chunks/s (wall and CPU) and the counts. The vectors come from
 * `seed`, so the same size and dimension always get the same data.
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
    const source = documents({ seed });
    const started = performance.now();
    const cpu = process.cpuUsage();
    while (stored < chunks) {
      // About three chunks a document: a call's worth, no more than the target needs.
      const want = Math.max(1, Math.min(CALL, Math.ceil((chunks - stored) / 3)));
      const batch = [];
      while (batch.length < want) batch.push(source.next().value);
      const result = await db.insertDocuments(batch);
      if (result.failed > 0 || result.pending > 0) throw new Error(`ingest: ${result.failed} failed, ${result.pending} not embedded`);
      stored += result.chunks;
      docs += batch.length;
    }
    const seconds = (performance.now() - started) / 1000;
    const cpuS = cpuSeconds(cpu);
    return { name, dims, chunks: stored, documents: docs, seconds, chunksPerSecond: stored / seconds, chunksPerCpuSecond: stored / cpuS };
  } finally {
    await docdb.close();
  }
}

/**
 * The insert paths side by side on the same `count` documents (each path into its own
 * database), in `rounds` rounds that alternate the paths so all meet the same machine state:
 * bulk with precomputed vectors, bulk keyword-only (no embedding model), and `insertDocument`
 * one document at a time with precomputed vectors (the path every insert took before bulk).
 */
export async function ingestPaths(core, { dataDir, store, dbName = (base) => base, count, dims, seed, rounds = 3 }) {
  const docs = [];
  // Flat strings, as texts read from files or JSON are (the generator concatenates).
  for (const d of documents({ seed })) {
    if (docs.length >= count) break;
    docs.push({ ...d, text: JSON.parse(JSON.stringify(d.text)) });
  }
  const paths = [
    { path: "insertDocuments (batches of 100)", vectors: true, bulk: true },
    { path: "insertDocuments (batches of 100)", vectors: false, bulk: true },
    { path: "insertDocument, one at a time", vectors: true, bulk: false },
  ];
  const handles = [];
  for (const [i, p] of paths.entries()) {
    const embedding = p.vectors ? new PrecomputedEmbeddings(clusteredVectors(count * 8, dims, { seed: seed + i })) : null;
    // `store`: a postgres:// URL, or default the SQLite folder `dataDir`.
    const docdb = core.openDocDB({ dataDir, store: store ?? dataDir, embedding, logger: core.silentLogger() });
    handles.push(docdb);
    const name = dbName(`paths${i}`);
    // Each path starts empty (a kept --data-dir may hold an earlier run's), and is dropped after.
    await docdb.dropDatabase(name);
    Object.assign(p, { name, db: await docdb.database(name, { create: true }), seconds: 0, cpu: 0, chunks: 0, documents: 0 });
  }
  try {
    const perRound = Math.ceil(docs.length / rounds);
    for (let round = 0; round < rounds; round++) {
      const part = docs.slice(round * perRound, (round + 1) * perRound);
      // A different path goes first in each round.
      for (let k = 0; k < paths.length; k++) {
        const p = paths[(k + round) % paths.length];
        const started = performance.now();
        const cpu = process.cpuUsage();
        if (p.bulk) {
          const result = await p.db.insertDocuments(part);
          if (result.failed > 0) throw new Error(`ingest: ${result.failed} documents failed`);
          p.chunks += result.chunks;
        } else {
          for (const doc of part) p.chunks += (await p.db.insertDocument(doc)).chunk_count;
        }
        p.cpu += cpuSeconds(cpu);
        p.seconds += (performance.now() - started) / 1000;
        p.documents += part.length;
      }
    }
  } finally {
    for (const [i, h] of handles.entries()) {
      await h.dropDatabase(paths[i].name).catch(() => undefined);
      await h.close();
    }
  }
  return paths.map((p) => ({
    path: p.path,
    vectors: p.vectors ? `precomputed, ${dims} dims` : "none (keyword only)",
    documents: p.documents,
    chunks: p.chunks,
    seconds: p.seconds,
    cpuSeconds: p.cpu,
    chunksPerSecond: p.chunks / p.seconds,
    chunksPerCpuSecond: p.chunks / p.cpu,
  }));
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
