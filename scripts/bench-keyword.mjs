#!/usr/bin/env node
// Keyword (and hybrid) find at scale on the given eval sets replicated: build a kept database,
// time the phases of one keyword find, and compare two builds side by side (issue 26).
//
//   node scripts/bench-keyword.mjs build   --data-dir DIR [--documents 98000] [--vectors]
//   node scripts/bench-keyword.mjs profile --data-dir DIR [--queries 100]
//   node scripts/bench-keyword.mjs compare --data-dir DIR --other <checkout, built> [--queries 100] [--mode keyword|hybrid] [--provider-ms 8]
//   node scripts/bench-keyword.mjs verify  --data-dir DIR [--queries 25]
//   node --expose-gc scripts/bench-keyword.mjs index --data-dir DIR [--queries 100]
//
// `verify` checks what a pruned keyword index must reproduce: the BM25 of an OR query is the
// in-order sum of each phrase's own bm25(), and one term's bm25() follows from the index's
// statistics (rows, token totals, document sizes, weighted term counts), bit for bit.
//
// Documents are scifact + jaquad (../shared/eval) repeated until --documents; queries are the
// first --queries of each set. --vectors (and --mode hybrid) embed through an OpenAI-compatible
// server started as a child process (trigram-hash vectors, 384 dimensions); a one-text call
// (a query) also burns --provider-ms of CPU there, as a small model on another core would.
import { fork } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import { createRequire } from "node:module";
import { loadavg } from "node:os";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    "data-dir": { type: "string" },
    documents: { type: "string", default: "98000" },
    queries: { type: "string", default: "100" },
    other: { type: "string" },
    mode: { type: "string", default: "keyword" },
    vectors: { type: "boolean", default: false },
    "provider-ms": { type: "string", default: "8" },
    "eval-dir": { type: "string", default: "../shared/eval" },
    serve: { type: "string" },
  },
});
const THIS = resolve(new URL("..", import.meta.url).pathname);
const evalDir = resolve(THIS, values["eval-dir"]);
const readJsonl = (f) =>
  readFileSync(f, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l));
const coreOf = (tree) => import(pathToFileURL(`${tree}/packages/core/dist/index.js`).href);
const pct = (a, p) => [...a].sort((x, y) => x - y)[Math.min(a.length - 1, Math.floor(p * a.length))];
const ms = (a) => `p50 ${pct(a, 0.5).toFixed(1)} / p95 ${pct(a, 0.95).toFixed(1)} ms`;

/** The child process: an OpenAI-compatible embedding server on a free port (printed to the parent). */
function serve(busyMs) {
  const vector = (text, d) => {
    const v = new Array(d).fill(0);
    const s = ` ${text.toLowerCase()} `;
    for (let i = 0; i + 3 <= s.length; i++) {
      let h = 2166136261;
      for (let j = i; j < i + 3; j++) h = Math.imul(h ^ s.charCodeAt(j), 16777619);
      v[(h >>> 0) % d] += h & 1 ? 1.5 : 0.5;
    }
    const n = Math.sqrt(v.reduce((a, x) => a + x * x, 0)) || 1;
    return v.map((x) => x / n);
  };
  const server = createServer(async (req, res) => {
    const parts = [];
    for await (const p of req) parts.push(p);
    const body = JSON.parse(Buffer.concat(parts).toString());
    const input = Array.isArray(body.input) ? body.input : [body.input];
    if (input.length === 1) for (const end = performance.now() + busyMs; performance.now() < end; );
    const data = input.map((t, index) => ({ object: "embedding", index, embedding: vector(t, body.dimensions ?? 384) }));
    res.writeHead(200, { "content-type": "application/json" });
    res.end(JSON.stringify({ object: "list", model: body.model, data, usage: { prompt_tokens: 1, total_tokens: 1 } }));
  });
  server.listen(0, "127.0.0.1", () => process.send?.(server.address().port));
}

async function startProvider() {
  const child = fork(new URL(import.meta.url).pathname, ["--serve", values["provider-ms"]]);
  const port = await new Promise((ok) => child.once("message", ok));
  return { embedding: { provider: "openai", apiKey: "bench", baseURL: `http://127.0.0.1:${port}/v1`, dimensions: 384 }, child };
}

