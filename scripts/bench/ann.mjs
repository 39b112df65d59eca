// Approximate vector search (the HNSW index beside a SQLite database) against the exact answer:
// docdb's ANN path, docdb's exact path (`exact: true`: an in-memory SIMD scan), the in-memory
// SIMD floor (usearch `exactSearch` over a Float32Array, nothing else) and sqlite-vec's scan
// (what docdb did before), interleaved query by query so they meet the same machine state.
// Recall@10 is measured against the floor's answer (exact f32 cosine).
//
// A second part measures recall on vectors that are not the bench's clusters: random
// projections of the analysed terms (TF-IDF) of sentences of the eval corpora, indexed with the
// same library and settings docdb uses.
import { existsSync, readFileSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { clusteredVectors, queries, seeded } from "./data.mjs";
import { PrecomputedEmbeddings } from "./model.mjs";
import { serveMemory } from "./serve-memory.mjs";
import { percentile } from "./stats.mjs";

const TOP_K = 10;
const WARMUP = 5;
const requireStore = createRequire(new URL("../../packages/store-sqlite/package.json", import.meta.url));

function usearch() {
  return requireStore("usearch");
}

function openRaw(path, readonly = true) {
  const Database = requireStore("better-sqlite3");
  const db = new Database(path, { readonly });
  requireStore("sqlite-vec").load(db);
  return db;
}

function rss() {
  return process.memoryUsage().rss / 2 ** 20;
}

const recallOf = (found, truth) => found.filter((id) => truth.has(id)).length / TOP_K;
const summary = (times, recalls) => ({
  p50: percentile(times, 50),
  p95: percentile(times, 95),
  recall: recalls.length ? recalls.reduce((a, b) => a + b, 0) / recalls.length : undefined,
});

/** Every stored vector (a copy, as docdb's exact path holds them) with the chunk id of each row. */
function loadVectors(path, dims) {
  const raw = openRaw(path);
  try {
    const ids = new Map(
      raw
        .prepare("SELECT seq, id FROM chunks")
        .all()
        .map((r) => [r.seq, r.id]),
    );
    const rows = raw.prepare("SELECT rowid, embedding FROM chunks_vec").all();
    const matrix = new Float32Array(rows.length * dims);
    const chunkIds = [];
    for (const [i, r] of rows.entries()) {
      matrix.set(new Float32Array(new Uint8Array(r.embedding).buffer), i * dims);
      chunkIds.push(ids.get(r.rowid));
    }
    return { matrix, chunkIds };
  } finally {
    raw.close();
  }
}

/** Sets a per-database index setting (undefined: removes it); returns the value it had. */
function setSetting(path, key, value) {
  const raw = openRaw(path, false);
  try {
    const name = `setting:vector_index.${key}`;
    const before = raw.prepare("SELECT value FROM meta WHERE key = ?").get(name)?.value;
    if (value === undefined) raw.prepare("DELETE FROM meta WHERE key = ?").run(name);
    else
      raw
        .prepare("INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value")
        .run(name, String(value));
    return before;
  } finally {
    raw.close();
  }
}

/**
 * ANN vs exact vs floor on database `name` (already filled with clustered vectors). Builds the
 * index through `rebuildIndex` (timed), then sweeps ef_search.
 */
export async function annLatency(core, { dataDir, name, dims, seed, count, efs, reuseIndex = false }) {
  const u = usearch();
  const path = join(dataDir, `${name}.db`);
  const texts = queries(count + WARMUP, { seed: seed + 1 });
  const queryVectors = clusteredVectors(texts.length, dims, { seed: seed + 2 });
  const byText = new Map(texts.map((t, i) => [t, queryVectors.at(i)]));
  const model = new PrecomputedEmbeddings({ dims, count: 0, at: () => undefined }, byText);
  model.modelId = `clustered-${dims}`;
  const { matrix, chunkIds } = loadVectors(path, dims);
  const floor = (t) => {
    const m = u.exactSearch(matrix, byText.get(t).slice(), dims, TOP_K, "cos", 1);
    return Array.from(m.keys, (k) => chunkIds[Number(k)]);
  };
  const truth = new Map(texts.map((t) => [t, new Set(floor(t))]));
  const raw = openRaw(path);
  const knn = raw.prepare("SELECT rowid, distance FROM chunks_vec WHERE embedding MATCH ? AND k = ? ORDER BY distance");
  const blob = (t) => {
    const v = byText.get(t);
    return Buffer.from(v.buffer, v.byteOffset, v.byteLength);
  };

  const open = async () => {
    const docdb = core.openDocDB({ dataDir, embedding: model, logger: core.silentLogger() });
    return { docdb, db: await docdb.database(name) };
  };
  const ids = (found) => found.results.map((r) => r.chunk_id);

  const result = { vectors: chunkIds.length };
  let { docdb, db } = await open();
  try {
    const rssBefore = rss();
    const started = performance.now();
    const kept = reuseIndex ? await db.indexStatus() : null;
    if (kept?.state === "ready") {
      // --reuse-index: the index file from an earlier run is loaded, not built again.
      await db.findSimilar({ query: texts[0], mode: "vector", top_k: TOP_K });
      result.state = kept.state;
      result.build = {
        reused: true,
        loadSeconds: (performance.now() - started) / 1000,
        bytes: kept.bytes,
        settings: kept.settings,
        rssMb: rss(),
        rssGrowthMb: rss() - rssBefore,
      };
    } else {
      const cpu = process.cpuUsage();
      const built = await db.rebuildIndex({});
      const used = process.cpuUsage(cpu);
      // "exact" when the database is below the index threshold: findSimilar then scans with sqlite-vec.
      result.state = built.state;
      result.build = {
        seconds: (performance.now() - started) / 1000,
        // Every thread's CPU time (the build inserts on all cores): steadier than wall time on a shared machine.
        cpuSeconds: (used.user + used.system) / 1e6,
        bytes: built.bytes,
        settings: built.settings,
        rssMb: rss(),
        rssGrowthMb: rss() - rssBefore,
      };
    }
    const operations = {
      // merge: false — one result per chunk, so recall@10 counts ten chunks (adjacent chunks of
      // a document would otherwise merge into one passage and look like a miss).
      ann: async (t) => ids(await db.findSimilar({ query: t, mode: "vector", top_k: TOP_K, merge: false })),
      exact: async (t) => ids(await db.findSimilar({ query: t, mode: "vector", top_k: TOP_K, exact: true, merge: false })),
      floor: async (t) => floor(t),
      sqliteVec: async (t) => knn.all(blob(t), TOP_K),
    };
    const measured = texts.slice(WARMUP);
    const names = Object.keys(operations);
    for (const t of texts.slice(0, WARMUP)) for (const n of names) await operations[n](t);
    const times = Object.fromEntries(names.map((n) => [n, []]));
    const recalls = { ann: [], exact: [] };
    for (const [i, t] of measured.entries()) {
      for (let j = 0; j < names.length; j++) {
        const n = names[(i + j) % names.length];
        const t0 = performance.now();
        const found = await operations[n](t);
        times[n].push(performance.now() - t0);
        if (n in recalls) recalls[n].push(recallOf(found, truth.get(t)));
      }
    }
    result.paths = Object.fromEntries(names.map((n) => [n, summary(times[n], recalls[n] ?? [])]));
    result.searchWidth = (await db.indexStatus())?.searchWidth;
    result.rssMb = rss();
    await docdb.close();
    // docdb's own serving memory, in a fresh process (this one holds the exact answers too).
    result.serving = serveMemory({ dataDir, name, dims, seed, count });

    // ef_search sweep: a per-database setting; the index file is reused, not rebuilt.
    result.sweep = [];
    // The database's own setting (usually none: docdb then widens the search past 250k vectors).
    const ownSetting = setSetting(path, "expansion_search", efs[0]);
    for (const ef of efs) {
      setSetting(path, "expansion_search", ef);
      ({ docdb, db } = await open());
      for (const t of texts.slice(0, WARMUP)) await operations.ann(t);
      const annTimes = [];
      const floorTimes = [];
      const annRecalls = [];
      for (const [i, t] of measured.entries()) {
        const order = i % 2 === 0 ? ["ann", "floor"] : ["floor", "ann"];
        for (const n of order) {
          const t0 = performance.now();
          const found = n === "ann" ? await operations.ann(t) : floor(t);
          (n === "ann" ? annTimes : floorTimes).push(performance.now() - t0);
          if (n === "ann") annRecalls.push(recallOf(found, truth.get(t)));
        }
      }
      result.sweep.push({ ef, ...summary(annTimes, annRecalls), floorP50: percentile(floorTimes, 50) });
      await docdb.close();
    }
    setSetting(path, "expansion_search", ownSetting);
    ({ docdb, db } = await open());
  } finally {
    raw.close();
    await docdb.close();
  }
  return result;
}

// --- Vectors from text: random projections of TF-IDF over analysed terms ----------------------

function hashString(s) {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h;
}

function gaussian(random) {
  const u = Math.max(random(), 1e-12);
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * random());
}

