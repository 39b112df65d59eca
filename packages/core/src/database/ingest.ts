// Storing documents: validate, chunk, embed (before the write, or after it for keyed
// replacements) and write; one document or several in one transaction.
import { type Chunk, chunkMarkdown, chunkText } from "@docdb/chunker";
import type { EmbeddingModel } from "@docdb/embed";
import type { DocumentWrite, WriteResult } from "@docdb/store";
import { analyseInThread } from "../analysis.js";
import { assertSameModel, embeddingInput } from "../embedding-guard.js";
import { DocDBError } from "../errors.js";
import { type LocatorSegment, MAX_EXTRACTED_TEXT_LENGTH } from "../extraction.js";
import { isSystemCollection, MEMORY_COLLECTION_PREFIX } from "../memory/names.js";
import { contentHash, newId, toStoredChunks } from "../stored-chunks.js";
import type { InsertInput, InsertResult } from "../types.js";
import { validateKey, validateMetadata, validateOptionalText, validateText } from "../validate.js";
import { type DatabaseContext, describeEmbeddingFailure } from "./context.js";

/**
 * An insert as core's rooms hand it over: a caller inside core may choose the id; extraction
 * adds locators and its chunks, cut page by page.
 */
export type InternalInsert = InsertInput & { id?: string; segments?: LocatorSegment[]; chunks?: Chunk[] };

/** The deadline in ms of the provider calls that embed `chunks` chunks. */
export type Deadline = (chunks: number) => number;

/** A validated, chunked document with its ids, ready to analyse, embed and write. */
export interface PreparedInsert {
  write: DocumentWrite;
  title: string | null;
  /** Has a key: may replace a document, whose unchanged chunks keep their vectors. */
  keyed: boolean;
}

/** Runs embedding work; why it failed (for a warning), or undefined when it succeeded. */
export async function failureOf(work: () => Promise<void>): Promise<string | undefined> {
  try {
    await work();
    return undefined;
  } catch (error) {
    return describeEmbeddingFailure(error);
  }
}

function chunk(ctx: DatabaseContext, input: InsertInput, text: string): Chunk[] {
  const options = ctx.services.chunkOptions;
  const markdown = input.format === "markdown" || (input.format === undefined && /\.(md|markdown|mdx)$/i.test(input.source ?? ""));
  return markdown ? chunkMarkdown(text, options) : chunkText(text, options);
}

/**
 * One short line for every insert without vectors: the reason's first sentence only (a missing
 * local model explains its three ways out once, in `docdb models` and `status`, not per insert).
 */
function pendingWarning(ctx: DatabaseContext, reason: string): string {
  const [first] = reason.split(". Ways out");
  const hint = first !== reason ? "; `docdb models` shows how to get one" : "";
  return `stored without vectors (${first}${hint}); keyword search finds it now, and \`docdb embed --pending --db ${ctx.name}\` embeds it later`;
}

/** Refuses docdb's reserved collections ("_…", agent memory) in a user's insert. */
export function assertUserCollection(input: InsertInput): void {
  if (typeof input === "object" && input !== null && typeof input.collection === "string" && isSystemCollection(input.collection)) {
    throw new DocDBError(
      "INVALID_REQUEST",
      `collection names starting with "_" are reserved for docdb (agent memory lives in ${MEMORY_COLLECTION_PREFIX}*): choose another name`,
    );
  }
}

/**
 * Validates an insert, chunks it and gives the document and its chunks their ids (a caller
 * inside core may choose the document's id).
 */
export function prepareInsert(ctx: DatabaseContext, input: InternalInsert): PreparedInsert {
  if (typeof input !== "object" || input === null) throw new DocDBError("INVALID_REQUEST", "insert needs an object with a text field");
  // Extracted documents (a 300-page PDF) are as long as their files make them, within their own limit.
  const limit = input.segments !== undefined ? Math.max(ctx.services.maxTextLength, MAX_EXTRACTED_TEXT_LENGTH) : ctx.services.maxTextLength;
  const text = validateText(input.text, limit);
  const metadata = validateMetadata(input.metadata);
  const key = input.key === undefined ? undefined : validateKey(input.key);
  const title = validateOptionalText(input.title, "title", 1000);
  const source = validateOptionalText(input.source, "source", 4096);
  const collection = validateOptionalText(input.collection, "collection", 200);
  const chunks = toStoredChunks(text, input.chunks ?? chunk(ctx, input, text), title, input.segments);
  return {
    title,
    keyed: key !== undefined,
    write: {
      document: {
        id: input.id ?? newId(),
        key: key ?? null,
        source,
        title,
        content: text,
        contentHash: contentHash(text),
        metadata,
        collection,
      },
      chunks,
      upsertByKey: key !== undefined,
    },
  };
}

/**
 * Embeds the chunks of documents that replace nothing (no key) before they are written, so
 * their vectors go into the same transaction as the chunks. Throws when the provider fails.
 */
export async function embedBeforeWrite(
  ctx: DatabaseContext,
  model: EmbeddingModel,
  items: PreparedInsert[],
  deadlineMs: Deadline,
): Promise<void> {
  const chunks = items.flatMap((p) => p.write.chunks.map((chunk) => ({ chunk, title: p.title })));
  if (chunks.length === 0) return;
  const vectors = await ctx.embed(
    model,
    chunks.map(({ chunk, title }) => embeddingInput({ text: chunk.text, heading: chunk.heading, title })),
    "document",
    { deadlineMs: deadlineMs(chunks.length) },
  );
  await ctx.recordModel(model);
  chunks.forEach(({ chunk }, i) => {
    chunk.vector = vectors[i];
  });
}

