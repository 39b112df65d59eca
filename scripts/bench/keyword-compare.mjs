// The keyword comparison of issue 26 (`pnpm bench --keyword-compare`): docdb's keyword and hybrid
// find beside LanceDB's full-text index and raw SQLite FTS5 on the eval sets repeated, with the
// same questions asked of every engine in a rotating order, hit@10 per language and ingest rates.
import { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { loadavg } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { keywordIndexReady } from "./keyword-ready.mjs";
import { percentile } from "./stats.mjs";

const TOP_K = 10;
const WARMUP = 5;
const DIMS = 384;
const BATCH = 100;
/** LanceDB's full-text index: ICU word segmentation (built in: no model to download, unlike
 * lindera/jieba) for the Japanese, English stemming and stop words as LanceDB's defaults do. */
export const LANCE_FTS = {
  baseTokenizer: "icu",
  language: "English",
  stem: true,
  removeStopWords: true,
  lowercase: true,
  asciiFolding: true,
  withPosition: false,
};

const readJsonl = (file) =>
  readFileSync(file, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line));

/** scifact + jaquad documents, and each set's first `count` questions with their relevant document ids. */
export function loadEval(evalDir, count) {
  const corpus = [...readJsonl(join(evalDir, "scifact/corpus.jsonl")), ...readJsonl(join(evalDir, "jaquad/corpus.jsonl"))];
  const questions = [];
  for (const [set, lang] of [
    ["scifact", "en"],
    ["jaquad", "ja"],
  ]) {
    const relevant = new Map();
    for (const line of readFileSync(join(evalDir, set, "qrels.tsv"), "utf8")
      .split("\n")
      .slice(1)) {
      const [query, doc, score] = line.split("\t");
      if (!query || Number(score) <= 0) continue;
      if (!relevant.has(query)) relevant.set(query, new Set());
      relevant.get(query).add(doc);
    }
    const asked = readJsonl(join(evalDir, set, "queries.jsonl")).filter((q) => relevant.has(q.id));
    for (const q of asked.slice(0, count)) questions.push({ text: q.text, lang, relevant: relevant.get(q.id) });
  }
  return { corpus, questions };
}

/** 1 when any of the first ten document ids found (copies of one document share its id) is relevant. */
export function hitAt10(found, relevant) {
  return found.slice(0, TOP_K).some((id) => relevant.has(id)) ? 1 : 0;
}

/** Trigram-hash unit vectors computed in this process (text-derived, so hybrid fuses two real rankings). */
export class TrigramEmbeddings {
  constructor() {
    this.provider = "bench";
    this.modelId = `trigram-${DIMS}`;
    this.dimensions = DIMS;
    this.maxBatchSize = 256;
    this.supportsParallelCalls = false;
  }

  async embed(texts) {
    return texts.map((text) => {
      const v = new Float32Array(DIMS);
      const s = ` ${text.toLowerCase()} `;
      for (let i = 0; i + 3 <= s.length; i++) {
        let h = 0x811c9dc5;
        for (let j = i; j < i + 3; j++) h = Math.imul(h ^ s.charCodeAt(j), 0x01000193);
        v[(h >>> 0) % DIMS] += h & 1 ? 1.5 : 0.5;
      }
      let norm = 0;
      for (const x of v) norm += x * x;
      norm = Math.sqrt(norm) || 1;
      for (let i = 0; i < DIMS; i++) v[i] /= norm;
      return v;
    });
  }
}

/** The n-th document of the repeated corpus: the copy number makes each source unique. */
function* documentsOf(corpus, total) {
  for (let n = 0; n < total; n++) {
    const c = corpus[n % corpus.length];
    yield { id: c.id, title: c.title || "", text: c.text, source: `r${Math.floor(n / corpus.length)}/${c.id}` };
  }
}

function batches(iterable, size) {
  const out = [];
  let batch = [];
  for (const item of iterable) {
    batch.push(item);
    if (batch.length === size) {
      out.push(batch);
      batch = [];
    }
  }
  if (batch.length > 0) out.push(batch);
  return out;
}

