#!/usr/bin/env node
// docdb's speed on this machine: ingest chunks/s, find latency (keyword, vector, hybrid) beside
// sqlite-vec's raw KNN on the same data, and the MCP server's start-up and memory.
//
//   pnpm build && pnpm bench [--json] [--sizes 10000,100000] [--dims 384,1536] [--queries 50]
//                            [--efs 64,128,256,512] [--no-ann] [--eval-dir ../shared/eval]
//
// Synthetic data from fixed seeds (Japanese, English and code text; clustered vectors), built
// through docdb's normal insert path into temporary databases that are removed afterwards.
// The default run takes a few minutes on 2 cores. Numbers are for comparing runs on one machine.
import { mkdtempSync, rmSync } from "node:fs";
import { cpus, tmpdir, totalmem } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { annLatency, textRecall } from "./bench/ann.mjs";
import { queries } from "./bench/data.mjs";
import { findLatency } from "./bench/find.mjs";
import { ingest, ingestPaths, reembedCopy } from "./bench/ingest.mjs";
import { mcpServer } from "./bench/mcp.mjs";
import { renderTable } from "./bench/table.mjs";

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
      queries: { type: "string", default: "50" },
      efs: { type: "string", default: "64,128,256,512" },
      "no-ann": { type: "boolean", default: false },
      "eval-dir": { type: "string", default: fileURLToPath(new URL("../../shared/eval", import.meta.url)) },
    },
  });
  const list = (value, flag) => {
    const numbers = value.split(",").map((v) => Number(v.trim()));
    if (numbers.length === 0 || numbers.some((n) => !Number.isInteger(n) || n < 1)) {
      throw new Error(`${flag} takes positive whole numbers separated by commas, got "${value}"`);
    }
    return numbers;
  };
  const [count] = list(values.queries, "--queries");
  return {
    json: values.json,
    sizes: list(values.sizes, "--sizes"),
    dims: list(values.dims, "--dims"),
    queries: count,
    efs: list(values.efs, "--efs"),
    ann: !values["no-ann"],
    evalDir: values["eval-dir"],
  };
}

function log(message) {
  process.stderr.write(`bench: ${message}\n`);
}

async function main() {
  const opts = options();
  const core = await import(CORE.href).catch(() => {
    throw new Error(`${fileURLToPath(CORE)} is missing: run \`pnpm build\` first`);
  });
  const dataDir = mkdtempSync(join(tmpdir(), "docdb-bench-"));
  const started = performance.now();
  const report = {
    machine: {
      cpu: cpus()[0]?.model ?? "unknown",
      cores: cpus().length,
      memoryGb: Math.round(totalmem() / 2 ** 30),
      node: process.version,
    },
    date: new Date().toISOString(),
    options: { sizes: opts.sizes, dims: opts.dims, queries: opts.queries },
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
    // chunks re-embedded (docdb's reembed path), which saves segmenting the text again.
    const firstDims = opts.dims[0];
    const pathDocuments = Math.min(INGEST_PATH_DOCUMENTS, Math.ceil(Math.max(...opts.sizes) / 3));
    log(`ingest paths side by side (bulk with vectors, bulk keyword-only, one at a time), ${pathDocuments} documents each`);
    report.ingestPaths = await ingestPaths(core, { dataDir, count: pathDocuments, dims: firstDims, seed: 21 });
    for (const size of opts.sizes) {
      const base = `c${size}d${firstDims}`;
      log(`ingest ${size} chunks, ${firstDims} dims`);
      const built = await ingest(core, { dataDir, name: base, chunks: size, dims: firstDims, seed: size });
      report.ingest.push(built);
      for (const dims of opts.dims) {
        const name = `c${size}d${dims}`;
        if (dims !== firstDims) {
          log(`re-embed ${built.chunks} chunks at ${dims} dims`);
          report.reembed.push(await reembedCopy(core, { dataDir, from: base, name, dims, seed: size + dims, chunks: built.chunks }));
        }
        if (opts.ann && dims === firstDims) {
          log(`vector index on ${built.chunks} chunks × ${dims} dims: build, ANN vs exact vs in-memory floor, ef ${opts.efs.join(",")}`);
          report.ann.push({
            name,
            size: built.chunks,
            dims,
            ...(await annLatency(core, { dataDir, name, dims, seed: size, count: opts.queries, efs: opts.efs })),
          });
        }
        log(`find latency on ${built.chunks} chunks × ${dims} dims (${opts.queries} queries per mode)`);
        report.find.push({
          name,
          size: built.chunks,
          dims,
          ...(await findLatency(core, { dataDir, name, dims, seed: size, count: opts.queries })),
        });
      }
    }
    const largest = Math.max(...opts.sizes);
    const smallestDims = Math.min(...opts.dims);
    if (opts.ann && report.ann.length > 0) {
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
    log(`MCP server on the ${largest}-chunk database`);
    report.mcp = {
      database: `${largest} chunks, ${smallestDims} dims`,
      ...(await mcpServer({ bin: MCP_BIN, dataDir, dbName: `c${largest}d${smallestDims}`, queries: queries(50, { seed: 99 }) })),
    };
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
  report.seconds = (performance.now() - started) / 1000;
  process.stdout.write(opts.json ? `${JSON.stringify(report, null, 2)}\n` : renderTable(report));
}

main().catch((error) => {
  process.stderr.write(`bench: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
});
