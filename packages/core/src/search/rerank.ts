// Reordering retrieved passages with a cross-encoder (rerank: true): the configured reranker,
// and its scores checked and clamped to 0–1.
import type { Reranker } from "@docdb/embed";
import type { ChunkHit } from "@docdb/store";
import type { DatabaseContext } from "../database/context.js";
import { embeddingInput } from "../embedding-guard.js";
import { DocDBError } from "../errors.js";

/** The configured reranker; RERANKER_UNAVAILABLE (saying how to configure one) when there is none. */
export function requireReranker(ctx: DatabaseContext): Reranker {
  const reranker = ctx.services.reranker;
  if (!reranker) {
    const why = ctx.services.rerankerProblem ?? "no reranker is configured";
    throw new DocDBError(
      "RERANKER_UNAVAILABLE",
      `cannot rerank: ${why}. Set DOCDB_RERANKER=local (a cross-encoder on this machine) or DOCDB_RERANKER=cohere with DOCDB_RERANKER_URL, or search without rerank`,
    );
  }
  return reranker;
}

/** Reranker scores (0–1) for the hits, in their order; failures are RERANKER_UNAVAILABLE. */
export async function rerank(ctx: DatabaseContext, reranker: Reranker, query: string, hits: ChunkHit[]): Promise<number[]> {
  if (hits.length === 0) return [];
  const started = performance.now();
  let scores: number[];
  try {
    // A remote reranker answers within the deadline; a local one may first load (or download) its model.
    const deadlineMs = reranker.provider === "local" ? undefined : ctx.services.rerankDeadlineMs;
    scores = await withinDeadline(deadlineMs, reranker.provider, (signal) =>
      reranker.rerank(
        query,
        hits.map((h) => embeddingInput({ text: h.text, heading: h.heading, title: h.title })),
        { signal },
      ),
    );
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    throw new DocDBError("RERANKER_UNAVAILABLE", `cannot rerank: ${message}`, { cause: error });
  }
  if (scores.length !== hits.length || scores.some((s) => typeof s !== "number" || !Number.isFinite(s))) {
    throw new DocDBError("RERANKER_UNAVAILABLE", `reranker ${reranker.provider}/${reranker.modelId} did not score every passage`);
  }
  ctx.logger.debug(
    { provider: reranker.provider, model: reranker.modelId, size: hits.length, ms: Math.round(performance.now() - started) },
    "rerank call",
  );
  return scores.map((s) => Math.min(1, Math.max(0, s)));
}

/**
 * Runs `work` with a signal aborted at the deadline, and answers by then whether or not the work
 * honours the signal (a reranker that stalls mid-answer included).
 */
async function withinDeadline<T>(ms: number | undefined, provider: string, work: (signal?: AbortSignal) => Promise<T>): Promise<T> {
  if (ms === undefined) return work();
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      const error = new Error(`${provider} did not answer within ${Math.round(ms / 100) / 10} s (DOCDB_RERANK_DEADLINE_MS)`);
      controller.abort(error);
      reject(error);
    }, ms);
  });
  const running = work(controller.signal);
  running.catch(() => undefined);
  try {
    return await Promise.race([running, deadline]);
  } finally {
    clearTimeout(timer);
  }
}