async function build(dir) {
  const core = await coreOf(THIS);
  const corpus = [...readJsonl(`${evalDir}/scifact/corpus.jsonl`), ...readJsonl(`${evalDir}/jaquad/corpus.jsonl`)];
  const provider = values.vectors ? await startProvider() : undefined;
  const docdb = core.openDocDB({ dataDir: dir, store: dir, embedding: provider?.embedding ?? null, logger: core.silentLogger() });
  try {
    const db = await docdb.database("kw", { create: true });
    const total = Number(values.documents);
    const started = performance.now();
    for (let done = 0; done < total; ) {
      const batch = [];
      for (; batch.length < 100 && done < total; done++) {
        const c = corpus[done % corpus.length];
        batch.push({ title: c.title || undefined, text: c.text, source: `r${Math.floor(done / corpus.length)}/${c.id}` });
      }
      const r = await db.insertDocuments(batch);
      if (r.failed > 0 || (values.vectors && r.pending > 0)) throw new Error(`${r.failed} failed, ${r.pending} not embedded`);
    }
    if (values.vectors) await db.rebuildIndex({});
    console.log(`${total} documents in ${((performance.now() - started) / 1000).toFixed(0)} s; ${JSON.stringify(await db.status())}`);
  } finally {
    await docdb.close();
    provider?.child.kill();
  }
}

function questions() {
  const n = Number(values.queries);
  return [...readJsonl(`${evalDir}/scifact/queries.jsonl`).slice(0, n), ...readJsonl(`${evalDir}/jaquad/queries.jsonl`).slice(0, n)].map(
    (q) => q.text,
  );
}

/** The statements keyword.ts runs, timed apart, and the matches each query scores. */
async function profile(dir) {
  const analyzer = await import(pathToFileURL(`${THIS}/packages/analyzer/dist/index.js`).href);
  const Database = createRequire(`${THIS}/packages/store-sqlite/package.json`)("better-sqlite3");
  const raw = new Database(`${dir}/kw.db`, { readonly: true });
  const match = (seqs) => seqs.map((s) => `"${s.join(" ").replaceAll('"', '""')}"`).join(" OR ");
  const bm25 = "bm25(chunks_fts, 2.0, 1.0)";
  const statements = {
    "bag-of-words BM25, top 100": raw.prepare(`SELECT rowid, ${bm25} AS r FROM chunks_fts WHERE chunks_fts MATCH ? ORDER BY r LIMIT 100`),
    "same matches, counted only": raw.prepare("SELECT count(*) AS n FROM chunks_fts WHERE chunks_fts MATCH ?"),
    "phrase BM25 (word-order bonus)": raw.prepare(`SELECT rowid, ${bm25} AS r FROM chunks_fts WHERE chunks_fts MATCH ?`),
  };
  const core = await coreOf(THIS);
  const docdb = core.openDocDB({ dataDir: dir, store: dir, embedding: null, logger: core.silentLogger() });
  const db = await docdb.database("kw");
  const times = { analyse: [], find: [], matches: [] };
  for (const name of Object.keys(statements)) times[name] = [];
  for (const text of questions()) {
    let t = performance.now();
    const query = analyzer.buildKeywordQuery(text);
    times.analyse.push(performance.now() - t);
    if (!query) continue;
    for (const [name, statement] of Object.entries(statements)) {
      const phrase = name.startsWith("phrase");
      if (phrase && query.phrases.length === 0) continue;
      t = performance.now();
      const rows = statement.all(match(phrase ? query.phrases : query.any));
      times[name].push(performance.now() - t);
      if (name.startsWith("same")) times.matches.push(rows[0].n);
    }
    t = performance.now();
    await db.findSimilar({ query: text, mode: "keyword", top_k: 10 });
    times.find.push(performance.now() - t);
  }
  for (const [name, list] of Object.entries(times)) console.log(`${name}: ${name === "matches" ? `median ${pct(list, 0.5)}` : ms(list)}`);
  console.log(
    `load average ${loadavg()
      .map((x) => x.toFixed(1))
      .join(" ")}`,
  );
  await docdb.close();
}

