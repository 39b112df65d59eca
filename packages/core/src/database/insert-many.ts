// Bulk inserts: documents in batches of one transaction each, analysed ahead in worker threads,
// embedded before each write, refused one by one when a batch cannot be written.

import type { WriteResult } from "@docdb/store";
import { analysed as analysedHelping, analyseInThread } from "../analysis.js";
import { assertSameModel } from "../embedding-guard.js";
import { DocDBError, toDocDBError } from "../errors.js";
import type { InsertInput, InsertManyItem, InsertManyOptions, InsertManyResult } from "../types.js";
import type { DatabaseContext } from "./context.js";
import {
  assertUserCollection,
  type Deadline,
  embedAfterWrite,
  embedBeforeWrite,
  failureOf,
  insertResult,
  type PreparedInsert,
  prepareInsert,
} from "./ingest.js";

/** Documents per transaction of `insertDocuments`, by default and at most. */
export const DEFAULT_INSERT_BATCH = 100;
export const MAX_INSERT_BATCH = 1000;
/** Batches analysed ahead of the one being written. */
const PIPELINE_DEPTH = 2;

/** The entry of a document that was not stored. */
function refused(error: unknown): InsertManyItem {
  const { code, message } = toDocDBError(error);
  return { ok: false, error: { code, message } };
}

function countOk(results: (InsertManyItem | undefined)[]): number {
  return results.filter((r) => r?.ok).length;
}

/** Stores many documents in batches (see Database.insertDocuments). */
export async function insertDocuments(
  ctx: DatabaseContext,
  inputs: InsertInput[],
  options: InsertManyOptions = {},
): Promise<InsertManyResult> {
  if (!Array.isArray(inputs)) throw new DocDBError("INVALID_REQUEST", "insertDocuments needs an array of documents");
  const batchSize = options.batch_size ?? DEFAULT_INSERT_BATCH;
  if (!Number.isInteger(batchSize) || batchSize < 1 || batchSize > MAX_INSERT_BATCH) {
    throw new DocDBError("INVALID_REQUEST", `batch_size must be an integer from 1 to ${MAX_INSERT_BATCH}`);
  }
  const model = ctx.embedding;
  if (model && inputs.length > 0) assertSameModel(await ctx.store.getEmbeddingInfo(), model, ctx.name);
  const results: InsertManyItem[] = new Array(inputs.length);
  // One insert's deadline for each of the provider's batches (calls) a batch of documents needs.
  const deadlineMs: Deadline = (chunks) =>
    ctx.services.embedDeadlineMs * Math.max(1, Math.ceil(chunks / Math.max(1, model?.maxBatchSize ?? 1)));
  // Once the provider fails, the rest of the call is stored without vectors.
  let failure: string | undefined;
  // Once the store cannot be reached, the rest of the call is refused.
  let unreachable: DocDBError | undefined;

  const prepareBatch = (from: number) => {
    const batch: { index: number; prepared: PreparedInsert }[] = [];
    for (let i = from; i < Math.min(from + batchSize, inputs.length); i++) {
      try {
        const input = inputs[i] as InsertInput;
        assertUserCollection(input);
        batch.push({ index: i, prepared: prepareInsert(ctx, input) });
      } catch (error) {
        results[i] = refused(error);
      }
    }
    const writes = batch.map((b) => b.prepared.write);
    return {
      batch,
      analysed: ctx.services.analyse ? ctx.services.analyse(writes) : Promise.resolve(analyseInThread(writes)),
    };
  };

  // Batches prepared ahead: the next PIPELINE_DEPTH batches are analysed (in worker threads, when
  // they run) while this one is written, so the workers do not wait while a batch is chunked
  // or a commit waits for the disk.
  const ahead: ReturnType<typeof prepareBatch>[] = [];
  let prepared = 0;
  const fill = () => {
    while (ahead.length < PIPELINE_DEPTH && prepared < inputs.length) {
      ahead.push(prepareBatch(prepared));
      prepared += batchSize;
    }
  };
  fill();
  for (let from = 0; ahead.length > 0; from += batchSize) {
    const { batch, analysed } = ahead.shift() as ReturnType<typeof prepareBatch>;
    // While the workers finish this batch, this thread analyses pieces of it they have not started.
    const waitStart = performance.now();
    await analysedHelping(analysed, ctx.services.analyseHere);
    const analysisMs = Math.round(performance.now() - waitStart);
    fill();
    if (options.signal?.aborted) {
      await Promise.all(ahead.map((b) => b.analysed.catch(() => undefined)));
      throw new DocDBError(
        "INTERNAL",
        `insert interrupted: ${countOk(results)} of ${inputs.length} documents were stored (every batch before the interruption is complete)`,
        { cause: options.signal.reason },
      );
    }
    const started = performance.now();
    if (unreachable) {
      for (const { index } of batch) results[index] = refused(unreachable);
    } else {
      const fresh = batch.filter((b) => !b.prepared.keyed).map((b) => b.prepared);
      if (model && failure === undefined && fresh.length > 0)
        failure = await failureOf(() => embedBeforeWrite(ctx, model, fresh, deadlineMs));
      const written = await writeBatch(
        ctx,
        batch.map((b) => b.prepared),
      );
      const keyed: { prepared: PreparedInsert; written: WriteResult }[] = [];
      batch.forEach(({ prepared }, i) => {
        const w = written[i];
        if (w instanceof DocDBError && w.code === "STORE_UNAVAILABLE") unreachable ??= w;
        if (!(w instanceof DocDBError) && prepared.keyed) keyed.push({ prepared, written: w as WriteResult });
      });
      // Keyed documents are embedded after the write (their unchanged chunks keep their vectors).
      let keyedFailure = failure;
      if (model && failure === undefined && keyed.length > 0) {
        failure = keyedFailure = await failureOf(() => embedAfterWrite(ctx, model, keyed, deadlineMs));
      }
      batch.forEach(({ index, prepared }, i) => {
        const w = written[i] as WriteResult | DocDBError;
        if (w instanceof DocDBError) {
          results[index] = refused(w);
          return;
        }
        // A document without a key has vectors exactly when they were computed before the write.
        const why = prepared.keyed ? keyedFailure : prepared.write.chunks.some((c) => c.vector) ? undefined : failure;
        results[index] = { ok: true, ...insertResult(ctx, prepared, w, model, why) };
      });
    }
    ctx.logger.info(
      { db: ctx.name, documents: batch.length, ms: Math.round(performance.now() - started), analysis_wait_ms: analysisMs },
      "insert batch",
    );
    options.onProgress?.({ done: Math.min(from + batchSize, inputs.length), total: inputs.length });
  }

  const summary: InsertManyResult = { results, inserted: 0, failed: 0, chunks: 0, pending: 0, warnings: [] };
  const warnings = new Set<string>();
  for (const r of results) {
    if (!r.ok) {
      summary.failed++;
      continue;
    }
    summary.inserted++;
    summary.chunks += r.chunk_count;
    if (!r.embedded) summary.pending++;
    for (const w of r.warnings) warnings.add(w);
  }
  summary.warnings = [...warnings];
  if (summary.pending > 0) ctx.services.onPending?.();
  return summary;
}

