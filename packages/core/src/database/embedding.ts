// Embedding stored chunks after the fact: pending chunks in committed batches, and re-embedding
// every chunk with another model (resumable).
import { EmbeddingError, type EmbeddingModel } from "@docdb/embed";
import { assertSameModel, embeddingInput } from "../embedding-guard.js";
import { DocDBError } from "../errors.js";
import { MEMORY_COLLECTIONS } from "../memory/names.js";
import type { EmbedOptions, EmbedResult } from "../types.js";
import { type DatabaseContext, describeEmbeddingFailure } from "./context.js";
import { DEFAULT_EMBED_LEASE_MS, embedLease, holdingLease, leaseHolder, waitForLease } from "./embed-lease.js";

/** What to fix when a provider keeps failing, by provider. */
function providerHint(model: EmbeddingModel, error: unknown): string {
  const retryable = EmbeddingError.isInstance(error) && error.retryable;
  switch (model.provider) {
    case "openai":
      return retryable
        ? "check that the OpenAI API (or OPENAI_BASE_URL) is reachable and not rate-limiting you"
        : "check OPENAI_API_KEY, OPENAI_BASE_URL and the model settings";
    case "ollama":
      return "start Ollama (`ollama serve`) and pull the model, or point DOCDB_OLLAMA_URL at a running one";
    case "local":
      return "make the local model available (`docdb models` shows where it is looked for and how to get it), or embed with another provider (set OPENAI_API_KEY for OpenAI)";
    default:
      return `check the ${model.provider} provider`;
  }
}

/**
 * Embeds every pending chunk in batches, committing each batch, so an interrupted run
 * loses at most one batch and the next run carries on. `onEmbedded` hears each committed batch's
 * chunk ids (an import counts its own among them). Holds the database's embedding lease
 * while it runs (renewed per batch), so no two processes embed the same chunks.
 */
export async function embedPending(
  ctx: DatabaseContext,
  options: EmbedOptions = {},
  onEmbedded?: (chunkIds: string[]) => Promise<void>,
): Promise<EmbedResult> {
  const model = ctx.requireModel();
  const { store } = ctx;
  assertSameModel(await store.getEmbeddingInfo(), model, ctx.name);
  const ttlMs = ctx.services.embedLeaseMs ?? DEFAULT_EMBED_LEASE_MS;
  // A holder per run: two runs in one process (the background embedder, an import) exclude each other too.
  const lease = embedLease(store, leaseHolder(), ttlMs);
  if (!(await lease.claim())) {
    const pending = async () => (await store.counts()).pending;
    if (options.when_leased === "skip") return { embedded: 0, remaining: await pending(), leased_elsewhere: true };
    const everyMs = Math.min(1_000, Math.max(50, Math.floor(ttlMs / 4)));
    if (!(await waitForLease(lease, pending, { signal: options.signal, everyMs }))) return { embedded: 0, remaining: 0 };
  }
  return holdingLease(lease, ttlMs, () => embedLeased(ctx, model, lease, options, onEmbedded));
}

async function embedLeased(
  ctx: DatabaseContext,
  model: EmbeddingModel,
  lease: { claim(): Promise<boolean> },
  options: EmbedOptions,
  onEmbedded?: (chunkIds: string[]) => Promise<void>,
): Promise<EmbedResult> {
  const { store } = ctx;
  const batchSize = options.batch_size ?? Math.max(model.maxBatchSize, 32);
  if (!Number.isInteger(batchSize) || batchSize < 1) throw new DocDBError("INVALID_REQUEST", "batch_size must be a positive integer");
  const total = (await store.counts()).pending;
  // Agent memory is counted apart in status; say how much of the total it is, so counts agree.
  let memoryPending = 0;
  for (const collection of Object.values(MEMORY_COLLECTIONS)) memoryPending += (await store.collectionCounts(collection)).pending;
  let done = 0;
  let after: string | undefined;
  for (;;) {
    options.signal?.throwIfAborted();
    // Renewed before each batch; lost (it ran out and another process took it): stop here.
    if (!(await lease.claim())) return { embedded: done, remaining: (await store.counts()).pending, leased_elsewhere: true };
    const batch = await store.pendingChunks(batchSize, after);
    if (batch.length === 0) break;
    let vectors: Float32Array[];
    try {
      vectors = await ctx.embed(model, batch.map(embeddingInput), "document", {
        signal: options.signal,
        retries: options.retries,
        // A provider that never answers (or stalls mid-answer) stops the run at this batch.
        deadlineMs: options.deadline_ms ?? ctx.services.embedBatchDeadlineMs,
      });
    } catch (error) {
      if (DocDBError.isInstance(error) || options.signal?.aborted) throw error;
      const kept = done > 0 ? ` (the ${done} embedded are kept)` : "";
      const parts = memoryPending > 0 ? ` (${total - memoryPending} of documents, ${memoryPending} of agent memory)` : "";
      // A missing local model's own "Ways out" would repeat the hint below: its first sentence only.
      const [reason] = describeEmbeddingFailure(error).split(". Ways out");
      const left = (await store.counts()).pending;
      throw new DocDBError(
        "EMBEDDING_UNAVAILABLE",
        `embedding stopped after ${done} of ${total} pending chunks${parts}${kept}, ${left} still pending: ${reason}. To fix: ${providerHint(model, error)}; ` +
          `then run \`docdb embed --pending --db ${ctx.name}\` again (a running \`docdb serve\` or docdb-mcp retries by itself)`,
        { cause: error },
      );
    }
    await ctx.recordModel(model);
    await store.writeVectors(batch.map((c, i) => ({ chunkId: c.chunkId, vector: vectors[i] as Float32Array })));
    await onEmbedded?.(batch.map((c) => c.chunkId));
    done += batch.length;
    after = batch[batch.length - 1]?.chunkId;
    options.onProgress?.({ done, total });
  }
  return { embedded: done, remaining: (await store.counts()).pending };
}

/**
 * Drops every vector and embeds all chunks again with the current model (after a model
 * change). Resumable: chunks are marked pending first, so an interrupted run is finished by
 * `embedPending` or another `reembed`.
 */
export async function reembed(ctx: DatabaseContext, options: EmbedOptions = {}): Promise<EmbedResult> {
  const model = ctx.requireModel();
  const { store } = ctx;
  // Prove the model works before any vector is dropped: a model that cannot load must not
  // leave the database with no vectors at all.
  try {
    await ctx.embed(model, ["docdb"], "document", { signal: options.signal, deadlineMs: ctx.services.embedBatchDeadlineMs });
  } catch (error) {
    if (DocDBError.isInstance(error) || options.signal?.aborted) throw error;
    const reason = error instanceof Error ? error.message : String(error);
    throw new DocDBError("EMBEDDING_UNAVAILABLE", `cannot re-embed, the stored vectors are unchanged: ${reason}`, { cause: error });
  }
  const info = await store.getEmbeddingInfo();
  const target = { provider: model.provider, model: model.modelId, dimensions: model.dimensions };
  const sameModel = info && info.provider === model.provider && info.model === model.modelId && info.dimensions === model.dimensions;
  const inProgress = (await store.getSetting("reembed_in_progress")) === "1";
  if (!sameModel || !inProgress) {
    // Another model, or a fresh request to re-embed everything: drop the vectors, all pending.
    await store.setEmbeddingInfo(target, { replace: true });
  }
  await store.setSetting("reembed_in_progress", "1");
  const result = await embedPending(ctx, options);
  if (result.remaining === 0) await store.setSetting("reembed_in_progress", undefined);
  return result;
}
