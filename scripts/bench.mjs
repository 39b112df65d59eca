#!/usr/bin/env node
// docdb's speed on this machine: ingest chunks/s, find latency (keyword, vector, hybrid) beside
// the engine's raw KNN on the same data, vector recall against the exact answer, and the MCP
// server's start-up and memory.
//
//   pnpm build && pnpm bench [--json] [--sizes 10000,100000] [--dims 384,1536] [--queries 50]
//                            [--efs 64,128,256,512] [--no-ann] [--no-mcp] [--no-text-recall] [--eval-dir ../shared/eval]
//                            [--data-dir DIR [--reuse-index]]
//                            [--store postgres://user:pass@host:port/db | --store pglite]
//   pnpm bench --keyword-compare [--documents 98000] [--queries 100] [--data-dir DIR] [--other CHECKOUT] [--json]
//
// Synthetic data from fixed seeds (Japanese, English and code text; clustered vectors), built
// through docdb's normal insert path into temporary databases that are removed afterwards.
// The default run takes a few minutes on 2 cores. Numbers are for comparing runs on one machine.
// --data-dir keeps the databases in DIR instead of a temporary folder, and a later run with the
// same DIR measures the databases already there instead of ingesting them again (a 1M-chunk
// database takes long to build; its queries can then be measured again on an idle machine).
// --keyword-compare runs only the keyword comparison instead (scripts/bench/keyword-compare.mjs):
// docdb keyword and hybrid find, LanceDB's full-text index and raw SQLite FTS5 on the eval sets
// repeated to --documents, --queries English and as many Japanese questions, interleaved; --other
// adds another built docdb checkout to the same run. --data-dir keeps all three for the next run.
// --reuse-index also loads the vector index file kept there instead of timing a rebuild (40
// minutes at 1M on 2 shared cores), so another ef sweep costs only the queries.
//
// Without --store the databases are temporary SQLite files. `--store postgres://…` (or
// DOCDB_STORE_URL) runs the same workloads on that PostgreSQL server (databases with names of
// this run only, dropped at the end); `--store pglite` starts PGlite (PostgreSQL + pgvector in
// WebAssembly) on loopback for the run. Comparisons that only exist on SQLite (sqlite-vec's
// raw KNN, the usearch index and its in-memory floor) are skipped there, with a line saying why.
import { existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { cpus, loadavg, tmpdir, totalmem } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { annLatency, textRecall } from "./bench/ann.mjs";
import { annLatencyPostgres } from "./bench/ann-postgres.mjs";
import { queries } from "./bench/data.mjs";
import { findLatency } from "./bench/find.mjs";
import { ingest, ingestPaths, reembedCopy } from "./bench/ingest.mjs";
import { keywordCompare, renderKeywordCompare } from "./bench/keyword-compare.mjs";
import { mcpServer } from "./bench/mcp.mjs";
import { renderTable } from "./bench/table.mjs";
import { openTarget, parseStore } from "./bench/target.mjs";

const CORE = new URL("../packages/core/dist/index.js", import.meta.url);
/** Documents each ingest path gets in the side-by-side comparison (about three chunks each), at most. */
const INGEST_PATH_DOCUMENTS = 1500;
const MCP_BIN = fileURLToPath(new URL("../apps/mcp-server/dist/bin.js", import.meta.url));

function options() {
  const { values } = parseArgs({
    options: {
      json: { type: "boolean", default: false },
      sizes: { type: "string", default: "10000,100000" },
      dims: { type: "string", default: "384,1536" },
      queries: { type: "string" },
      efs: { type: "string", default: "64,128,256,512" },
      "no-ann": { type: "boolean", default: false },
      "no-mcp": { type: "boolean", default: false },
      "no-text-recall": { type: "boolean", default: false },
      "eval-dir": { type: "string", default: fileURLToPath(new URL("../../shared/eval", import.meta.url)) },
      "data-dir": { type: "string" },
      "reuse-index": { type: "boolean", default: false },
      store: { type: "string" },
      "keyword-compare": { type: "boolean", default: false },
      documents: { type: "string", default: "98000" },
      other: { type: "string" },
    },
  });
  const list = (value, flag) => {
    const numbers = value.split(",").map((v) => Number(v.trim()));
    if (numbers.length === 0 || numbers.some((n) => !Number.isInteger(n) || n < 1)) {
      throw new Error(`${flag} takes positive whole numbers separated by commas, got "${value}"`);
    }
    return numbers;
  };
  // 50 synthetic queries per mode; the keyword comparison asks 100 of each eval set.
  const [count] = list(values.queries ?? (values["keyword-compare"] ? "100" : "50"), "--queries");
  const opts = {
    json: values.json,
    sizes: list(values.sizes, "--sizes"),
    dims: list(values.dims, "--dims"),
    queries: count,
    efs: list(values.efs, "--efs"),
    ann: !values["no-ann"],
    mcp: !values["no-mcp"],
    textRecall: !values["no-text-recall"],
    evalDir: values["eval-dir"],
    dataDir: values["data-dir"],
    reuseIndex: values["reuse-index"],
    store: parseStore(values.store ?? postgresFromEnv()),
    keywordCompare: values["keyword-compare"],
    documents: list(values.documents, "--documents")[0],
    other: values.other,
  };
  if (opts.other !== undefined && !opts.keywordCompare) throw new Error("--other is for --keyword-compare: give it too");
  if (opts.reuseIndex && opts.dataDir === undefined) {
    throw new Error("--reuse-index loads the index kept in --data-dir DIR: give --data-dir too");
  }
  if (opts.dataDir !== undefined && opts.store !== undefined) {
    throw new Error(
      "--data-dir keeps SQLite files between runs; with --store the databases live on the server and are dropped after the run",
    );
  }
  return opts;
}

/** DOCDB_STORE_URL when it names PostgreSQL (a folder there is docdb's, not the bench's: the bench uses temporary files). */
function postgresFromEnv() {
  const value = process.env.DOCDB_STORE_URL?.trim();
  if (!value) return undefined;
  if (value === "pglite" || /^postgres(ql)?:\/\//i.test(value)) return value;
  log("DOCDB_STORE_URL is not a postgres:// URL: ignored (SQLite runs use temporary files)");
  return undefined;
}

/** A database kept by an earlier run with `--data-dir`: its chunk count, nothing rebuilt. */
async function existing(core, { dataDir, name }) {
  const docdb = core.openDocDB({ dataDir, store: dataDir, embedding: null, logger: core.silentLogger() });
  try {
    const status = await (await docdb.database(name)).status();
    return { name, chunks: status.chunks, reused: true };
  } finally {
    await docdb.close();
  }
}

/** The password of a postgres:// store, so no message can print it. */
function secretOf(store) {
  try {
    return store ? decodeURIComponent(new URL(store).password) : "";
  } catch {
    return "";
  }
}
let secret = "";

function log(message) {
  process.stderr.write(`bench: ${message}\n`);
}

/** `--keyword-compare`: the comparison alone, on kept (--data-dir) or temporary files. */
async function compareKeyword(opts) {
  if (opts.store !== undefined) throw new Error("--keyword-compare runs on SQLite files: leave out --store");
  const dataDir = opts.dataDir ?? mkdtempSync(join(tmpdir(), "docdb-bench-kw-"));
  mkdirSync(dataDir, { recursive: true });
  const started = performance.now();
  try {
    const report = await keywordCompare({
      root: fileURLToPath(new URL("..", import.meta.url)),
      evalDir: opts.evalDir,
      dataDir,
      documents: opts.documents,
      questions: opts.queries,
      other: opts.other === undefined ? undefined : resolve(opts.other),
      log,
    });
    report.date = new Date().toISOString();
    report.seconds = (performance.now() - started) / 1000;
    process.stdout.write(opts.json ? `${JSON.stringify(report, null, 2)}\n` : renderKeywordCompare(report));
  } finally {
    if (opts.dataDir === undefined) rmSync(dataDir, { recursive: true, force: true });
  }
}

async function main() {
  const opts = options();
  if (opts.keywordCompare) return compareKeyword(opts);
  secret = secretOf(opts.store);
  const core = await import(CORE.href).catch(() => {
    throw new Error(`${fileURLToPath(CORE)} is missing: run \`pnpm build\` first`);
  });
  const keep = opts.dataDir !== undefined;
  if (keep) mkdirSync(opts.dataDir, { recursive: true });
  const dataDir = keep ? opts.dataDir : mkdtempSync(join(tmpdir(), "docdb-bench-"));
  const started = performance.now();
  let target;
  try {
    target = await openTarget(core, { store: opts.store, dataDir, log });
  } catch (error) {
    if (!keep) rmSync(dataDir, { recursive: true, force: true });
    throw error;
  }
  const report = {
    machine: {
      cpu: cpus()[0]?.model ?? "unknown",
      cores: cpus().length,
      memoryGb: Math.round(totalmem() / 2 ** 30),
      node: process.version,
      // Other work on the machine skews every timing: the load average at the start and the end.
      loadAverage: { start: loadavg() },
    },
    date: new Date().toISOString(),
    options: { sizes: opts.sizes, dims: opts.dims, queries: opts.queries },
    store: {
      kind: target.kind,
      location: target.location,
      ...(target.server ? { server: target.server } : {}),
      rawKnn: target.rawKnnLabel,
      reembed: target.reembedInPlace
        ? "in place (the same database, after the first dimension's measurements)"
        : "a copy of the database file",
    },
    // Sections that exist on one engine only, each with the reason it is missing.
    skipped: [],
    ingest: [],
    ingestPaths: [],
    reembed: [],
    ann: [],
    textRecall: undefined,
    find: [],
    mcp: undefined,
  };
  try {
    // Each size is ingested once, at the first dimension; the other dimensions get the same
    // chunks re-embedded (docdb's reembed path), which saves segmenting the text again. SQLite
    // re-embeds a copy of the file; PostgreSQL re-embeds the database in place.
    const firstDims = opts.dims[0];
    const dbFor = (size, dims) => target.dbName(target.reembedInPlace ? `c${size}` : `c${size}d${dims}`);
    const postgres = target.kind === "postgres";
    if (postgres) {
      report.skipped.push(
        "raw KNN with sqlite-vec: SQLite only; the raw column is pgvector's own query on the same table",
        "usearch HNSW index, its in-memory exact floor, index file size and RSS: SQLite's index (a file beside the database); " +
          "PostgreSQL's HNSW lives in the server and is compared with its exact scan (`exact: true`) instead",
      );
    }
    const pathDocuments = Math.min(INGEST_PATH_DOCUMENTS, Math.ceil(Math.max(...opts.sizes) / 3));
    log(`ingest paths side by side (bulk with vectors, bulk keyword-only, one at a time), ${pathDocuments} documents each`);
    report.ingestPaths = await ingestPaths(core, {
      dataDir,
      store: target.store,
      dbName: target.dbName,
      count: pathDocuments,
      dims: firstDims,
      seed: 21,
    });
    for (const size of opts.sizes) {
      const base = dbFor(size, firstDims);
      let built;
      if (keep && existsSync(join(dataDir, `${base}.db`))) {
        built = await existing(core, { dataDir, name: base, dims: firstDims });
        log(`reusing ${base} in ${dataDir} (${built.chunks} chunks; not ingested in this run)`);
      } else {
        log(`ingest ${size} chunks, ${firstDims} dims`);
        built = await ingest(core, { dataDir, store: target.store, name: base, chunks: size, dims: firstDims, seed: size });
        report.ingest.push(built);
      }
      for (const dims of opts.dims) {
        const name = dbFor(size, dims);
        if (dims !== firstDims && !(keep && existsSync(join(dataDir, `${name}.db`)))) {
          log(`re-embed ${built.chunks} chunks at ${dims} dims`);
          report.reembed.push(
            await reembedCopy(core, { dataDir, store: target.store, from: base, name, dims, seed: size + dims, chunks: built.chunks }),
          );
        }
        if (opts.ann && dims === firstDims) {
          if (postgres) {
            log(
              `pgvector HNSW on ${built.chunks} chunks × ${dims} dims: docdb and pgvector alone vs exact, ef ${opts.efs.join(",")}, REINDEX`,
            );
            report.ann.push({
              engine: "postgres",
              name,
              size: built.chunks,
              dims,
              ...(await annLatencyPostgres(core, { target, name, dims, seed: size, count: opts.queries, efs: opts.efs })),
            });
          } else {
            log(`vector index on ${built.chunks} chunks × ${dims} dims: build, ANN vs exact vs in-memory floor, ef ${opts.efs.join(",")}`);
            report.ann.push({
              engine: "sqlite",
              name,
              size: built.chunks,
              dims,
              ...(await annLatency(core, {
                dataDir,
                name,
                dims,
                seed: size,
                count: opts.queries,
                efs: opts.efs,
                reuseIndex: opts.reuseIndex,
              })),
            });
          }
        }
        log(`find latency on ${built.chunks} chunks × ${dims} dims (${opts.queries} queries per mode)`);
        report.find.push({
          name,
          size: built.chunks,
          dims,
          ...(await findLatency(core, { target, name, dims, seed: size, count: opts.queries })),
        });
      }
    }
    const largest = Math.max(...opts.sizes);
    const smallestDims = Math.min(...opts.dims);
    if (opts.ann && postgres) {
      report.skipped.push("text-derived vectors (eval corpora): a measure of usearch, the SQLite engine's index library");
    } else if (opts.ann && !opts.textRecall) {
      report.skipped.push("text-derived vectors (eval corpora): not measured (--no-text-recall)");
    } else if (opts.ann && report.ann.length > 0) {
      log(`recall on text-derived vectors (eval corpora, ${largest} sentences × ${opts.dims[0]} dims)`);
      const settings = report.ann[report.ann.length - 1].build.settings;
      report.textRecall = await textRecall({
        evalDir: opts.evalDir,
        dims: opts.dims[0],
        limit: largest,
        queryCount: 200,
        settings,
        efs: [...new Set([...opts.efs, 1024])].sort((a, b) => a - b),
        tmpFile: join(dataDir, "text.usearch"),
      });
    }
    // PostgreSQL: the largest database holds the last dimension by now (re-embedded in place).
    const mcpDims = target.reembedInPlace ? opts.dims[opts.dims.length - 1] : smallestDims;
    if (!opts.mcp) report.mcp = { skipped: "not measured (--no-mcp)" };
    else {
      log(`MCP server on the ${largest}-chunk database`);
      report.mcp = {
        database: `${largest} chunks, ${mcpDims} dims`,
        ...(await mcpServer({
          bin: MCP_BIN,
          dataDir,
          dbName: dbFor(largest, mcpDims),
          queries: queries(50, { seed: 99 }),
          store: target.mcpStore,
        })),
      };
    }
  } finally {
    await target.close();
    if (!keep) rmSync(dataDir, { recursive: true, force: true });
  }
  if (target.dropped) report.store.dropped = target.dropped.length;
  report.machine.loadAverage.end = loadavg();
  report.seconds = (performance.now() - started) / 1000;
  process.stdout.write(opts.json ? `${JSON.stringify(report, null, 2)}\n` : renderTable(report));
}

main().catch((error) => {
  const message = error instanceof Error ? error.message : String(error);
  process.stderr.write(`bench: ${secret ? message.replaceAll(secret, "***") : message}\n`);
  process.exitCode = 1;
});
