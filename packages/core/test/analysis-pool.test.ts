// The analysis pool shares its work with the main thread: queued pieces analysed here while the
// caller waits, the same terms as analysis in this thread, and nothing lost when a worker fails
// or the pool closes with work still queued.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import type { DocumentWrite } from "@docdb/store";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { runNode } from "../../../test/support/node-process.js";
import { AnalysisPool, analysed, analyseInThread } from "../src/analysis.js";
import { toStoredChunks } from "../src/stored-chunks.js";

const CORE = fileURLToPath(new URL("../dist/index.js", import.meta.url));

/**
 * A program that opens docdb, inserts 60 documents (~180 chunks: the workers start) and closes
 * it, 20 times, then says so. The main thread often claims all the first work before the worker
 * has started, and closes while it still starts.
 */
const OPEN_INSERT_CLOSE = (core: string, dataDir: string) => `
import { join } from "node:path";
const core = await import(${JSON.stringify(pathToFileURL(core).href)});
const paragraph = (n, k) => ("文書" + n + "の段落" + k + "。東京の天気は晴れです。The invoice was sent to the office. ").repeat(9);
let closed = 0;
for (let round = 0; round < 20; round++) {
  const docdb = core.openDocDB({ dataDir: join(${JSON.stringify(dataDir)}, "r" + round), embedding: null, logger: core.silentLogger() });
  const db = await docdb.database("pool", { create: true });
  const docs = Array.from({ length: 60 }, (_, n) => ({ text: [0, 1, 2].map((k) => paragraph(n, k)).join("\\n\\n") }));
  const result = await db.insertDocuments(docs);
  if (result.chunks < 128) throw new Error("too few chunks for the workers to start: " + result.chunks);
  await docdb.close();
  closed++;
}
console.log("closed " + closed);
`;

const TEXTS = [
  "東京の天気は晴れです。サーバーの設定を確認しました。請求書を送付いたしました。",
  "The invoice was sent to the customer's office; retry the request with backoff.",
  "`getUserName()` returns the name. Set max_connections to 200 and parse e-mail settings.",
];

/** `count` documents of a few chunks each: Japanese, English, and (every third) chunks of code. */
function writes(count: number): DocumentWrite[] {
  return Array.from({ length: count }, (_, n) => {
    const text = Array.from({ length: 3 }, (_, k) => `${TEXTS[(n + k) % 3]} doc${n}`).join("\n");
    const parts = text.split("\n");
    let start = 0;
    const chunks = parts.map((part, index) => {
      const chunk = { index, text: part, start, end: start + part.length, headingPath: ["見出し", `part ${n}`] };
      start += part.length + 1;
      return chunk;
    });
    return {
      document: { id: `d${n}`, title: n % 4 === 0 ? `文書 ${n} title` : null, content: text, contentHash: "h", metadata: {} },
      chunks: toStoredChunks(text, chunks, null).map((c) =>
        n % 3 === 0 ? { ...c, language: "typescript", symbol: "PaymentService.retryCharge", doc: "Charges the card again." } : c,
      ),
    };
  });
}

const termsOf = (list: DocumentWrite[]) => list.map((w) => w.chunks.map((c) => c.terms));

/**
 * A worker that keeps the claim protocol but starts nothing until the main thread has claimed
 * its first request (polling the slot), then answers each request it wins with marker terms and
 * skips the rest: every piece is then the main thread's.
 */
const LATE_WORKER = `import { parentPort, workerData } from "node:worker_threads";
const claims = new Int32Array(workerData.claims);
const pause = new Int32Array(new SharedArrayBuffer(4));
let first = true;
parentPort.on("message", (m) => {
  if (first) {
    first = false;
    while (Atomics.load(claims, m.slot) === 0) Atomics.wait(pause, 0, 0, 1);
  }
  if (Atomics.compareExchange(claims, m.slot, 0, 1) !== 0) return parentPort.postMessage({ id: m.id, skipped: true });
  parentPort.postMessage({ id: m.id, terms: m.documents.map((d) => d.chunks.map(() => ["worker", "worker"])) });
});
`;

