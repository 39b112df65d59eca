// Knowledge records of agent memory: groups of similar QAs to merge, storing the knowledge an
// LLM wrote for a group (marking its QAs merged), merging with a given merger, and listing.
import { allOf, type Filter } from "@docdb/store";
import { insertTogether } from "../database/ingest.js";
import { DocDBError } from "../errors.js";
import { newId } from "../stored-chunks.js";
import { vectorModel, vectors } from "./compare.js";
import { MAX_KNOWLEDGE_LENGTH, MAX_SOURCE_QA_IDS, MAX_TOPIC_LENGTH, MEMORY_COLLECTIONS, requireText, validateThreshold } from "./names.js";
import {
  inCollection,
  listAll,
  type MemoryScope,
  metadataEq,
  once,
  type QaDoc,
  str,
  stringArray,
  topics,
  toQa,
  UNMERGED_QA,
} from "./records.js";
import { contentTerms, cosine, jaccard, similarityGroups } from "./similarity.js";
import { findTopic, resolveTopic, topicKey } from "./topics.js";
import type {
  KnowledgeRecord,
  MergeCandidates,
  MergeCandidatesInput,
  MergeGroup,
  MergeResult,
  Merger,
  SimilarityMeasure,
  StoreKnowledgeInput,
  StoreKnowledgeResult,
} from "./types.js";

/** Most unmerged QAs of one topic compared pairwise by `mergeCandidates`. */
const MAX_MERGE_SCAN = 500;

/** Groups of similar unmerged QAs, per topic (see Memory.mergeCandidates). */
export async function mergeCandidates(scope: MemoryScope, input: MergeCandidatesInput): Promise<MergeCandidates> {
  const threshold = input.threshold === undefined ? undefined : validateThreshold(input.threshold);
  const warnings: string[] = [];
  let scanned = await topics(scope.db);
  if (input.topic !== undefined) {
    const name = requireText(input.topic, "topic", MAX_TOPIC_LENGTH);
    scanned = [await findTopic(scope, name, warnings)];
  }
  const model = await vectorModel(scope.db);
  const { merge_threshold, merge_keyword_threshold } = scope.options;
  let used: number | undefined;
  const groups: MergeGroup[] = [];
  for (const topic of scanned) {
    const qas = (await listAll(scope.db, { and: [UNMERGED_QA, metadataEq("topic_key", topic.normalized)] }))
      .slice(0, MAX_MERGE_SCAN)
      .map(toQa);
    if (qas.length < 2) continue;
    const found = model
      ? await vectors(
          scope.db,
          model,
          qas.map((q) => q.question),
          warnings,
        )
      : undefined;
    const measure: SimilarityMeasure = found ? "vector" : "keywords";
    const limit = threshold ?? (found ? merge_threshold : merge_keyword_threshold);
    used ??= limit;
    const terms = found ? [] : qas.map((q) => contentTerms(q.question));
    const similarity = found
      ? (i: number, j: number) => cosine(found[i] as Float32Array, found[j] as Float32Array)
      : (i: number, j: number) => jaccard(terms[i] as Set<string>, terms[j] as Set<string>);
    for (const group of similarityGroups(qas.length, similarity, limit)) {
      groups.push({
        topic: topic.name,
        similarity: measure,
        score: group.score,
        qas: group.members.map((i) => {
          const q = qas[i] as QaDoc;
          return { qa_id: q.id, question: q.question, answer: q.answer };
        }),
      });
    }
  }
  return { groups, threshold: used ?? threshold ?? (model ? merge_threshold : merge_keyword_threshold), warnings: once(warnings) };
}

