#!/usr/bin/env node
/**
 * Where the CPU time of an ingest goes, in microseconds per chunk, part by part, in one thread:
 * chunking, hashes, word analysis (segmentation apart), each SQL statement of the write (documents,
 * chunks with their log triggers, sqlite-vec, FTS5, the commit), the keyword index's own work on
 * the same rows (adding them in memory, compacting them: what a find's catch-up does above the
 * index's threshold), and the whole insertDocuments
 * with and without analysis workers. From these, the most chunks/s the parts allow on N cores.
 *
 *   pnpm build && node scripts/bench-ingest-parts.mjs [--documents 3000] [--tree <another checkout, built>] [--repeat 3]
 *
 * Each part runs `--repeat` times on the same documents (bench/data.mjs, seed 5, as
 * bench-compare's); the least CPU time is kept (other work on the machine only adds to it).
 * `--tree` measures another built checkout's packages with this script.
 *
 * With analysis workers, the CPU of each thread of the process during the best run is printed
 * too (Linux): the main thread, the workers, V8's helper threads, and how long each ran and
 * waited for a core (when the threads wait long, the cores were all busy, and only less CPU per
 * chunk ingests faster).
 */
import { createHash } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { availableParallelism, cpus, loadavg, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { deserialize, serialize } from "node:v8";
import { clusteredVectors, documents } from "./bench/data.mjs";
import { PrecomputedEmbeddings } from "./bench/model.mjs";
import { threadShares, threadTimes } from "./bench/threads.mjs";

const { values } = parseArgs({
  options: {
    documents: { type: "string", default: "3000" },
    tree: { type: "string" },
    repeat: { type: "string", default: "3" },
  },
});
const TREE = values.tree ? resolve(values.tree) : fileURLToPath(new URL("..", import.meta.url));
const DOCS = Number(values.documents);
const REPEAT = Math.max(1, Number(values.repeat));
const load = (path) => import(pathToFileURL(join(TREE, path)).href);
const { chunkText } = await load("packages/chunker/dist/index.js");
const analyzer = await load("packages/analyzer/dist/index.js");
const { SqliteStore, KeywordIndex } = await load("packages/store-sqlite/dist/index.js");
const core = await load("packages/core/dist/index.js");
const sqliteRequire = createRequire(join(TREE, "packages/store-sqlite/package.json"));
const Database = sqliteRequire("better-sqlite3");
const sqliteVec = sqliteRequire("sqlite-vec");

const docs = [];
for (const d of documents({ seed: 5 })) {
  if (docs.length >= DOCS) break;
  // Flat strings, as texts read from files or JSON are.
  docs.push({ ...d, text: JSON.parse(JSON.stringify(d.text)) });
}
const chunked = docs.map((d) => chunkText(d.text, {}));
const CHUNKS = chunked.reduce((n, c) => n + c.length, 0);
const vectors = clusteredVectors(CHUNKS + 1000, 384, { seed: 3 });
const work = mkdtempSync(join(tmpdir(), "docdb-ingest-parts-"));

/** Least CPU µs per chunk of `REPEAT` runs of `run` (sync or async). */
async function cpuPerChunk(run) {
  let best = Number.POSITIVE_INFINITY;
  for (let r = 0; r < REPEAT; r++) {
    const before = process.cpuUsage();
    await run(r);
    const used = process.cpuUsage(before);
    best = Math.min(best, (used.user + used.system) / CHUNKS);
  }
  return best;
}

const sha256 = (text) => createHash("sha256").update(text).digest("hex");
const rows = [];
const part = (name, us, note = "") => rows.push({ part: name, "µs CPU / chunk": +us.toFixed(1), note });

// 1. Preparing: chunking, then the hashes core computes (document content, each chunk's embedding input).
part(
  "chunking (chunkText)",
  await cpuPerChunk(() => {
    for (const d of docs) chunkText(d.text, {});
  }),
);
part(
  "hashes (SHA-256 of document and of each chunk's embedding input)",
  await cpuPerChunk(() =>
    docs.forEach((d, i) => {
      sha256(d.text);
      for (const c of chunked[i]) sha256(`${d.title}\n${c.text}`);
    }),
  ),
);

// 2. Word analysis: segmentation alone (ICU and the JavaScript fast path), then everything.
const segmentation = await cpuPerChunk(() => {
  for (const list of chunked) for (const c of list) analyzer.forEachWord(c.text.normalize("NFKC"), () => {});
});
const analysis = await cpuPerChunk(() =>
  docs.forEach((d, i) => {
    const titleTerms = analyzer.analyzeForIndex(d.title);
    for (const c of chunked[i]) analyzer.indexTerms(d.title, {}, c.text, titleTerms);
  }),
);
part("word segmentation (forEachWord: ICU + fast path)", segmentation, "inside analysis");
part("word analysis (indexTerms, all of it)", analysis);

// The analysis workers' messages, copied as postMessage copies them (structured clone): the
// request (title, each chunk's heading and text) and the reply (title and body terms per chunk).
const requests = docs.map((d, i) => ({ title: d.title, chunks: chunked[i].map((c) => [null, c.text]) }));
const replies = docs.map((d, i) => {
  const titleTerms = analyzer.analyzeForIndex(d.title);
  return chunked[i].map((c) => {
    const t = analyzer.indexTerms(d.title, {}, c.text, titleTerms);
    return [t.title, t.body];
  });
});
part(
  "analysis workers' messages (structured clone of request and reply)",
  await cpuPerChunk(() => {
    for (let from = 0; from < docs.length; from += 50) {
      deserialize(serialize({ id: from, documents: requests.slice(from, from + 50) }));
      deserialize(serialize({ id: from, terms: replies.slice(from, from + 50) }));
    }
  }),
  "copying out and back, both threads' share",
);

// 3. The write, statement by statement: each variant adds statements to the one before.
const terms = docs.map((d, i) => {
  const titleTerms = analyzer.analyzeForIndex(d.title);
  return chunked[i].map((c) => analyzer.indexTerms(d.title, {}, c.text, titleTerms));
});
const blobs = [];
for (let i = 0; i < CHUNKS; i++) {
  const v = vectors.at(i);
  blobs.push(Buffer.from(v.buffer, v.byteOffset, v.byteLength));
}
let databases = 0;
async function rawWrite(steps) {
  const path = join(work, `raw${databases++}.db`);
  const store = await SqliteStore.open("parts", path, { busyTimeoutMs: 60_000 });
  await store.setEmbeddingInfo({ provider: "bench", model: "parts", dimensions: 384 });
  await store.close();
  const db = new Database(path);
  sqliteVec.load(db);
  db.pragma("journal_mode = WAL");
  db.pragma("synchronous = NORMAL");
  db.pragma("foreign_keys = ON");
  const insertDocument = db.prepare(
    "INSERT INTO documents (id, key, source, title, content, content_hash, metadata, collection, created_at, updated_at) VALUES (?, NULL, NULL, ?, ?, ?, ?, NULL, ?, ?)",
  );
  const insertChunk = db.prepare(
    "INSERT INTO chunks (id, doc_id, idx, text, start, end, heading, line_start, line_end, input_hash, embedded) VALUES (?, ?, ?, ?, ?, ?, NULL, 1, 1, ?, ?)",
  );
  const insertVector = db.prepare("INSERT INTO chunks_vec (rowid, embedding) VALUES (?, ?)");
  const insertKeywords = db.prepare("INSERT INTO chunks_fts (rowid, title, body) VALUES (?, ?, ?)");
  const now = new Date().toISOString();
  let b = 0;
  let commit = 0;
  const before = process.cpuUsage();
  for (let from = 0; from < docs.length; from += 100) {
    db.exec("BEGIN IMMEDIATE");
    const late = [];
    for (let i = from; i < Math.min(from + 100, docs.length); i++) {
      const id = `d${databases}-${i}`;
      insertDocument.run(id, docs[i].title, docs[i].text, "0", "{}", now, now);
      if (!steps.chunks) continue;
      chunked[i].forEach((c, k) => {
        const seq = Number(insertChunk.run(`${id}-${k}`, id, k, c.text, c.start, c.end, "0", steps.vectors ? 1 : 0).lastInsertRowid);
        late.push([seq, terms[i][k], blobs[b++]]);
      });
    }
    if (steps.vectors) for (const [seq, , blob] of late) insertVector.run(BigInt(seq), blob);
    if (steps.keywords) for (const [seq, t] of late) insertKeywords.run(seq, t.title, t.body);
    const c0 = process.cpuUsage();
    db.exec("COMMIT");
    const c = process.cpuUsage(c0);
    commit += c.user + c.system;
  }
  const used = process.cpuUsage(before);
  db.close();
  return { total: (used.user + used.system) / CHUNKS, commit: commit / CHUNKS };
}
async function bestRaw(steps) {
  let best = { total: Number.POSITIVE_INFINITY, commit: 0 };
  for (let r = 0; r < REPEAT; r++) {
    const m = await rawWrite(steps);
    if (m.total < best.total) best = m;
  }
  return best;
}
const onlyDocuments = await bestRaw({});
const withChunks = await bestRaw({ chunks: true });
const withVectors = await bestRaw({ chunks: true, vectors: true });
const withKeywords = await bestRaw({ chunks: true, vectors: true, keywords: true });
part("SQL: documents rows (content ~1.8 kB each), commits included", onlyDocuments.total);
part("SQL: chunks rows (with the vector and keyword log triggers)", withChunks.total - onlyDocuments.total);
part("SQL: sqlite-vec rows (384 dims)", withVectors.total - withChunks.total);
part(
  "SQL: FTS5 rows (its share of the commit included)",
  withKeywords.total - withVectors.total,
  `commit ${withKeywords.commit.toFixed(1)} of all`,
);

// The keyword index beside the database, on the same analysed rows: adding them, then compacting.
{
  const indexRows = [];
  for (const list of terms) for (const t of list) indexRows.push({ seq: indexRows.length + 1, title: t.title, body: t.body });
  part(
    "keyword index: the analysed rows added in memory (KeywordIndex.add)",
    await cpuPerChunk(() => {
      const index = KeywordIndex.empty();
      for (const row of indexRows) index.add(row);
    }),
    "a find's catch-up, above the threshold",
  );
  const built = [];
  for (let r = 0; r < REPEAT; r++) {
    const copy = KeywordIndex.empty();
    for (const row of indexRows) copy.add(row);
    built.push(copy);
  }
  part("keyword index: those rows compacted (KeywordIndex.compact)", await cpuPerChunk((r) => built[r].compact()), "a save's compaction");
}

// 4. The store's write as a whole, and core's insertDocuments end to end.
async function storeWrite(withVectorsToo) {
  const path = join(work, `store${databases++}.db`);
  const store = await SqliteStore.open("parts", path, { busyTimeoutMs: 60_000 });
  if (withVectorsToo) await store.setEmbeddingInfo({ provider: "bench", model: "parts", dimensions: 384 });
  let v = 0;
  const writes = docs.map((d, i) => ({
    document: {
      id: `w${databases}-${i}`,
      key: null,
      source: null,
      title: d.title,
      content: d.text,
      contentHash: "0",
      metadata: {},
      collection: null,
    },
    chunks: chunked[i].map((c, k) => ({
      id: `w${databases}-${i}-${k}`,
      idx: k,
      text: c.text,
      start: c.start,
      end: c.end,
      heading: null,
      lineStart: 1,
      lineEnd: 1,
      inputHash: "0",
      terms: terms[i][k],
      ...(withVectorsToo ? { vector: vectors.at(v++) } : {}),
    })),
    upsertByKey: false,
  }));
  const before = process.cpuUsage();
  for (let from = 0; from < writes.length; from += 100) await store.writeDocuments(writes.slice(from, from + 100));
  const used = process.cpuUsage(before);
  await store.close();
  return (used.user + used.system) / CHUNKS;
}
const storeVectors = Math.min(await storeWrite(true), await storeWrite(true));
const storeKeywords = Math.min(await storeWrite(false), await storeWrite(false));
part("store.writeDocuments, precomputed vectors (batches of 100)", storeVectors, "all SQL rows, terms given");
part("store.writeDocuments, keyword-only (batches of 100)", storeKeywords);

async function endToEnd(withVectorsToo, workers) {
  const dataDir = mkdtempSync(join(work, "core-"));
  const handle = core.openDocDB({
    dataDir,
    analysisWorkers: workers,
    embedding: withVectorsToo ? new PrecomputedEmbeddings(clusteredVectors(CHUNKS + 1000, 384, { seed: 3 })) : null,
    logger: core.silentLogger(),
  });
  const db = await handle.database("parts", { create: true });
  // Warm-up (starts the workers, compiles the code) on other documents.
  const warm = [];
  for (const d of documents({ seed: 77 })) {
    if (warm.length >= 200) break;
    warm.push(d);
  }
  await db.insertDocuments(warm);
  const threadsBefore = threadTimes();
  const before = process.cpuUsage();
  const started = performance.now();
  const result = await db.insertDocuments(docs);
  const wall = (performance.now() - started) / 1000;
  const used = process.cpuUsage(before);
  const threads = threadShares(threadsBefore, threadTimes(), result.chunks, wall);
  await handle.close();
  return {
    cpu: (used.user + used.system) / result.chunks,
    perSecond: result.chunks / wall,
    docsPerSecond: docs.length / wall,
    threads,
  };
}
const ends = [];
for (const [label, withVectorsToo, workers] of [
  ["insertDocuments, precomputed vectors, no workers", true, 0],
  ["insertDocuments, precomputed vectors, analysis workers", true, undefined],
  ["insertDocuments, keyword-only, no workers", false, 0],
  ["insertDocuments, keyword-only, analysis workers", false, undefined],
]) {
  let best;
  for (let r = 0; r < REPEAT; r++) {
    const m = await endToEnd(withVectorsToo, workers);
    if (!best || m.cpu < best.cpu) best = m;
  }
  ends.push({ label, ...best });
  part(label, best.cpu, `${Math.round(best.perSecond)} chunks/s, ${Math.round(best.docsPerSecond)} docs/s wall`);
}
rmSync(work, { recursive: true, force: true });

console.log(
  `${cpus()[0]?.model ?? "unknown CPU"}, ${cpus().length} cores, Node ${process.version}, load average after the run ${loadavg()
    .map((x) => x.toFixed(1))
    .join(" ")}`,
);
console.log(
  `${TREE}: ${docs.length} documents, ${CHUNKS} chunks (${(docs.reduce((n, d) => n + d.text.length, 0) / CHUNKS).toFixed(0)} characters each)`,
);
console.table(rows);
for (const end of ends) {
  if (!end.threads || !end.label.endsWith("analysis workers")) continue;
  console.log(`Per thread, ${end.label} (the run with least CPU):`);
  console.table(end.threads);
}
const cores = availableParallelism();
const [vectorsSingle, , keywordSingle] = ends.map((e) => e.cpu);
console.log(
  `On ${cores} cores, with every part perfectly parallel, the end-to-end CPU per chunk allows at most ` +
    `${Math.round((cores * 1e6) / vectorsSingle)} chunks/s with precomputed vectors and ` +
    `${Math.round((cores * 1e6) / keywordSingle)} chunks/s (${Math.round(((cores * 1e6) / keywordSingle) * (docs.length / CHUNKS))} documents/s) keyword-only.`,
);
