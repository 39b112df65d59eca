// Comparing memory by meaning: the model when the database's vectors fit it, vectors for
// texts (keywords when the model fails), and the best cosine per document.
import type { EmbeddingModel } from "@docdb/embed";
import type { Filter } from "@docdb/store";
import type { DatabaseContext } from "../database/context.js";
import { assertSameModel } from "../embedding-guard.js";
import { DocDBError } from "../errors.js";

/** The model, when the database's vectors can be compared with it; null means "compare keywords". */
export async function vectorModel(db: DatabaseContext): Promise<EmbeddingModel | null> {
  const model = db.embedding;
  if (!model) return null;
  const info = await db.store.getEmbeddingInfo();
  if (!info) return null;
  assertSameModel(info, model, db.name);
  return model;
}

/** Vectors for texts, or undefined (with a warning) when the model fails: callers fall back to keywords. */
export async function vectors(
  db: DatabaseContext,
  model: EmbeddingModel,
  texts: string[],
  warnings: string[],
): Promise<Float32Array[] | undefined> {
  try {
    return await db.embed(model, texts, "document", { deadlineMs: db.services.embedDeadlineMs });
  } catch (error) {
    if (DocDBError.isInstance(error) && error.code !== "EMBEDDING_UNAVAILABLE") throw error;
    const reason = error instanceof Error ? error.message : String(error);
    warnings.push(`compared by keywords: the embedding model failed (${reason})`);
    return undefined;
  }
}

/** Cosine similarity of `text` to the best chunk of each document `filter` allows (nearest `limit` chunks). */
export async function vectorScores(
  db: DatabaseContext,
  model: EmbeddingModel,
  text: string,
  filter: Filter,
  limit: number,
  warnings: string[],
): Promise<Map<string, number> | undefined> {
  const scores = new Map<string, number>();
  const [probe] = (await vectors(db, model, [text], warnings)) ?? [];
  if (!probe) return undefined;
  const hits = await db.store.vectorSearch(probe, { limit, filter, exact: true });
  const chunks = await db.store.chunkHits(hits.map((h) => h.chunkId));
  const docOf = new Map(chunks.map((c) => [c.id, c.docId]));
  for (const hit of hits) {
    const doc = docOf.get(hit.chunkId);
    if (doc === undefined) continue;
    scores.set(doc, Math.max(scores.get(doc) ?? 0, 1 - hit.distance));
  }
  return scores;
}