const timed = async (work) => {
  const started = performance.now();
  const cpu = process.cpuUsage();
  await work();
  const used = process.cpuUsage(cpu);
  return { seconds: (performance.now() - started) / 1000, cpuSeconds: (used.user + used.system) / 1e6 };
};

/** docdb: keyword-only ingest (timed), then vectors for hybrid through the re-embed path and the HNSW index. */
async function buildDocdb(core, { dir, corpus, total, log }) {
  const docdbDir = join(dir, "docdb");
  mkdirSync(docdbDir, { recursive: true });
  const steps = {};
  const plain = core.openDocDB({ dataDir: docdbDir, store: docdbDir, embedding: null, logger: core.silentLogger() });
  try {
    const db = await plain.database("kw", { create: true });
    log(`docdb: ingest ${total} documents, keyword only`);
    steps.ingest = await timed(async () => {
      for (const batch of batches(documentsOf(corpus, total), BATCH)) {
        const r = await db.insertDocuments(batch.map(({ title, text, source }) => ({ title: title || undefined, text, source })));
        if (r.failed > 0) throw new Error(`docdb: ${r.failed} documents failed to insert`);
      }
    });
    steps.chunks = (await db.status()).chunks;
  } finally {
    await plain.close();
  }
  // The keyword-only file is kept: a later run can compare keyword ingest without vectors in the way.
  copyFileSync(join(docdbDir, "kw.db"), join(docdbDir, "kwv.db"));
  const embedded = core.openDocDB({ dataDir: docdbDir, store: docdbDir, embedding: new TrigramEmbeddings(), logger: core.silentLogger() });
  try {
    const db = await embedded.database("kwv");
    log(`docdb: vectors for ${steps.chunks} chunks (trigram hashes, ${DIMS} dims) and the HNSW index`);
    steps.reembed = await timed(async () => {
      const r = await db.reembed({ batch_size: 256 });
      if (r.remaining !== 0) throw new Error(`docdb: ${r.remaining} chunks left without vectors`);
    });
    steps.index = await timed(() => db.rebuildIndex({}));
  } finally {
    await embedded.close();
  }
  return steps;
}

async function buildLance(lancedb, { dir, corpus, total, log }) {
  const db = await lancedb.connect(join(dir, "lance"));
  log(`LanceDB: ingest ${total} documents and a full-text index (${LANCE_FTS.baseTokenizer} tokenizer)`);
  let table;
  const steps = {};
  steps.ingest = await timed(async () => {
    for (const batch of batches(documentsOf(corpus, total), 10_000)) {
      const rows = batch.map(({ id, title, text }) => ({ doc: id, text: title ? `${title}\n${text}` : text }));
      if (table) await table.add(rows);
      else table = await db.createTable("docs", rows, { mode: "overwrite" });
    }
    await table.createIndex("text", { config: lancedb.Index.fts(LANCE_FTS), replace: true });
  });
  table.close();
  db.close();
  return steps;
}

function buildFts5(Database, { dir, corpus, total, log }) {
  const raw = new Database(join(dir, "fts5.db"));
  log(`SQLite FTS5: ingest ${total} documents (unicode61 over the raw text)`);
  const started = performance.now();
  const cpu = process.cpuUsage();
  raw.exec("DROP TABLE IF EXISTS docs; CREATE VIRTUAL TABLE docs USING fts5(title, text, doc UNINDEXED, tokenize = 'unicode61')");
  const insert = raw.prepare("INSERT INTO docs (title, text, doc) VALUES (?, ?, ?)");
  const many = raw.transaction((rows) => {
    for (const r of rows) insert.run(r.title, r.text, r.id);
  });
  for (const batch of batches(documentsOf(corpus, total), 1000)) many(batch);
  raw.close();
  const used = process.cpuUsage(cpu);
  return { ingest: { seconds: (performance.now() - started) / 1000, cpuSeconds: (used.user + used.system) / 1e6 } };
}

