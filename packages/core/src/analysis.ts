import { existsSync } from "node:fs";
import { availableParallelism } from "node:os";
import { fileURLToPath } from "node:url";
import type { Worker } from "node:worker_threads";
import { ANALYZER_VERSION, analyzeForIndex, indexTerms } from "@docdb/analyzer";
import type { DocumentWrite } from "@docdb/store";
import type { AnalysisReply, AnalysisRequest, CodeFields } from "./analysis-protocol.js";
import { nodeWorkerThreads } from "./builtins.js";
import type { Logger } from "./logger.js";

/**
 * Gives every chunk of the writes its keyword-index terms (`NewChunk.terms`), in this thread:
 * analysed before the write transaction, so the store holds the write lock only to insert. A
 * document title's words are computed once for all its chunks.
 */
export function analyseInThread(writes: DocumentWrite[]): void {
  for (const w of writes) {
    const title = w.document.title ?? null;
    const titleTerms = title ? analyzeForIndex(title) : "";
    for (const chunk of w.chunks) chunk.terms = indexTerms(title, chunk, chunk.text, titleTerms);
  }
}

/** The code fields of a chunk that go into its index terms; undefined for prose (nothing to send). */
function codeFields(chunk: DocumentWrite["chunks"][number]): CodeFields | undefined {
  const { symbol, symbols, doc, language } = chunk;
  if (!symbol && !(symbols && symbols.length > 0) && !doc && !language) return undefined;
  return {
    symbol: symbol ?? null,
    symbols: symbols && symbols.length > 0 ? symbols.map((s) => ({ symbol: s.symbol })) : null,
    doc: doc ?? null,
    language: language ?? null,
  };
}

/** Analyses the chunks of writes, in this thread or in worker threads. */
export type Analyse = (writes: DocumentWrite[]) => Promise<void>;

/** The worker script: beside this module when built (core's dist, or a bundled program's folder). */
function workerScript(): string | undefined {
  for (const candidate of ["./analysis-worker.mjs", "../dist/analysis-worker.mjs"]) {
    try {
      const path = fileURLToPath(new URL(candidate, import.meta.url));
      if (existsSync(path)) return path;
    } catch {
      // Not a file URL (bundled elsewhere): no workers.
    }
  }
  return undefined;
}

interface PoolWorker {
  worker: Worker;
  pending: Map<number, { resolve: (terms: [string, string][][]) => void; reject: (error: Error) => void }>;
}

/**
 * Word analysis in worker threads, for bulk inserts: ICU word segmentation is most of the CPU
 * an insert costs, and the workers analyse the next batch while the main thread writes this
 * one. Started on the first batch large enough to pay (`minChunks`), with `size` workers; they
 * hold the process open only while they work, and `close` ends them. A worker that fails turns
 * the pool off: analysis carries on in this thread, with the same terms.
 *
 * Measured on 2 cores (BENCHMARKS.md): idle, two workers ingest 1.4–1.5× as fast as the main
 * thread alone for 2–10% more CPU; with the cores already busy with other work, no faster.
 */
export class AnalysisPool {
  private workers: PoolWorker[] | undefined;
  private disabled = false;
  private nextId = 0;
  private rotation = 0;

  constructor(private readonly options: { size: number; minChunks: number; logger?: Logger; script?: string }) {}

  /**
   * Workers for this machine: one per core, at most four. On 2 cores, two workers (beside the
   * main thread, which chunks and writes) ingested fastest (BENCHMARKS.md).
   */
  static defaultSize(): number {
    return Math.max(1, Math.min(4, availableParallelism()));
  }

  /** Worker threads running now (0 before the first large batch, and after a failure). */
  get running(): number {
    return this.workers?.length ?? 0;
  }

  readonly analyse: Analyse = async (writes) => {
    const chunks = writes.reduce((n, w) => n + w.chunks.length, 0);
    if (this.disabled || this.options.size < 1 || chunks < this.options.minChunks) return analyseInThread(writes);
    const workers = this.start();
    if (!workers) return analyseInThread(writes);
    // Documents dealt out in turn, so each worker gets about the same amount of text.
    const parts: DocumentWrite[][] = workers.map(() => []);
    writes.forEach((w, i) => {
      parts[(i + this.rotation) % workers.length]?.push(w);
    });
    this.rotation++;
    try {
      await Promise.all(
        parts.map(async (part, i) => {
          if (part.length === 0) return;
          const terms = await this.request(workers[i] as PoolWorker, part);
          part.forEach((w, d) => {
            w.chunks.forEach((chunk, c) => {
              const pair = terms[d]?.[c];
              if (!pair) throw new Error("the analysis worker answered for fewer chunks than it was sent");
              chunk.terms = { version: ANALYZER_VERSION, title: pair[0], body: pair[1] };
            });
          });
        }),
      );
    } catch (error) {
      this.options.logger?.warn({ err: (error as Error).message }, "analysis worker failed; analysing in the main thread");
      await this.close();
      this.disabled = true;
      analyseInThread(writes);
    }
  };

  private start(): PoolWorker[] | undefined {
    if (this.workers) return this.workers;
    const script = this.options.script ?? workerScript();
    if (!script) {
      this.disabled = true;
      return undefined;
    }
    this.workers = Array.from({ length: this.options.size }, () => {
      const pool: PoolWorker = { worker: new (nodeWorkerThreads().Worker)(script), pending: new Map() };
      pool.worker.unref();
      const failAll = (error: Error) => {
        for (const { reject } of pool.pending.values()) reject(error);
        pool.pending.clear();
      };
      pool.worker.on("message", (reply: AnalysisReply) => {
        const waiting = pool.pending.get(reply.id);
        if (!waiting) return;
        pool.pending.delete(reply.id);
        if (pool.pending.size === 0) pool.worker.unref();
        if ("error" in reply) waiting.reject(new Error(reply.error));
        else waiting.resolve(reply.terms);
      });
      pool.worker.on("error", failAll);
      pool.worker.on("exit", (code) => failAll(new Error(`analysis worker exited with code ${code}`)));
      return pool;
    });
    return this.workers;
  }

  private request(pool: PoolWorker, writes: DocumentWrite[]): Promise<[string, string][][]> {
    const id = this.nextId++;
    const message: AnalysisRequest = {
      id,
      documents: writes.map((w) => ({
        title: w.document.title ?? null,
        chunks: w.chunks.map((c) => {
          const code = codeFields(c);
          return code ? [c.heading ?? null, c.text, code] : [c.heading ?? null, c.text];
        }),
      })),
    };
    return new Promise((resolve, reject) => {
      pool.pending.set(id, { resolve, reject });
      // Held open while it works, so a program waiting only for it does not exit meanwhile.
      pool.worker.ref();
      pool.worker.postMessage(message);
    });
  }

  /** Ends the workers (they start again on the next large batch). */
  async close(): Promise<void> {
    const workers = this.workers;
    this.workers = undefined;
    if (workers) await Promise.all(workers.map((w) => w.worker.terminate()));
  }
}