describe("analysis pool and the main thread", () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "docdb-analysis-pool-"));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it("lets the waiting thread analyse queued pieces, with the terms this thread gives", async () => {
    const expected = writes(600);
    analyseInThread(expected);
    const pool = new AnalysisPool({ size: 1, minChunks: 1 });
    try {
      // 1,800 chunks: more than a worker is sent ahead (1,024), so pieces wait in the queue.
      const pooled = writes(600);
      let here = 0;
      await analysed(pool.analyse(pooled), () => {
        const took = pool.analyseHere();
        if (took) here++;
        return took;
      });
      expect(here).toBeGreaterThan(0);
      expect(pool.running).toBe(1);
      expect(termsOf(pooled)).toEqual(termsOf(expected));
      expect(pooled[3]?.chunks[0]?.terms?.title).toMatch(/paymentservice\.retrycharge charg the card again$/);
      // Nothing is left queued: a waiter finds nothing more to take.
      expect(pool.analyseHere()).toBe(false);
    } finally {
      await pool.close();
    }
  });

  it("takes back, for the waiting thread, pieces a worker was sent and has not started", async () => {
    const expected = writes(100);
    analyseInThread(expected);
    const script = join(dir, "late-worker.mjs");
    writeFileSync(script, LATE_WORKER);
    const pool = new AnalysisPool({ size: 1, minChunks: 1, script });
    try {
      // 300 chunks: all sent to the worker at once (it is sent up to 1,024 ahead), none queued.
      const pooled = writes(100);
      const work = pool.analyse(pooled);
      expect(pool.analyseHere()).toBe(false);
      let here = 0;
      await analysed(work, (waitingFor) => {
        const took = pool.analyseHere(waitingFor);
        if (took) here++;
        return took;
      });
      // Every piece was claimed here (the worker waited for that), in pieces of ~32 chunks.
      expect(here).toBe(Math.ceil(300 / 33));
      expect(termsOf(pooled)).toEqual(termsOf(expected));
      // The worker's skips are no failure: it stays, and later work it wins carries its answers.
      const later = writes(100);
      await pool.analyse(later);
      expect(pool.running).toBe(1);
      expect(later[0]?.chunks[0]?.terms).toMatchObject({ title: "worker", body: "worker" });
    } finally {
      await pool.close();
    }
  });

  it("closes while a worker still starts without ending the process inside close", async () => {
    const script = join(dir, "open-insert-close.mjs");
    writeFileSync(script, OPEN_INSERT_CLOSE(CORE, dir));
    const { code, stdout, stderr } = await runNode(script, []);
    expect(stderr).toBe("");
    expect(code).toBe(0);
    expect(stdout.trim()).toBe("closed 20");
  }, 60_000);

  it("analyses here what a closing pool still held, and what a failed worker was given", async () => {
    const expected = writes(200);
    analyseInThread(expected);
    const pool = new AnalysisPool({ size: 1, minChunks: 1 });
    const pooled = writes(200);
    const work = pool.analyse(pooled);
    // Closed before any answer: the queued pieces and those sent to the worker are analysed here.
    await pool.close();
    await work;
    expect(termsOf(pooled)).toEqual(termsOf(expected));

    // A worker that answers with an error: the pool stops, and every piece is analysed here.
    const broken = join(dir, "answers-badly.mjs");
    writeFileSync(
      broken,
      "import { parentPort } from 'node:worker_threads';\nparentPort.on('message', (m) => parentPort.postMessage({ id: m.id, error: 'no words today' }));\n",
    );
    const warnings: string[] = [];
    const logger = { warn: (fields: { err: string }) => warnings.push(fields.err) } as never;
    const failing = new AnalysisPool({ size: 1, minChunks: 1, script: broken, logger });
    try {
      const fallback = writes(200);
      await failing.analyse(fallback);
      expect(termsOf(fallback)).toEqual(termsOf(expected));
      expect(failing.running).toBe(0);
      expect(warnings).toEqual(["no words today"]);
      // Turned off: later work stays in this thread.
      const later = writes(200);
      await failing.analyse(later);
      expect(termsOf(later)).toEqual(termsOf(expected));
      expect(failing.running).toBe(0);
    } finally {
      await failing.close();
    }
  });
});
