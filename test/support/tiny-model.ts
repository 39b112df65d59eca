import { join } from "node:path";
import { fileURLToPath } from "node:url";
// @ts-expect-error -- a plain .mjs script without type declarations
import { makeTinyModel } from "../../scripts/make-tiny-model.mjs";

const root = fileURLToPath(new URL("../../test-models/", import.meta.url));

/**
 * The generated tiny BERT-shaped model (scripts/make-tiny-model.mjs), built on first use and
 * reused after: `hidden` 32 is the default model, other sizes get their own folder
 * (`tiny-bert-48`) for dimension-mismatch tests.
 */
export function tinyModelDir(hidden = 32): string {
  const outDir = join(root, hidden === 32 ? "tiny-bert" : `tiny-bert-${hidden}`);
  return (makeTinyModel as (options: { outDir: string; hidden: number }) => string)({ outDir, hidden });
}

/**
 * The generated tiny cross-encoder (scripts/make-tiny-model.mjs --rerank): a
 * BertForSequenceClassification-shaped model with one logit per (query, passage) pair.
 */
export function tinyRerankerDir(): string {
  const outDir = join(root, "tiny-bert-reranker");
  return (makeTinyModel as (options: { outDir: string; rerank: boolean; seed: number }) => string)({ outDir, rerank: true, seed: 11 });
}