function readJsonl(file) {
  return readFileSync(file, "utf8")
    .split("\n")
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l));
}

/**
 * Sentences of the eval corpora (Japanese JaQuAD, English SciFact) as `dims`-dimension unit
 * vectors: each analysed term gets a fixed Gaussian direction, a sentence is the TF-IDF-weighted
 * sum. Unlike the bench's 64 clusters this is what lexical text looks like to HNSW: many
 * directions, neighbourhoods of very different density. Queries: the corpora's questions.
 */
export async function textVectors({ evalDir, dims, limit, queryCount }) {
  const analyzer = await import(new URL("../../packages/analyzer/dist/index.js", import.meta.url).href);
  const sentences = [];
  for (const corpus of ["jaquad", "scifact"]) {
    const file = join(evalDir, corpus, "corpus.jsonl");
    if (!existsSync(file)) continue;
    for (const doc of readJsonl(file)) {
      for (const s of `${doc.title ?? ""}\n${doc.text}`.split(/(?<=[。．！？!?])|(?<=\.)\s+|\n+/)) {
        if (s.trim().length >= 12) sentences.push(s.trim());
      }
    }
  }
  const queryTexts = [];
  for (const corpus of ["jaquad", "scifact"]) {
    const file = join(evalDir, corpus, "queries.jsonl");
    if (existsSync(file)) for (const q of readJsonl(file)) queryTexts.push(q.text);
  }
  if (sentences.length === 0 || queryTexts.length === 0) return undefined;
  // An even spread over both corpora, same order every run.
  const pick = (list, n, seed) => {
    const random = seeded(seed);
    const copy = [...list];
    for (let i = copy.length - 1; i > 0; i--) {
      const j = Math.floor(random() * (i + 1));
      [copy[i], copy[j]] = [copy[j], copy[i]];
    }
    return copy.slice(0, n);
  };
  const chosen = pick(sentences, limit, 17);
  const terms = chosen.map((s) => analyzer.analyzeForIndex(s).split(" ").filter(Boolean));
  const df = new Map();
  for (const ts of terms) for (const t of new Set(ts)) df.set(t, (df.get(t) ?? 0) + 1);
  const directions = new Map();
  const direction = (term) => {
    let d = directions.get(term);
    if (!d) {
      const random = seeded(hashString(term));
      d = Float32Array.from({ length: dims }, () => gaussian(random));
      directions.set(term, d);
    }
    return d;
  };
  const n = chosen.length;
  const embed = (ts, out, offset) => {
    const tf = new Map();
    for (const t of ts) tf.set(t, (tf.get(t) ?? 0) + 1);
    let any = false;
    for (const [t, f] of tf) {
      const idf = Math.log((n + 1) / ((df.get(t) ?? 0) + 1));
      if (idf <= 0 || !df.has(t)) continue;
      const w = (1 + Math.log(f)) * idf;
      const d = direction(t);
      for (let i = 0; i < dims; i++) out[offset + i] += w * d[i];
      any = true;
    }
    let norm = 0;
    for (let i = 0; i < dims; i++) norm += out[offset + i] ** 2;
    norm = Math.sqrt(norm) || 1;
    for (let i = 0; i < dims; i++) out[offset + i] /= norm;
    return any;
  };
  const data = new Float32Array(n * dims);
  for (const [i, ts] of terms.entries()) embed(ts, data, i * dims);
  const queryData = [];
  for (const q of pick(queryTexts, queryTexts.length, 23)) {
    const v = new Float32Array(dims);
    if (embed(analyzer.analyzeForIndex(q).split(" ").filter(Boolean), v, 0)) queryData.push(v);
    if (queryData.length >= queryCount) break;
  }
  return { count: n, dims, data, queries: queryData };
}

