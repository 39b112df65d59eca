import type { EmbeddingModel } from "@docdb/embed";
import type { EmbeddingInfo } from "@docdb/store";
import { DocDBError } from "./errors.js";

/**
 * Throws DIMENSION_MISMATCH or MODEL_MISMATCH when `model` is not the model that embedded the
 * database, so vectors from two models never meet. A database with no vectors accepts any model.
 */
export function assertSameModel(info: EmbeddingInfo | undefined, model: EmbeddingModel, dbName: string): void {
  if (!info) return;
  const fix = `run \`docdb reembed --db ${dbName}\` to rebuild its vectors with the current model, or configure ${info.provider}/${info.model} again`;
  if (info.dimensions !== model.dimensions) {
    throw new DocDBError(
      "DIMENSION_MISMATCH",
      `database "${dbName}" holds ${info.dimensions}-dimension vectors from ${info.provider}/${info.model}, but the current model ${model.provider}/${model.modelId} makes ${model.dimensions}: ${fix}`,
    );
  }
  if (info.model !== model.modelId || info.provider !== model.provider) {
    throw new DocDBError(
      "MODEL_MISMATCH",
      `database "${dbName}" was embedded with ${info.provider}/${info.model}, but the current model is ${model.provider}/${model.modelId}: ${fix}`,
    );
  }
}

/** The text a chunk's vector is computed from: document title and heading path give it context. */
export function embeddingInput(chunk: { text: string; heading?: string | null; title?: string | null }): string {
  const parts = [chunk.title, chunk.heading, chunk.text].filter((p): p is string => typeof p === "string" && p.trim() !== "");
  return parts.join("\n");
}
