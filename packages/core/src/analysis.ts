import { existsSync } from "node:fs";
import { availableParallelism } from "node:os";
import { fileURLToPath } from "node:url";
import type { Worker } from "node:worker_threads";
import { ANALYZER_VERSION, analyzeForIndex, indexTerms, nativeWordsStatus } from "@docdb/analyzer";
import type { DocumentWrite } from "@docdb/store";
import { type AnalysisReply, type AnalysisRequest, CLAIM, type CodeFields } from "./analysis-protocol.js";
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

/** Where the analyzer's ICU words come from: the icu-words addon, or Intl.Segmenter (same words, slower) and why. */
export function wordSegmentation(): { source: "icu-words addon" | "Intl.Segmenter"; reason: string } {
  const { active, reason } = nativeWordsStatus();
  return { source: active ? "icu-words addon" : "Intl.Segmenter", reason };
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

/** analyseInThread as an Analyse (a failure rejects). */
const inThread: Analyse = async (writes) => analyseInThread(writes);

/**
 * Analyses one piece of work in this thread; false when nothing is left that this thread may
 * take. A caller that would otherwise wait for the workers calls it (see `analysed`) with the
 * work it waits for: a queued piece, or else a piece of that work sent to a worker that has
 * not started it.
 */
export type AnalyseHere = (waitingFor?: Promise<void>) => boolean;

/**
 * Waits for `work`, analysing pieces of it (or queued ones) in this thread meanwhile: the main
 * thread, which would only wait, takes its share of the words, so every core works and none idles.
 */
export async function analysed(work: Promise<void>, here?: AnalyseHere): Promise<void> {
  if (here) {
    let settled = false;
    work.then(
      () => {
        settled = true;
      },
      () => {
        settled = true;
      },
    );
    // Between pieces the event loop runs, so the workers' answers arrive and settle `work`.
    while (!settled && here(work)) await new Promise((resolve) => setImmediate(resolve));
  }
  await work;
}

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

/** Documents of one `analyse` call, analysed together by a worker or by this thread. */
interface Piece {
  writes: DocumentWrite[];
  chunks: number;
  /** Called once the piece's chunks have their terms. */
  done: () => void;
  /** Once sent: the worker and the claim slot of its request. */
  sent?: { pool: PoolWorker; id: number; slot: number };
}

interface PoolWorker {
  worker: Worker;
  /** Pieces sent and not answered yet, by request id (a piece this thread claims leaves it). */
  pending: Map<number, Piece>;
  /** Their chunks. */
  chunks: number;
  /** The claim slots this pool shares with the worker (see CLAIM), one per request in flight. */
  claims: Int32Array;
  /** Requests posted and not answered yet, those this thread claimed included. */
  inFlight: number;
  nextSlot: number;
}

/** Claim slots per worker: more than the requests it can have in flight (AHEAD_CHUNKS pieces at most, plus claimed ones). */
const CLAIM_SLOTS = 4096;

/**
 * Chunks per piece: small enough that the main thread, taking a piece while it waits, waits
 * little longer than needed (~4 ms of analysis), large enough that messages stay few.
 */
const PIECE_CHUNKS = 32;

/**
 * Chunks sent to a worker ahead. Its answers are read only between the main thread's writes,
 * which hold the thread for ~25 ms a batch of 100 documents; with ICU words from the addon a
 * worker analyses ~500 chunks in that time, so it is sent what the pipeline has queued (two
 * batches, ~600 chunks) rather than 256, which left it idle for half of every write.
 */
const AHEAD_CHUNKS = 1024;

/** Splits writes into pieces of about PIECE_CHUNKS chunks, whole documents each. */
function pieces(writes: DocumentWrite[]): { writes: DocumentWrite[]; chunks: number }[] {
  const out: { writes: DocumentWrite[]; chunks: number }[] = [];
  let current: { writes: DocumentWrite[]; chunks: number } = { writes: [], chunks: 0 };
  for (const w of writes) {
    current.writes.push(w);
    current.chunks += w.chunks.length;
    if (current.chunks >= PIECE_CHUNKS) {
      out.push(current);
      current = { writes: [], chunks: 0 };
    }
  }
  if (current.writes.length > 0) out.push(current);
  return out;
}

/**
 * Word analysis in worker threads, for bulk inserts: ICU word segmentation is most of the CPU
 * an insert costs, and the workers analyse the next batches while the main thread writes this
 * one. Work is queued in pieces of a few documents; each worker is sent some ahead, and the
 * main thread, instead of waiting for the workers, analyses the queued pieces itself
 * (`analyseHere`), so on N cores N - 1 workers and the main thread keep every core busy without
 * more threads than cores. Started on the first batch large enough to pay (`minChunks`), with
 * `size` workers; they hold the process open only while they work, and `close` ends them. A
 * worker that fails turns the pool off: analysis carries on in this thread, with the same terms.
 *
 * Measured on 2 cores (BENCHMARKS.md): one worker and the main thread take less CPU per chunk
 * than two workers beside a waiting main thread, at the same or a higher rate.
 */
export class AnalysisPool {
  private workers: PoolWorker[] | undefined;
  private disabled = false;
  private nextId = 0;
  /** Pieces waiting for a worker, or for the main thread to take them (oldest first). */
  private readonly queue: Piece[] = [];
  /** The pieces of each piece of work `analyse` returned, for `analyseHere` to take from. */
  private readonly waiting = new WeakMap<Promise<void>, Piece[]>();

  constructor(private readonly options: { size: number; minChunks: number; logger?: Logger; script?: string }) {}

  /**
   * Workers for this machine: one per core but one (the main thread analyses too), at least
   * one, at most four.
   */
  static defaultSize(): number {
    return Math.max(1, Math.min(4, availableParallelism() - 1));
  }

  /** Worker threads running now (0 before the first large batch, and after a failure). */
  get running(): number {
    return this.workers?.length ?? 0;
  }

  readonly analyse: Analyse = (writes) => {
    const chunks = writes.reduce((n, w) => n + w.chunks.length, 0);
    // Workers start for a batch large enough to pay their start; once running, they take every
    // batch of a piece or more (short documents make batches of 100 with few chunks).
    const small = this.workers ? chunks < PIECE_CHUNKS : chunks < this.options.minChunks;
    if (this.disabled || this.options.size < 1 || small || !this.start()) return inThread(writes);
    const list: Piece[] = [];
    const work = new Promise<void>((resolve) => {
      const parts = pieces(writes);
      let left = parts.length;
      const done = () => {
        if (--left === 0) resolve();
      };
      for (const part of parts) list.push({ ...part, done });
    });
    this.waiting.set(work, list);
    this.queue.push(...list);
    this.send();
    return work;
  };

  /**
   * Analyses in this thread the oldest queued piece, or else the last piece of `waitingFor`
   * that a worker was sent and has not started (see AnalyseHere).
   */
  readonly analyseHere: AnalyseHere = (waitingFor) => {
    const piece = this.queue.shift() ?? this.claim(waitingFor);
    if (!piece) return false;
    analyseInThread(piece.writes);
    piece.done();
    return true;
  };

  /**
   * The last piece of `work` sent to a worker and not started there, taken for this thread:
   * its claim slot moves from FREE to HERE, and the worker, reaching the request, skips it.
   * Claiming from the end while the worker works from the start, the two meet in the middle, so
   * a caller waiting for a batch (the first of an insert above all) waits about half as long.
   */
  private claim(work: Promise<void> | undefined): Piece | undefined {
    const list = work ? this.waiting.get(work) : undefined;
    if (!list) return undefined;
    for (let i = list.length - 1; i >= 0; i--) {
      const piece = list[i] as Piece;
      const sent = piece.sent;
      if (!sent || !sent.pool.pending.has(sent.id)) continue;
      if (Atomics.compareExchange(sent.pool.claims, sent.slot, CLAIM.FREE, CLAIM.HERE) !== CLAIM.FREE) continue;
      sent.pool.pending.delete(sent.id);
      sent.pool.chunks -= piece.chunks;
      return piece;
    }
    return undefined;
  }

  /** Sends queued pieces to the workers, up to AHEAD_CHUNKS each. */
  private send(): void {
    for (const pool of this.workers ?? []) {
      while (pool.chunks < AHEAD_CHUNKS && pool.inFlight < CLAIM_SLOTS && this.queue.length > 0)
        this.request(pool, this.queue.shift() as Piece);
    }
  }

  private start(): PoolWorker[] | undefined {
    if (this.workers) return this.workers;
    const script = this.options.script ?? workerScript();
    if (!script) {
      this.disabled = true;
      return undefined;
    }
    const workers = Array.from({ length: this.options.size }, () => {
      const claims = new Int32Array(new SharedArrayBuffer(CLAIM_SLOTS * Int32Array.BYTES_PER_ELEMENT));
      const worker = new (nodeWorkerThreads().Worker)(script, { workerData: { claims: claims.buffer } });
      const pool: PoolWorker = { worker, pending: new Map(), chunks: 0, claims, inFlight: 0, nextSlot: 0 };
      pool.worker.unref();
      pool.worker.on("message", (reply: AnalysisReply) => this.answered(pool, reply));
      pool.worker.on("error", (error: Error) => this.fail(pool, error));
      pool.worker.on("exit", (code) => this.fail(pool, new Error(`analysis worker exited with code ${code}`)));
      return pool;
    });
    this.workers = workers;
    return workers;
  }

  private answered(pool: PoolWorker, reply: AnalysisReply): void {
    if (--pool.inFlight === 0) pool.worker.unref();
    const piece = pool.pending.get(reply.id);
    // A piece this thread claimed (the worker skipped it) was answered here already.
    if (!piece || "skipped" in reply) return;
    if ("error" in reply) {
      this.fail(pool, new Error(reply.error));
      return;
    }
    pool.pending.delete(reply.id);
    pool.chunks -= piece.chunks;
    const { terms } = reply;
    try {
      piece.writes.forEach((w, d) => {
        w.chunks.forEach((chunk, c) => {
          const pair = terms[d]?.[c];
          if (!pair) throw new Error("the analysis worker answered for fewer chunks than it was sent");
          chunk.terms = { version: ANALYZER_VERSION, title: pair[0], body: pair[1] };
        });
      });
    } catch (error) {
      // Analysed again here (with the others this worker held), whatever it had set.
      pool.pending.set(reply.id, piece);
      this.fail(pool, error as Error);
      return;
    }
    piece.done();
    this.send();
  }

  /**
   * A worker failed: the pool stops, and every piece sent or queued is analysed in this thread
   * (the same terms), so no insert waits for an answer that will not come.
   */
  private fail(pool: PoolWorker, error: Error): void {
    if (!this.workers?.includes(pool)) return;
    this.options.logger?.warn({ err: error.message }, "analysis worker failed; analysing in the main thread");
    this.disabled = true;
    for (const w of this.stop()) void w.worker.terminate();
  }

  /** Ends the workers and analyses here whatever they or the queue still held. */
  private stop(): PoolWorker[] {
    const workers = this.workers ?? [];
    this.workers = undefined;
    const left = [...workers.flatMap((w) => [...w.pending.values()]), ...this.queue.splice(0)];
    for (const w of workers) w.pending.clear();
    for (const piece of left) {
      analyseInThread(piece.writes);
      piece.done();
    }
    return workers;
  }

  private request(pool: PoolWorker, piece: Piece): void {
    const id = this.nextId++;
    // Free again: requests are answered in order, and the one that had it is answered (inFlight < CLAIM_SLOTS).
    const slot = pool.nextSlot;
    pool.nextSlot = (slot + 1) % CLAIM_SLOTS;
    Atomics.store(pool.claims, slot, CLAIM.FREE);
    piece.sent = { pool, id, slot };
    const message: AnalysisRequest = {
      id,
      slot,
      documents: piece.writes.map((w) => ({
        title: w.document.title ?? null,
        chunks: w.chunks.map((c) => {
          const code = codeFields(c);
          return code ? [c.heading ?? null, c.text, code] : [c.heading ?? null, c.text];
        }),
      })),
    };
    pool.pending.set(id, piece);
    pool.chunks += piece.chunks;
    pool.inFlight++;
    // Held open while it works, so a program waiting only for it does not exit meanwhile.
    pool.worker.ref();
    pool.worker.postMessage(message);
  }

  /** Ends the workers (they start again on the next large batch); work they held is done here. */
  async close(): Promise<void> {
    const workers = this.stop();
    if (workers.length === 0) return;
    // The process is held open until they have exited: a worker stopped while it still starts
    // (this thread claimed all the work it was sent) holds nothing open, not even once
    // referenced, and the process would end inside `close` (Node.js 20).
    const open = setInterval(() => undefined, 60_000);
    try {
      await Promise.all(workers.map((w) => w.worker.terminate()));
    } finally {
      clearInterval(open);
    }
  }
}