/** Stores a knowledge record under a topic and marks the given QAs merged, in one transaction (see Memory.storeKnowledge). */
export async function storeKnowledge(scope: MemoryScope, input: StoreKnowledgeInput): Promise<StoreKnowledgeResult> {
  if (typeof input !== "object" || input === null) throw new DocDBError("INVALID_REQUEST", "store_knowledge needs {text, topic}");
  const text = requireText(input.text, "text", MAX_KNOWLEDGE_LENGTH);
  const topicName = requireText(input.topic, "topic", MAX_TOPIC_LENGTH);
  const ids = input.source_qa_ids ?? [];
  if (!Array.isArray(ids) || ids.some((id) => typeof id !== "string" || id.trim() === "" || id.length > 200)) {
    throw new DocDBError("INVALID_REQUEST", "source_qa_ids must be an array of qa_id strings (as store_qa and query_qa return them)");
  }
  if (ids.length > MAX_SOURCE_QA_IDS)
    throw new DocDBError("INVALID_REQUEST", `source_qa_ids has ${ids.length} ids; at most ${MAX_SOURCE_QA_IDS}`);
  const unique = [...new Set(ids)];
  const qas: QaDoc[] = [];
  const unknown: string[] = [];
  for (const id of unique) {
    const doc = await scope.db.store.getDocument(id);
    if (!doc || doc.collection !== MEMORY_COLLECTIONS.qa) unknown.push(id);
    else qas.push(toQa(doc));
  }
  if (unknown.length > 0) {
    throw new DocDBError(
      "NOT_FOUND",
      `no QA record with id ${unknown.map((id) => JSON.stringify(id)).join(", ")} in database "${scope.db.name}"; nothing was stored`,
    );
  }
  const warnings: string[] = [];
  const { topic, created } = await resolveTopic(scope, topicName, "", warnings);
  const elsewhere = qas.filter((q) => q.topicKey !== topic.normalized);
  if (elsewhere.length > 0) {
    throw new DocDBError(
      "INVALID_REQUEST",
      `QA ${elsewhere.map((q) => `${q.id} (topic "${q.topic}")`).join(", ")} is not in topic "${topic.name}": store knowledge under the QAs' topic`,
    );
  }
  const id = newId();
  const written = await insertTogether(scope.db, [
    {
      id,
      collection: MEMORY_COLLECTIONS.knowledge,
      key: `knowledge:${id}`,
      text,
      metadata: { kind: "knowledge", topic: topic.name, topic_key: topic.normalized, source_qa_ids: unique },
    },
    // The same key, text and id with merged:true: the store replaces each atomically and
    // keeps its vector (the text did not change).
    ...qas.map((q) => ({
      collection: MEMORY_COLLECTIONS.qa,
      key: q.key ?? `qa:${q.id}`,
      text: q.question,
      metadata: {
        kind: "qa",
        topic: q.topic,
        topic_key: q.topicKey,
        question: q.question,
        answer: q.answer,
        merged: true,
        merged_into: id,
      },
    })),
  ]);
  const knowledge = written[0];
  warnings.push(...(knowledge?.warnings ?? []));
  scope.db.logger.info({ db: scope.db.name, knowledge_id: knowledge?.doc_id, merged: unique.length }, "memory knowledge stored");
  return {
    knowledge_id: knowledge?.doc_id ?? id,
    topic: topic.name,
    topic_created: created,
    merged_qa_ids: qas.map((q) => q.id),
    embedded: knowledge?.embedded === true,
    warnings: once(warnings),
  };
}

/** Has `merger` write one knowledge text per candidate group and stores it (see Memory.merge). */
export async function merge(scope: MemoryScope, input: MergeCandidatesInput & { merger: Merger }): Promise<MergeResult> {
  if (typeof input?.merger !== "function")
    throw new DocDBError("INVALID_REQUEST", "merge needs a merger function (the LLM that writes the knowledge)");
  const candidates = await mergeCandidates(scope, input);
  const merged: MergeResult["merged"] = [];
  for (const group of candidates.groups) {
    const text = await input.merger(group);
    // Each group's store has its own embedding deadline (the merger's time is not part of it).
    const stored = await storeKnowledge(
      { ...scope, db: scope.db.withDeadline() },
      { text, topic: group.topic, source_qa_ids: group.qas.map((q) => q.qa_id) },
    );
    merged.push({ ...stored, score: group.score });
  }
  return { merged, threshold: candidates.threshold, warnings: candidates.warnings };
}

/** Knowledge records in creation order, of one topic or all. */
export async function listKnowledge(scope: MemoryScope, options: { topic?: string }): Promise<KnowledgeRecord[]> {
  const key = options.topic === undefined ? undefined : await topicKey(scope, options.topic);
  const filter = allOf([
    inCollection(MEMORY_COLLECTIONS.knowledge),
    key !== undefined ? metadataEq("topic_key", key) : undefined,
  ]) as Filter;
  const records: KnowledgeRecord[] = [];
  for (const d of await listAll(scope.db, filter)) {
    const doc = await scope.db.store.getDocument(d.id);
    records.push({
      knowledge_id: d.id,
      topic: str(d.metadata.topic),
      text: doc?.content ?? "",
      source_qa_ids: stringArray(d.metadata.source_qa_ids),
      created_at: d.createdAt,
    });
  }
  return records;
}