/** SQLite's big-endian varints (FTS5's averages and document-size records). */
function varints(buffer) {
  const out = [];
  for (let i = 0; i < buffer.length; ) {
    let value = 0;
    for (let n = 1; ; n++) {
      const byte = buffer[i++];
      if (n === 9) {
        value = value * 256 + byte;
        break;
      }
      value = value * 128 + (byte & 0x7f);
      if (!(byte & 0x80)) break;
    }
    out.push(value);
  }
  return out;
}

async function verify(dir) {
  const analyzer = await import(pathToFileURL(`${THIS}/packages/analyzer/dist/index.js`).href);
  const Database = createRequire(`${THIS}/packages/store-sqlite/package.json`)("better-sqlite3");
  const raw = new Database(`${dir}/kw.db`, { readonly: true });
  raw.exec("CREATE VIRTUAL TABLE temp.instances USING fts5vocab(main, chunks_fts, instance)");
  const quote = (s) => `"${s.join(" ").replaceAll('"', '""')}"`;
  const scored = (limit) =>
    raw.prepare(`SELECT rowid, bm25(chunks_fts, 2.0, 1.0) AS r FROM chunks_fts WHERE chunks_fts MATCH ? ORDER BY r ${limit}`);
  const [top, all] = [scored("LIMIT 100"), scored("")];
  const count = raw.prepare("SELECT count(*) AS n FROM chunks_fts WHERE chunks_fts MATCH ?");
  const instances = raw.prepare("SELECT col, count(*) AS n FROM temp.instances WHERE term = ? AND doc = ? GROUP BY col");
  const docsize = raw.prepare("SELECT sz FROM chunks_fts_docsize WHERE id = ?");
  // The C library's log, as FTS5's: V8's Math.log differs from it in the last bit now and then.
  const ln = raw.prepare("SELECT ln(?) AS v");
  const [rows, ...columns] = varints(raw.prepare("SELECT block FROM chunks_fts_data WHERE id = 1").get().block);
  const avgdl = columns.reduce((a, x) => a + x, 0) / rows;
  const weight = { title: 2.0, body: 1.0 };
  const tally = { sums: 0, sumsExact: 0, terms: 0, termsExact: 0 };
  for (const text of questions()) {
    const query = analyzer.buildKeywordQuery(text);
    if (!query) continue;
    const parts = query.any.map((s) => new Map(all.all(quote(s)).map((r) => [r.rowid, -r.r])));
    for (const r of top.all(query.any.map(quote).join(" OR "))) {
      let sum = 0.0;
      for (const part of parts) sum += part.get(r.rowid) ?? 0;
      tally.sums++;
      if (sum === -r.r) tally.sumsExact++;
    }
    // One FTS5 token: the analyser's terms that unicode61 splits again ("1,000") are phrases.
    for (const [term] of query.any.filter((s) => s.length === 1 && /^[\p{L}\p{N}_]+$/u.test(s[0]))) {
      const hits = count.get(quote([term])).n;
      let idf = ln.get((rows - hits + 0.5) / (hits + 0.5)).v;
      if (idf <= 0.0) idf = 1e-6;
      for (const r of top.all(quote([term])).slice(0, 20)) {
        let freq = 0;
        for (const c of instances.all(term, r.rowid)) freq += weight[c.col] * c.n;
        const size = varints(docsize.get(r.rowid).sz).reduce((a, x) => a + x, 0);
        const score = 0.0 + idf * ((freq * (1.2 + 1.0)) / (freq + 1.2 * (1 - 0.75 + (0.75 * size) / avgdl)));
        tally.terms++;
        if (score === -r.r) tally.termsExact++;
      }
    }
  }
  console.log(`sum of per-phrase bm25 = bm25 of the OR query: ${tally.sumsExact} of ${tally.sums} (query, chunk) pairs bit for bit`);
  console.log(`one term's bm25 from the index statistics: ${tally.termsExact} of ${tally.terms} bit for bit`);
}