/**
 * Writes a batch in one transaction; when that fails, each document alone, so one document
 * the store refuses does not take the others with it. Entries are results or errors.
 */
async function writeBatch(ctx: DatabaseContext, batch: PreparedInsert[]): Promise<(WriteResult | DocDBError)[]> {
  if (batch.length === 0) return [];
  try {
    return await ctx.store.writeDocuments(batch.map((p) => p.write));
  } catch (error) {
    const first = toDocDBError(error);
    if (batch.length === 1 || first.code === "STORE_UNAVAILABLE") return batch.map(() => first);
    ctx.logger.info({ db: ctx.name, err: first.message }, "batch write failed; writing its documents one by one");
  }
  const out: (WriteResult | DocDBError)[] = [];
  let last: DocDBError | undefined;
  let giveUp: DocDBError | undefined;
  for (const prepared of batch) {
    if (giveUp) {
      out.push(giveUp);
      continue;
    }
    try {
      const [written] = await ctx.store.writeDocuments([prepared.write]);
      out.push(written as WriteResult);
      last = undefined;
    } catch (error) {
      const refusal = toDocDBError(error);
      out.push(refusal);
      // The store is gone, or two documents in a row failed alike: the cause is not the
      // documents (a lock held too long, a full disk), so the rest is not tried one by one.
      if (refusal.code === "STORE_UNAVAILABLE" || last?.code === refusal.code) giveUp = refusal;
      last = refusal;
    }
  }
  return out;
}