/** FTS5 MATCH text: every word of the question (unicode61's letters and digits), quoted, OR-ed. */
export function fts5Match(question) {
  const words = question.match(/[\p{L}\p{N}\p{M}]+/gu) ?? [];
  return words.map((w) => `"${w}"`).join(" OR ");
}

/** A docdb build's finders (keyword on the keyword-only file, hybrid on the one with vectors). */
async function docdbEngines(tree, label, dir) {
  const core = await import(pathToFileURL(join(tree, "packages/core/dist/index.js")).href);
  const docdbDir = join(dir, "docdb");
  const docdb = core.openDocDB({ dataDir: docdbDir, store: docdbDir, embedding: new TrigramEmbeddings(), logger: core.silentLogger() });
  const plain = await docdb.database("kw");
  const vectors = await docdb.database("kwv");
  // A build with a keyword index beside the database times it, not FTS5 while it is being built.
  for (const db of [plain, vectors]) await keywordIndexReady(db);
  const idOf = (r) => r.source.slice(r.source.indexOf("/") + 1);
  const find = (db, mode) => async (text) => (await db.findSimilar({ query: text, mode, top_k: TOP_K })).results.map(idOf);
  return {
    engines: [
      { name: `docdb keyword${label}`, find: find(plain, "keyword") },
      { name: `docdb hybrid${label}`, find: find(vectors, "hybrid") },
    ],
    close: () => docdb.close(),
  };
}

/**
 * Builds what `dataDir` does not hold yet (kept for the next run), then asks every question of
 * every engine in a rotating order. `other` is another built docdb checkout measured in the same run.
 */
export async function keywordCompare({ root, evalDir, dataDir, documents, questions: count, other, log }) {
  const core = await import(pathToFileURL(join(root, "packages/core/dist/index.js")).href);
  const lancedb = await import("@lancedb/lancedb");
  const Database = createRequire(join(root, "packages/store-sqlite/package.json"))("better-sqlite3");
  const { corpus, questions } = loadEval(evalDir, count);
  const buildFile = join(dataDir, "keyword-compare-build.json");
  const built = existsSync(buildFile) ? JSON.parse(readFileSync(buildFile, "utf8")) : {};
  if (built.documents !== undefined && built.documents !== documents) {
    throw new Error(`${dataDir} holds ${built.documents} documents, not ${documents}: give another --data-dir or the same --documents`);
  }
  built.documents = documents;
  const context = { dir: dataDir, corpus, total: documents, log };
  const builders = {
    docdb: () => buildDocdb(core, context),
    lance: () => buildLance(lancedb, context),
    fts5: async () => buildFts5(Database, context),
  };
  const reused = [];
  for (const [name, build] of Object.entries(builders)) {
    if (built[name]) {
      reused.push(name);
      continue;
    }
    built[name] = { ...(await build()), date: new Date().toISOString() };
    writeFileSync(buildFile, `${JSON.stringify(built, null, 2)}\n`);
  }
  if (reused.length > 0) log(`reusing ${reused.join(", ")} in ${dataDir} (built earlier; their ingest figures are from then)`);

  const mine = await docdbEngines(root, other ? " (this build)" : "", dataDir);
  const theirs = other ? await docdbEngines(other, " (other build)", dataDir) : undefined;
  const lance = await lancedb.connect(join(dataDir, "lance"));
  const table = await lance.openTable("docs");
  const raw = new Database(join(dataDir, "fts5.db"), { readonly: true });
  const fts5 = raw.prepare("SELECT doc FROM docs WHERE docs MATCH ? ORDER BY bm25(docs, 2.0, 1.0) LIMIT 10");
  const engines = [
    ...mine.engines,
    ...(theirs?.engines ?? []),
    {
      name: "LanceDB full-text",
      find: async (text) => (await table.query().fullTextSearch(text).select(["doc", "_score"]).limit(TOP_K).toArray()).map((r) => r.doc),
    },
    {
      name: "SQLite FTS5 unicode61, raw",
      find: async (text) => {
        const match = fts5Match(text);
        return match ? fts5.all(match).map((r) => r.doc) : [];
      },
    },
  ];
  const loads = [loadavg()];
  try {
    log(`${questions.length} questions × ${engines.length} engines, interleaved (${WARMUP} warm-up questions first)`);
    for (const q of questions.slice(0, WARMUP)) for (const e of engines) await e.find(q.text);
    const runs = engines.map(() => ({ times: [], cpu: [], hits: { en: [], ja: [] } }));
    for (const [i, q] of questions.entries()) {
      for (let j = 0; j < engines.length; j++) {
        const k = (i + j) % engines.length;
        const cpu = process.cpuUsage();
        const started = performance.now();
        const found = await engines[k].find(q.text);
        runs[k].times.push(performance.now() - started);
        const used = process.cpuUsage(cpu);
        runs[k].cpu.push((used.user + used.system) / 1000);
        runs[k].hits[q.lang].push(hitAt10(found, q.relevant));
      }
      if (i % 50 === 49) loads.push(loadavg());
    }
    const mean = (a) => (a.length ? a.reduce((x, y) => x + y, 0) / a.length : undefined);
    const ingestOf = (step) => step && { documentsPerSecond: documents / step.ingest.seconds, ...step.ingest };
    // The docdb files were written by this build: the other build's ingest is bench-compare.mjs's to measure.
    const ingestFor = (name) => (name.startsWith("docdb keyword") && !name.endsWith("(other build)") ? ingestOf(built.docdb) : undefined);
    return {
      documents,
      chunks: built.docdb.chunks,
      questions: { en: questions.filter((q) => q.lang === "en").length, ja: questions.filter((q) => q.lang === "ja").length },
      lanceFts: LANCE_FTS,
      other,
      reused,
      loadAverage: loads,
      docdbVectors: { reembed: built.docdb.reembed, index: built.docdb.index },
      engines: engines.map((e, k) => ({
        name: e.name,
        p50: percentile(runs[k].times, 50),
        p95: percentile(runs[k].times, 95),
        // This process's CPU (every thread: LanceDB's searches run on its own pool) a find, in ms.
        cpu: { p50: percentile(runs[k].cpu, 50), mean: mean(runs[k].cpu) },
        hitAt10: { en: mean(runs[k].hits.en), ja: mean(runs[k].hits.ja) },
        ingest: e.name.startsWith("LanceDB")
          ? ingestOf(built.lance)
          : e.name.startsWith("SQLite")
            ? ingestOf(built.fts5)
            : ingestFor(e.name),
      })),
    };
  } finally {
    raw.close();
    table.close();
    lance.close();
    await mine.close();
    await theirs?.close();
  }
}

