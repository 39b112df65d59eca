// evaluateRetrieval: loads a test set into a temporary database, runs every judged query in
// each search mode and reports the mean metrics and latency.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ChunkOptions } from "@docdb/chunker";
import {
  type Database,
  type DocDB,
  DocDBError,
  type EmbeddingConfig,
  type InsertInput,
  type Logger,
  openDocDB,
  type RerankerConfig,
  type SearchMode,
  silentLogger,
} from "@docdb/core";
import type { EmbeddingModel, Reranker } from "@docdb/embed";

/** Eval ranks enough chunks to fill 100 documents (Recall@100), above the public top_k cap. */
const EVAL_MAX_TOP_K = 1000;

import { countCorpusLines, type EvalDataset, loadDataset, readCorpus } from "./dataset.js";
import { loadDocumentFolder } from "./documents.js";
import { collapseToDocuments, meanMetrics, percentile, type QueryMetrics, queryMetrics } from "./metrics.js";

export interface EvalProgress {
  phase: "load" | "embed" | "search";
  mode?: SearchMode;
  done: number;
  total: number;
}

export interface EvaluateOptions {
  /** Folder with corpus.jsonl, queries.jsonl and qrels.tsv. */
  dataset: string;
  /** Modes to evaluate, in order. Default: all three. */
  modes?: SearchMode[];
  /** Evaluate only the first N judged queries (the whole corpus is still loaded). */
  limitQueries?: number;
  /** As for openDocDB: a model, a config, null for none; default from the environment. */
  embedding?: EmbeddingModel | EmbeddingConfig | null;
  /** Rerank every query's candidates (`find` with `rerank: true`). */
  rerank?: boolean;
  /** As for openDocDB: the reranker used with `rerank`; default from the environment. */
  reranker?: Reranker | RerankerConfig | null;
  logger?: Logger;
  chunkOptions?: ChunkOptions;
  /** Where the temporary database goes (default: the OS temp folder). Removed afterwards. */
  tempDir?: string;
  /**
   * Another store to evaluate on (e.g. a `postgres://` URL): the corpus goes into a temporary
   * database there, dropped afterwards. Default: a SQLite file in `tempDir`.
   */
  store?: string;
  onProgress?: (progress: EvalProgress) => void;
  /**
   * A folder of documents to load instead of corpus.jsonl: one file per corpus entry, named
   * `<corpus id>.<ext>` (PDF, DOCX, HTML…), each extracted as `docdb insert FILE` would.
   * Measures retrieval on the extracted text (see scripts/render-eval-files.mjs).
   */
  documents?: string;
  /** Called for each file of `documents` that could not be stored (it counts as skipped). */
  onFailure?: (file: string, message: string) => void;
}

export interface EvalMetrics {
  ndcg_at_10: number;
  recall_at_10: number;
  mrr_at_10: number;
  recall_at_100: number;
}

export interface EvalReport {
  dataset: string;
  mode: SearchMode;
  /** False when the mode could not run (no embedding model): see `reason`. */
  available: boolean;
  reason?: string;
  /** `provider/model` whose vectors produced the results; null in keyword mode. */
  embedding_model: string | null;
  /** `provider/model` of the reranker that reordered the results; null without --rerank. */
  reranker: string | null;
  embedding_dimensions: number | null;
  corpus: { documents: number; chunks: number; skipped: number };
  /** The folder of rendered documents loaded instead of corpus.jsonl, if any. */
  documents?: string;
  /** Queries evaluated (those with at least one relevant judgment, up to --limit-queries). */
  queries: number;
  /** Relevant judgments naming documents absent from the corpus (they still count as missed). */
  judgments_not_in_corpus: number;
  /** Chunks asked of each find, enough to rank 100 documents after collapsing chunks. */
  top_k: number;
  metrics?: EvalMetrics;
  latency_ms?: { p50: number; p95: number };
}

// Long corpus entries are legitimate in a test set; the usual per-document limit guards
// interactive inserts, not this.
const EVAL_MAX_TEXT_LENGTH = 10_000_000;
const DB_NAME = "eval";

function round(value: number, digits = 4): number {
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}

function toMetrics(m: QueryMetrics): EvalMetrics {
  return { ndcg_at_10: round(m.ndcg10), recall_at_10: round(m.recall10), mrr_at_10: round(m.mrr10), recall_at_100: round(m.recall100) };
}

/** Keeps a caller's model open: the temporary DocDB closes its model, and this one is not ours. */
function borrowed(model: EmbeddingModel): EmbeddingModel {
  return {
    provider: model.provider,
    modelId: model.modelId,
    dimensions: model.dimensions,
    maxBatchSize: model.maxBatchSize,
    supportsParallelCalls: model.supportsParallelCalls,
    embed: (texts, options) => model.embed(texts, options),
  };
}

/** Keeps a caller's reranker open, as `borrowed` does for models. */
function borrowedReranker(reranker: Reranker): Reranker {
  return { provider: reranker.provider, modelId: reranker.modelId, rerank: (query, documents, o) => reranker.rerank(query, documents, o) };
}