/**
 * Recall and latency of an HNSW index over text-derived vectors, built with docdb's library and
 * settings (`settings` from the database's status), for each ef_search in `efs`.
 */
export async function textRecall({ evalDir, dims, limit, queryCount, settings, efs, tmpFile }) {
  const set = await textVectors({ evalDir, dims, limit, queryCount });
  if (!set) return { skipped: `no eval corpora under ${evalDir}` };
  const u = usearch();
  const truth = set.queries.map((q) => new Set(Array.from(u.exactSearch(set.data, q.slice(), dims, TOP_K, "cos", 1).keys, Number)));
  const configs = [settings, { ...settings, connectivity: 32, expansionAdd: 256 }];
  const out = { vectors: set.count, queries: set.queries.length, builds: [] };
  for (const s of configs) {
    const make = (ef) =>
      new u.Index({
        dimensions: dims,
        metric: "cos",
        quantization: s.quantization,
        connectivity: s.connectivity,
        expansion_add: s.expansionAdd,
        expansion_search: ef,
        multi: false,
      });
    const index = make(s.expansionSearch);
    const keys = new BigUint64Array(set.count);
    for (let i = 0; i < set.count; i++) keys[i] = BigInt(i);
    const started = performance.now();
    for (let i = 0; i < set.count; i += 8192) {
      const end = Math.min(set.count, i + 8192);
      index.add(keys.slice(i, end), set.data.slice(i * dims, end * dims), 0);
    }
    const seconds = (performance.now() - started) / 1000;
    index.save(tmpFile);
    const bytes = statSync(tmpFile).size;
    const sweep = [];
    for (const ef of efs) {
      const view = make(ef);
      view.load(tmpFile);
      for (const q of set.queries.slice(0, WARMUP)) view.search(q.slice(), TOP_K, 1);
      const times = [];
      const recalls = [];
      for (const [i, q] of set.queries.entries()) {
        const t0 = performance.now();
        const m = view.search(q.slice(), TOP_K, 1);
        times.push(performance.now() - t0);
        recalls.push(recallOf(Array.from(m.keys, Number), truth[i]));
      }
      sweep.push({ ef, ...summary(times, recalls) });
    }
    out.builds.push({ settings: s, seconds, bytes, sweep });
  }
  return out;
}