/** The comparison as a Markdown table (what BENCHMARKS.md quotes). */
export function renderKeywordCompare(r) {
  const load = r.loadAverage.map((l) => l[0].toFixed(1)).join(", ");
  const rows = r.engines.map((e) => {
    const n = (x) => Math.round(x).toLocaleString("en-US");
    const ingest = e.ingest ? `${n(e.ingest.documentsPerSecond)} (${n(r.documents / e.ingest.cpuSeconds)})` : "";
    const cpu = `${e.cpu.p50.toFixed(1)} / ${e.cpu.mean.toFixed(1)}`;
    return `| ${e.name} | ${e.p50.toFixed(1)} / ${e.p95.toFixed(1)} | ${cpu} | ${e.hitAt10.en.toFixed(2)} / ${e.hitAt10.ja.toFixed(2)} | ${ingest} |`;
  });
  return [
    `${r.documents.toLocaleString("en-US")} documents (scifact + jaquad repeated; docdb: ${r.chunks.toLocaleString("en-US")} chunks), ` +
      `${r.questions.en} English + ${r.questions.ja} Japanese questions, every engine asked each in a rotating order.`,
    `Load average (1 min) during the queries: ${load}.${r.reused.length ? ` Reused from the data dir: ${r.reused.join(", ")}.` : ""}`,
    "",
    "| engine | find p50 / p95 ms | CPU ms a find, p50 / mean | hit@10 EN / JA | ingest docs/s (per CPU-second) |",
    "|---|---|---|---|---|",
    ...rows,
    "",
  ].join("\n");
}