/**
 * Embeds, after the write, the chunks of keyed documents that did not take over a vector from
 * the document they replaced (unchanged chunks keep theirs, so they are not embedded again).
 */
export async function embedAfterWrite(
  ctx: DatabaseContext,
  model: EmbeddingModel,
  items: { prepared: PreparedInsert; written: WriteResult }[],
  deadlineMs: Deadline,
): Promise<void> {
  const pending: { id: string; text: string; heading: string | null | undefined; title: string | null }[] = [];
  for (const { prepared, written } of items) {
    if (prepared.write.chunks.length === written.reusedVectors) continue;
    // Only when some vectors were carried over must the store say which chunks still need one.
    const chunks =
      written.reusedVectors === 0 ? prepared.write.chunks : (await ctx.store.getChunks(written.docId)).filter((c) => !c.embedded);
    for (const c of chunks) pending.push({ id: c.id, text: c.text, heading: c.heading, title: prepared.title });
  }
  if (pending.length === 0) return;
  const vectors = await ctx.embed(model, pending.map(embeddingInput), "document", { deadlineMs: deadlineMs(pending.length) });
  await ctx.recordModel(model);
  await ctx.store.writeVectors(pending.map((c, i) => ({ chunkId: c.id, vector: vectors[i] as Float32Array })));
}

/** The result of one stored document; `failure` is why embedding failed, when it did. */
export function insertResult(
  ctx: DatabaseContext,
  prepared: PreparedInsert,
  written: WriteResult,
  model: EmbeddingModel | null,
  failure: string | undefined,
): InsertResult {
  const { docId, replaced, reusedVectors } = written;
  const chunkCount = prepared.write.chunks.length;
  const warnings: string[] = [];
  let embedded = chunkCount === reusedVectors;
  if (!model) {
    if (!embedded) warnings.push(pendingWarning(ctx, ctx.services.embeddingProblem ?? "no embedding provider is configured"));
  } else if (failure !== undefined) {
    // Info, not warn: the caller gets the same words in `warnings` (the CLI prints them once).
    ctx.logger.info({ db: ctx.name, doc_id: docId, err: failure }, "embedding failed; document stored as pending");
    if (!embedded) warnings.push(pendingWarning(ctx, failure));
  } else embedded = true;
  const result: InsertResult = { doc_id: docId, chunk_count: chunkCount, embedded, replaced, reused_vectors: reusedVectors, warnings };
  return result;
}

/**
 * Several documents written in one transaction (all or none; throws when the write
 * fails), each embedded as `insertDocument` embeds one. Used by `insertDocument` and by agent
 * memory (knowledge plus the QAs it marks merged). No reserved-collection check: callers inside
 * core choose their collections (and may choose the documents' ids).
 */
export async function insertTogether(ctx: DatabaseContext, inputs: InternalInsert[]): Promise<InsertResult[]> {
  const started = performance.now();
  const prepared = inputs.map((input) => prepareInsert(ctx, input));
  analyseInThread(prepared.map((p) => p.write));
  const model = ctx.embedding;
  if (model) assertSameModel(await ctx.store.getEmbeddingInfo(), model, ctx.name);

  // An insert answers within the deadline: what is not embedded by then stays pending.
  const deadlineMs: Deadline = () => ctx.services.embedDeadlineMs;
  const fresh = prepared.filter((p) => !p.keyed);
  let failure: string | undefined;
  if (model && fresh.length > 0) failure = await failureOf(() => embedBeforeWrite(ctx, model, fresh, deadlineMs));
  const written = await ctx.store.writeDocuments(prepared.map((p) => p.write));
  const keyed = prepared.flatMap((p, i) => (p.keyed ? [{ prepared: p, written: written[i] as WriteResult }] : []));
  let keyedFailure: string | undefined;
  if (model && keyed.length > 0) keyedFailure = await failureOf(() => embedAfterWrite(ctx, model, keyed, deadlineMs));

  const results = prepared.map((p, i) => {
    // A document without a key has vectors exactly when they were computed before the write.
    const why = p.keyed ? keyedFailure : p.write.chunks.some((c) => c.vector) ? undefined : failure;
    return insertResult(ctx, p, written[i] as WriteResult, model, why);
  });
  for (const result of results) {
    ctx.logger.info(
      {
        db: ctx.name,
        doc_id: result.doc_id,
        chunks: result.chunk_count,
        replaced: result.replaced,
        embedded: result.embedded,
        ms: Math.round(performance.now() - started),
      },
      "insert",
    );
  }
  if (results.some((r) => !r.embedded)) ctx.services.onPending?.();
  return results;
}

/**
 * Stores a document: chunks it, analyses its words, embeds the chunks, and writes document,
 * chunks, keyword index and vectors in one transaction (see Database.insertDocument).
 */
export async function insertDocument(ctx: DatabaseContext, input: InsertInput): Promise<InsertResult> {
  assertUserCollection(input);
  // One deadline for the whole insert (a keyed one may embed before and after its write).
  const [result] = await insertTogether(ctx.withDeadline(), [input]);
  return result as InsertResult;
}