/** keywordSearch() of keyword.ts (no filter), as it runs over FTS5. */
function ftsSearch(raw, query, limit) {
  const match = (seqs) => seqs.map((s) => `"${s.join(" ").replaceAll('"', '""')}"`).join(" OR ");
  const bm25 = "bm25(chunks_fts, 2.0, 1.0)";
  const depth = query.phrases.length > 0 ? Math.max(limit, 100) : limit;
  const hits = raw
    .prepare(`SELECT f.rowid AS seq, ${bm25} AS rank FROM chunks_fts f WHERE chunks_fts MATCH ? ORDER BY rank LIMIT ?`)
    .all(match(query.any), depth)
    .map((r) => ({ seq: r.seq, score: -r.rank }));
  if (query.phrases.length === 0 || hits.length < 2) return hits.slice(0, limit);
  const bonus = new Map();
  for (const r of raw
    .prepare(`SELECT rowid AS seq, ${bm25} AS rank FROM chunks_fts WHERE chunks_fts MATCH ?`)
    .iterate(match(query.phrases))) {
    bonus.set(r.seq, -r.rank);
  }
  return hits
    .map((h) => ({ seq: h.seq, score: h.score + 0.1 * (bonus.get(h.seq) ?? 0) }))
    .sort((a, b) => b.score - a.score)
    .slice(0, limit);
}

/** The in-memory keyword index (store-sqlite's KeywordIndex) built from the database's chunks, against FTS5. */
async function indexBench(dir) {
  const analyzer = await import(pathToFileURL(`${THIS}/packages/analyzer/dist/index.js`).href);
  const { KeywordIndex } = await import(pathToFileURL(`${THIS}/packages/store-sqlite/dist/index.js`).href);
  const Database = createRequire(`${THIS}/packages/store-sqlite/package.json`)("better-sqlite3");
  const raw = new Database(`${dir}/kw.db`, { readonly: true });
  const load = () => `load average ${loadavg()[0].toFixed(1)}`;
  // The rows as write.ts and refreshKeywordIndex() give them to chunks_fts (which keeps no text).
  let t = performance.now();
  const rows = [];
  const titles = new Map();
  const select = raw.prepare(
    "SELECT c.seq, c.doc_id, c.text, c.heading, c.symbol, c.symbols, c.doc, c.language, d.title FROM chunks c JOIN documents d ON d.id = c.doc_id ORDER BY c.seq",
  );
  for (const r of select.iterate()) {
    let titleTerms = titles.get(r.doc_id);
    if (titleTerms === undefined) {
      titleTerms = r.title ? analyzer.analyzeForIndex(r.title) : "";
      titles.set(r.doc_id, titleTerms);
    }
    const terms = analyzer.indexTerms(r.title, { ...r, symbols: r.symbols ? JSON.parse(r.symbols) : null }, r.text, titleTerms);
    rows.push({ seq: r.seq, title: terms.title, body: terms.body });
  }
  console.log(`${rows.length} rows analysed in ${((performance.now() - t) / 1000).toFixed(1)} s`);
  t = performance.now();
  const built = KeywordIndex.empty();
  for (const r of rows) built.add(r);
  const bytes = built.toBuffer();
  console.log(`index built in ${((performance.now() - t) / 1000).toFixed(1)} s (${load()})`);
  const file = `${dir}/kw.keyword-index`;
  writeFileSync(file, bytes);
  const loads = [];
  let index;
  rows.length = 0;
  for (let i = 0; i < 3; i++) {
    t = performance.now();
    index = KeywordIndex.fromBuffer(readFileSync(file));
    loads.push(performance.now() - t);
  }
  const ftsRows = raw.prepare("SELECT count(*) AS n FROM chunks_fts").get().n;
  // Memory of one loaded index (with node --expose-gc: collected before and after).
  globalThis.gc?.();
  const before = process.memoryUsage();
  let kept = KeywordIndex.fromBuffer(readFileSync(file));
  globalThis.gc?.();
  const after = process.memoryUsage();
  const held = (after.heapUsed + after.arrayBuffers - before.heapUsed - before.arrayBuffers) / 1e6;
  kept = null;
  console.log(
    `file ${(bytes.length / 1e6).toFixed(1)} MB, load ${loads.map((x) => x.toFixed(0)).join(" / ")} ms; ${index.rows} rows (FTS5 ${ftsRows}), ` +
      `${index.postings} postings, ${(index.postingBytes / index.postings).toFixed(2)} bytes a posting with positions, ${(bytes.length / index.postings).toFixed(2)} file bytes a posting; ${held.toFixed(0)} MB of heap and buffers held once loaded${globalThis.gc ? "" : " (run with --expose-gc for a clean figure)"}`,
  );
  const lnStatement = raw.prepare("SELECT ln(?) AS v");
  const ln = (x) => lnStatement.get(x).v;
  const times = { fts: [], index: [] };
  const stats = { postings: 0, scored: 0 };
  let same = 0;
  let asked = 0;
  const loads1 = [];
  for (const [i, text] of questions().entries()) {
    const query = analyzer.buildKeywordQuery(text);
    if (!query) continue;
    asked++;
    const run = {
      fts: () => ftsSearch(raw, query, 10),
      index: () => index.search(query, 10, { ln, stats }),
    };
    const answers = {};
    for (const name of i % 2 === 0 ? ["fts", "index"] : ["index", "fts"]) {
      t = performance.now();
      answers[name] = run[name]();
      times[name].push(performance.now() - t);
    }
    if (JSON.stringify(answers.fts) === JSON.stringify(answers.index)) same++;
    else console.log(`differs: ${text}`);
    if (i % 20 === 0) loads1.push(loadavg()[0]);
  }
  console.log(`FTS5 (keyword.ts): ${ms(times.fts)}; index: ${ms(times.index)}`);
  console.log(
    `same answers (seqs, order, scores) for ${same} of ${asked} questions; ${((100 * stats.scored) / stats.postings).toFixed(1)}% of postings scored`,
  );
  console.log(`load average (1 min) ${loads1.map((x) => x.toFixed(1)).join(" ")}`);
}