function isReranker(value: unknown): value is Reranker {
  return typeof value === "object" && value !== null && typeof (value as Reranker).rerank === "function";
}

/** Why reranking cannot run (in the words `docdb find --rerank` would use), or undefined when it can. */
async function probeReranker(docdb: DocDB, db: Database, query: string): Promise<string | undefined> {
  try {
    if (!docdb.reranker) await db.findSimilar({ query, mode: "keyword", top_k: 1, rerank: true });
    else await docdb.reranker.rerank(query, [query]);
    return undefined;
  } catch (error) {
    if (DocDBError.isInstance(error)) return error.message;
    return `cannot rerank: ${error instanceof Error ? error.message : String(error)}`;
  }
}

function isModel(value: unknown): value is EmbeddingModel {
  return typeof value === "object" && value !== null && typeof (value as EmbeddingModel).embed === "function";
}

/** Documents per insert batch while loading a corpus. */
const LOAD_BATCH = 100;

async function loadCorpus(
  db: Database,
  dataset: EvalDataset,
  onProgress: EvaluateOptions["onProgress"],
): Promise<{ documents: number; skipped: number; ids: Set<string> }> {
  const total = await countCorpusLines(dataset.corpusPath);
  const ids = new Set<string>();
  onProgress?.({ phase: "load", done: 0, total });
  let done = 0;
  let skipped = 0;
  // Inserted in batches (one transaction each): the corpus loads several times faster.
  let batch: InsertInput[] = [];
  const flush = async () => {
    const { results } = await db.insertDocuments(batch);
    for (const r of results) if (!r.ok) throw new DocDBError(r.error.code, r.error.message);
    done += batch.length;
    batch = [];
  };
  for await (const doc of readCorpus(dataset.corpusPath)) {
    // BEIR corpora have title-only entries; the title then is the text. Nothing at all: skip.
    const text = doc.text.trim() !== "" ? doc.text : doc.title;
    if (text.trim() === "") {
      skipped++;
      done++;
    } else {
      batch.push({ text, title: doc.title || undefined, metadata: { corpus_id: doc.id } });
      ids.add(doc.id);
    }
    if (batch.length >= LOAD_BATCH) {
      await flush();
      onProgress?.({ phase: "load", done, total });
    }
  }
  if (batch.length > 0) await flush();
  onProgress?.({ phase: "load", done, total });
  return { documents: ids.size, skipped, ids };
}

/**
 * Embeds the loaded corpus with the configured model. Returns why vector search cannot run,
 * or undefined when it can.
 */
async function embedCorpus(docdb: DocDB, db: Database, probeQuery: string, onProgress: EvaluateOptions["onProgress"]) {
  if (!docdb.embedding) {
    // Ask the way a user would, so the reason is the one `docdb find --mode vector` gives.
    try {
      await db.findSimilar({ query: probeQuery, mode: "vector" });
    } catch (error) {
      if (DocDBError.isInstance(error)) return error.message;
      throw error;
    }
    return "no embedding model is configured";
  }
  try {
    await db.embedPending({ onProgress: ({ done, total }) => onProgress?.({ phase: "embed", done, total }) });
    return undefined;
  } catch (error) {
    if (DocDBError.isInstance(error) && error.code === "EMBEDDING_UNAVAILABLE") return error.message;
    throw error;
  }
}

async function runQueries(
  db: Database,
  dataset: EvalDataset,
  mode: SearchMode,
  topK: number,
  rerank: boolean,
  onProgress: EvaluateOptions["onProgress"],
): Promise<{ metrics: EvalMetrics; latency: { p50: number; p95: number } }> {
  const perQuery: QueryMetrics[] = [];
  const latencies: number[] = [];
  const total = dataset.queries.length;
  onProgress?.({ phase: "search", mode, done: 0, total });
  for (const [i, query] of dataset.queries.entries()) {
    const started = performance.now();
    const found = await db.findSimilar(
      { query: query.text, mode, top_k: topK, merge: false, include_text: false, ...(rerank ? { rerank: true } : {}) },
      { maxTopK: EVAL_MAX_TOP_K },
    );
    latencies.push(performance.now() - started);
    const ranking = collapseToDocuments(found.results, (r) => {
      const id = r.metadata.corpus_id;
      return typeof id === "string" ? id : undefined;
    });
    perQuery.push(queryMetrics(ranking, dataset.qrels.get(query.id) ?? new Map()));
    if ((i + 1) % 50 === 0 || i + 1 === total) onProgress?.({ phase: "search", mode, done: i + 1, total });
  }
  return {
    metrics: toMetrics(meanMetrics(perQuery)),
    latency: { p50: round(percentile(latencies, 50), 2), p95: round(percentile(latencies, 95), 2) },
  };
}

