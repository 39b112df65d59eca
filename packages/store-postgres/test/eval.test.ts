import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { buildKeywordQuery } from "@docdb/analyzer";
import { chunkText } from "@docdb/chunker";
import type { DocumentWrite, StoreEngine } from "@docdb/store";
import { describe, expect, it } from "vitest";
import { contentHash, toStoredChunks } from "../../core/src/stored-chunks.js";
import { loadDataset, readCorpus } from "../../eval/src/dataset.js";
import { collapseToDocuments, meanMetrics, queryMetrics } from "../../eval/src/metrics.js";
import { createPostgresEngine } from "../src/index.js";
import { startPgliteServer } from "./support/pglite-server.js";

/**
 * Keyword retrieval quality through the Store contract, the way `docdb eval --mode keyword`
 * measures it (each corpus entry one document, default 700/100 chunking, top_k chunks
 * collapsed to documents, nDCG@10), on the PostgreSQL engine and, for comparison, SQLite.
 * Opt-in: DOCDB_PG_EVAL=/path/to/jaquad,/path/to/scifact (DOCDB_PG_EVAL_ENGINES=postgres,sqlite).
 * Against DOCDB_TEST_POSTGRES_URL when set, else a PGlite server.
 */
const dirs = (process.env.DOCDB_PG_EVAL ?? "").split(",").filter((d) => d !== "");
const engines = (process.env.DOCDB_PG_EVAL_ENGINES ?? "postgres").split(",");

async function evaluate(engine: StoreEngine, dir: string) {
  const dataset = loadDataset(dir);
  const store = await engine.openDatabase(`eval_${dataset.name}_${process.pid}`, { create: true });
  const started = performance.now();
  let batch: DocumentWrite[] = [];
  let documents = 0;
  for await (const doc of readCorpus(dataset.corpusPath)) {
    const text = doc.text.trim() !== "" ? doc.text : doc.title;
    if (text.trim() === "") continue;
    batch.push({
      document: {
        id: `D${String(documents).padStart(8, "0")}`,
        title: doc.title || null,
        content: text,
        contentHash: contentHash(text),
        metadata: { corpus_id: doc.id },
      },
      chunks: toStoredChunks(text, chunkText(text)),
    });
    documents++;
    if (batch.length === 100) {
      await store.writeDocuments(batch);
      batch = [];
    }
  }
  if (batch.length > 0) await store.writeDocuments(batch);
  const loadSeconds = (performance.now() - started) / 1000;
  const counts = await store.counts();
  const topK = Math.min(1000, Math.ceil(100 * (counts.chunks / Math.max(1, counts.documents)) * 1.5));
  const perQuery = [];
  const latencies: number[] = [];
  const corpusIds = new Map<string, string>();
  for (const q of dataset.queries) {
    const t0 = performance.now();
    const query = buildKeywordQuery(q.text);
    const hits = query ? await store.keywordSearch(query, { limit: topK }) : [];
    const unknown = hits.map((h) => h.chunkId).filter((id) => !corpusIds.has(id));
    if (unknown.length > 0) for (const h of await store.chunkHits(unknown)) corpusIds.set(h.id, h.metadata.corpus_id as string);
    latencies.push(performance.now() - t0);
    const ranking = collapseToDocuments(hits, (h) => corpusIds.get(h.chunkId));
    perQuery.push(queryMetrics(ranking, dataset.qrels.get(q.id) ?? new Map()));
  }
  latencies.sort((a, b) => a - b);
  const m = meanMetrics(perQuery);
  await engine.dropDatabase(store.name);
  return {
    dataset: dataset.name,
    documents: counts.documents,
    chunks: counts.chunks,
    queries: dataset.queries.length,
    top_k: topK,
    ndcg_at_10: Number(m.ndcg10.toFixed(4)),
    recall_at_10: Number(m.recall10.toFixed(4)),
    mrr_at_10: Number(m.mrr10.toFixed(4)),
    recall_at_100: Number(m.recall100.toFixed(4)),
    load_s: Number(loadSeconds.toFixed(1)),
    p50_ms: Number((latencies[Math.floor(latencies.length / 2)] ?? 0).toFixed(1)),
    p95_ms: Number((latencies[Math.floor(latencies.length * 0.95)] ?? 0).toFixed(1)),
  };
}

describe.skipIf(dirs.length === 0)("keyword eval through the Store contract", () => {
  for (const kind of engines) {
    it(
      `${kind}: ${dirs.join(", ")}`,
      async () => {
        let engine: StoreEngine;
        let cleanup = async () => {};
        if (kind === "sqlite") {
          const { createSqliteEngine } = await import("@docdb/store-sqlite");
          const dataDir = mkdtempSync(join(tmpdir(), "docdb-eval-sqlite-"));
          engine = createSqliteEngine({ dataDir });
          cleanup = async () => rmSync(dataDir, { recursive: true, force: true });
        } else {
          const external = process.env.DOCDB_TEST_POSTGRES_URL;
          const server = external ? undefined : await startPgliteServer();
          engine = createPostgresEngine({ url: external ?? server!.url, pool: { max: 4 } });
          cleanup = async () => server?.stop();
        }
        try {
          for (const dir of dirs) {
            const report = await evaluate(engine, dir);
            console.log(JSON.stringify({ engine: kind, ...report }));
            expect(report.ndcg_at_10).toBeGreaterThan(0);
          }
        } finally {
          await engine.close();
          await cleanup();
        }
      },
      3 * 60 * 60 * 1000,
    );
  }
});