/** Both builds on the same database and questions, interleaved in a rotating order. */
async function compare(dir) {
  const provider = values.mode === "hybrid" ? await startProvider() : undefined;
  const runs = [];
  for (const [name, tree] of [
    ["other", resolve(values.other)],
    ["this", THIS],
  ]) {
    const core = await coreOf(tree);
    const docdb = core.openDocDB({ dataDir: dir, store: dir, embedding: provider?.embedding ?? null, logger: core.silentLogger() });
    runs.push({ name, docdb, db: await docdb.database("kw"), times: [], answers: [] });
  }
  const texts = questions();
  const loads = [];
  for (const text of texts.slice(0, 5)) for (const r of runs) await r.db.findSimilar({ query: text, mode: values.mode, top_k: 10 });
  // A keyword index is loaded in the background on the first find (FTS5 answers until then): let it finish.
  await new Promise((r) => setTimeout(r, 5000));
  for (const text of texts.slice(5, 10)) for (const r of runs) await r.db.findSimilar({ query: text, mode: values.mode, top_k: 10 });
  for (const [i, text] of texts.entries()) {
    for (let j = 0; j < runs.length; j++) {
      const r = runs[(i + j) % runs.length];
      const t = performance.now();
      const found = await r.db.findSimilar({ query: text, mode: values.mode, top_k: 10 });
      r.times.push(performance.now() - t);
      r.answers.push(found.results.map((x) => x.chunk_id).join());
    }
    if (i % 20 === 0) loads.push(loadavg()[0]);
  }
  for (const r of runs) console.log(`${values.mode} find, ${r.name} build: ${ms(r.times)}`);
  const same = runs[0].answers.filter((a, i) => a === runs[1].answers[i]).length;
  console.log(`same results for ${same} of ${texts.length} questions; load average (1 min) ${loads.map((x) => x.toFixed(1)).join(" ")}`);
  for (const r of runs) await r.docdb.close();
  provider?.child.kill();
}

if (values.serve !== undefined) serve(Number(values.serve));
else {
  const dir = values["data-dir"];
  const command = { build, profile, compare, verify, index: indexBench }[positionals[0]];
  if (!dir || !command || (positionals[0] === "compare" && !values.other)) {
    process.stderr.write(
      "usage: node scripts/bench-keyword.mjs build|profile|compare|verify|index --data-dir DIR [--other CHECKOUT] (see the top of this file)\n",
    );
    process.exit(2);
  }
  await command(resolve(dir));
}