/**
 * Measures docdb's retrieval on a BEIR-like dataset: loads the corpus into a fresh temporary
 * database through the normal insert path (each corpus entry one document, its id kept in
 * metadata.corpus_id), embeds it when a vector mode is asked for and a model is available,
 * runs every judged query in each mode and averages the metrics over queries. Chunk results
 * are collapsed to documents (best chunk) before scoring. The temporary database is removed.
 */
export async function evaluateRetrieval(options: EvaluateOptions): Promise<EvalReport[]> {
  const modes = options.modes ?? ["hybrid", "vector", "keyword"];
  if (modes.length === 0) throw new DocDBError("INVALID_REQUEST", "no search mode to evaluate");
  const limit = options.limitQueries;
  if (limit !== undefined && (!Number.isInteger(limit) || limit < 1)) {
    throw new DocDBError("INVALID_REQUEST", `--limit-queries must be a positive integer, got ${String(limit)}`);
  }
  const loaded = loadDataset(options.dataset);
  const dataset: EvalDataset = limit !== undefined ? { ...loaded, queries: loaded.queries.slice(0, limit) } : loaded;
  const logger = options.logger ?? silentLogger();
  const dir = mkdtempSync(join(options.tempDir ?? tmpdir(), "docdb-eval-"));
  const common = { dataDir: dir, store: options.store, logger, maxTextLength: EVAL_MAX_TEXT_LENGTH, chunkOptions: options.chunkOptions };
  const dbName = options.store !== undefined ? `eval_${Date.now().toString(36)}_${process.pid}` : DB_NAME;
  try {
    // Load without a model: one batched embedding pass afterwards is far cheaper than one
    // provider call per document, and keyword-only runs never touch the model.
    const loader = openDocDB({ ...common, embedding: null });
    let corpus: { documents: number; skipped: number; ids: Set<string> };
    try {
      const target = await loader.database(dbName, { create: true });
      corpus =
        options.documents !== undefined
          ? await loadDocumentFolder(target, options.documents, options.onProgress, options.onFailure)
          : await loadCorpus(target, dataset, options.onProgress);
    } finally {
      await loader.close();
    }
    if (corpus.documents === 0) throw new DocDBError("INVALID_REQUEST", `dataset ${dataset.dir}: the corpus has no document with text`);

    const wantsVectors = modes.some((m) => m !== "keyword");
    const embedding = wantsVectors ? (isModel(options.embedding) ? borrowed(options.embedding) : options.embedding) : null;
    const reranker = options.rerank ? (isReranker(options.reranker) ? borrowedReranker(options.reranker) : options.reranker) : null;
    const docdb = openDocDB({ ...common, embedding, reranker });
    try {
      const db = await docdb.database(dbName);
      const firstQuery = (dataset.queries[0] as { text: string }).text;
      const vectorProblem = wantsVectors ? await embedCorpus(docdb, db, firstQuery, options.onProgress) : undefined;
      const rerankProblem = options.rerank ? await probeReranker(docdb, db, firstQuery) : undefined;
      const status = await db.status();
      const chunksPerDocument = status.chunks / Math.max(1, status.documents);
      // Enough chunks to fill 100 documents after collapsing, with room for uneven documents.
      const topK = Math.min(EVAL_MAX_TOP_K, Math.ceil(100 * chunksPerDocument * 1.5));
      let missing = 0;
      for (const q of dataset.queries) {
        for (const [doc, grade] of dataset.qrels.get(q.id) ?? []) if (grade > 0 && !corpus.ids.has(doc)) missing++;
      }
      const shared = {
        corpus: { documents: corpus.documents, chunks: status.chunks, skipped: corpus.skipped },
        queries: dataset.queries.length,
        judgments_not_in_corpus: missing,
        top_k: topK,
        ...(options.documents !== undefined ? { documents: options.documents } : {}),
      };
      const reports: EvalReport[] = [];
      for (const mode of modes) {
        const usesVectors = mode !== "keyword";
        const model = usesVectors && docdb.embedding ? docdb.embedding : null;
        const head = { dataset: dataset.name, mode };
        const described = {
          embedding_model: model ? `${model.provider}/${model.modelId}` : null,
          embedding_dimensions: model ? model.dimensions : null,
          reranker: options.rerank && docdb.reranker ? `${docdb.reranker.provider}/${docdb.reranker.modelId}` : null,
        };
        if (usesVectors && vectorProblem !== undefined) {
          reports.push({ ...head, available: false, reason: vectorProblem, ...described, ...shared });
          continue;
        }
        if (rerankProblem !== undefined) {
          reports.push({ ...head, available: false, reason: rerankProblem, ...described, ...shared });
          continue;
        }
        const { metrics, latency } = await runQueries(db, dataset, mode, topK, options.rerank === true, options.onProgress);
        reports.push({ ...head, available: true, ...described, ...shared, metrics, latency_ms: latency });
      }
      return reports;
    } finally {
      if (options.store !== undefined) await docdb.dropDatabase(dbName).catch(() => undefined);
      await docdb.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
