// Question–answer records of agent memory: storing one under its topic (with the similar
// questions already there), answering a question from QAs and knowledge, and listing QAs.
import { allOf, type Filter } from "@docdb/store";
import { insertTogether } from "../database/ingest.js";
import { DocDBError } from "../errors.js";
import { searchChunks } from "../search/find.js";
import { newId } from "../stored-chunks.js";
import { validateTopK } from "../validate.js";
import { vectorModel, vectorScores } from "./compare.js";
import {
  MAX_ANSWER_LENGTH,
  MAX_CONTEXT_LENGTH,
  MAX_QUESTION_LENGTH,
  MAX_TOPIC_DESCRIPTION_LENGTH,
  MAX_TOPIC_LENGTH,
  MEMORY_COLLECTIONS,
  requireText,
} from "./names.js";
import {
  inCollection,
  listAll,
  type MemoryScope,
  metadataEq,
  once,
  qaRecord,
  str,
  stringArray,
  type TopicDoc,
  topics,
  toQa,
  UNMERGED_QA,
} from "./records.js";
import { contentTerms, jaccard } from "./similarity.js";
import { matchTopic, resolveTopic, topicKey } from "./topics.js";
import type {
  MemoryHit,
  QaRecord,
  QueryQaInput,
  QueryQaResult,
  SimilarityMeasure,
  SimilarQa,
  StoreQaInput,
  StoreQaResult,
  TopicMatch,
} from "./types.js";

/** Stores a question with its answer under a topic (see Memory.storeQa). */
export async function storeQa(scope: MemoryScope, input: StoreQaInput): Promise<StoreQaResult> {
  if (typeof input !== "object" || input === null) throw new DocDBError("INVALID_REQUEST", "store_qa needs {question, answer, topic}");
  const question = requireText(input.question, "question", MAX_QUESTION_LENGTH);
  const answer = requireText(input.answer, "answer", MAX_ANSWER_LENGTH);
  const topicName = requireText(input.topic, "topic", MAX_TOPIC_LENGTH);
  const description =
    input.topic_description === undefined ? "" : requireText(input.topic_description, "topic_description", MAX_TOPIC_DESCRIPTION_LENGTH);
  const warnings: string[] = [];
  const { topic, created, match } = await resolveTopic(scope, topicName, description, warnings);

  const id = newId();
  const [written] = await insertTogether(scope.db, [
    {
      id,
      collection: MEMORY_COLLECTIONS.qa,
      key: `qa:${id}`,
      // The question is what gets embedded and keyword-indexed: later questions are matched
      // against earlier questions. The answer travels in the metadata.
      text: question,
      metadata: { kind: "qa", topic: topic.name, topic_key: topic.normalized, question, answer, merged: false },
    },
  ]);
  const qaId = written?.doc_id ?? id;
  warnings.push(...(written?.warnings ?? []));

  const others: Filter = {
    and: [UNMERGED_QA, metadataEq("topic_key", topic.normalized), { op: "ne", field: { builtin: "doc_id" }, value: qaId }],
  };
  const { similar, similarity } = await similarQuestions(scope, question, others, written?.embedded === true, warnings);
  scope.db.logger.info({ db: scope.db.name, qa_id: qaId, topic: topic.name, similar: similar.length }, "memory qa stored");
  return {
    qa_id: qaId,
    topic: topic.name,
    topic_created: created,
    topic_match: match,
    similar,
    similarity,
    embedded: written?.embedded === true,
    warnings: once(warnings),
  };
}

async function similarQuestions(
  scope: MemoryScope,
  question: string,
  among: Filter,
  embedded: boolean,
  warnings: string[],
): Promise<{ similar: SimilarQa[]; similarity: SimilarityMeasure }> {
  const model = embedded ? await vectorModel(scope.db) : null;
  const candidates = new Map((await listAll(scope.db, among)).map((d) => [d.id, toQa(d)]));
  if (model) {
    const scores = await vectorScores(scope.db, model, question, among, 50, warnings);
    if (scores) {
      const similar = [...scores]
        .filter(([id, score]) => score >= scope.options.merge_threshold && candidates.has(id))
        .map(([id, score]) => ({ qa_id: id, question: candidates.get(id)?.question ?? "", score }))
        .sort((a, b) => b.score - a.score);
      return { similar, similarity: "vector" };
    }
  }
  const terms = contentTerms(question);
  const similar = [...candidates.values()]
    .map((q) => ({ qa_id: q.id, question: q.question, score: jaccard(terms, contentTerms(q.question)) }))
    .filter((s) => s.score >= scope.options.merge_keyword_threshold)
    .sort((a, b) => b.score - a.score);
  return { similar, similarity: "keywords" };
}

/** Answers a question from memory: unmerged QA records and knowledge records, best first (see Memory.queryQa). */
export async function queryQa(scope: MemoryScope, input: QueryQaInput): Promise<QueryQaResult> {
  if (typeof input !== "object" || input === null) throw new DocDBError("INVALID_REQUEST", "query_qa needs {question}");
  const question = requireText(input.question, "question", MAX_QUESTION_LENGTH);
  const context = input.context === undefined ? undefined : requireText(input.context, "context", MAX_CONTEXT_LENGTH);
  const topK = validateTopK(input.top_k ?? 5);
  const warnings: string[] = [];
  let topic: { topic: TopicDoc; match: TopicMatch } | undefined;
  if (context !== undefined) {
    topic = await matchTopic(scope, context, "context", warnings);
    if (!topic) {
      const names = (await topics(scope.db)).map((t) => t.name);
      return {
        results: [],
        topic: null,
        note:
          names.length === 0
            ? "no topic matches the context: memory holds no topics yet (store answers with store_qa)"
            : `no topic matches the context (topics: ${names.slice(0, 20).join(", ")}${names.length > 20 ? ", …" : ""}); nothing was searched`,
        warnings,
      };
    }
  }
  const results = await searchMemory(scope, question, topK, topic?.topic.normalized, warnings);
  return {
    results,
    topic: topic?.match ?? null,
    ...(results.length === 0
      ? { note: topic ? `nothing in topic "${topic.topic.name}" matches the question` : "nothing in memory matches the question" }
      : {}),
    warnings: once(warnings),
  };
}

/** Hybrid search over unmerged QAs and knowledge (of one topic, or all), one hit per record. */
export async function searchMemory(
  scope: MemoryScope,
  question: string,
  topK: number,
  topicKey: string | undefined,
  warnings: string[],
): Promise<MemoryHit[]> {
  const filter = allOf([
    { or: [UNMERGED_QA, inCollection(MEMORY_COLLECTIONS.knowledge)] },
    topicKey !== undefined ? metadataEq("topic_key", topicKey) : undefined,
  ]);
  const found = await searchChunks(scope.db, question, { topK: Math.min(topK * 3, 100), mode: "hybrid", filter });
  for (const w of found.warnings) if (!warnings.includes(w)) warnings.push(w);
  const hits: MemoryHit[] = [];
  const seen = new Set<string>();
  for (const r of found.results) {
    if (seen.has(r.doc_id) || hits.length >= topK) continue;
    seen.add(r.doc_id);
    const m = r.metadata;
    if (m.kind === "knowledge") {
      const doc = await scope.db.store.getDocument(r.doc_id);
      hits.push({
        kind: "knowledge",
        id: r.doc_id,
        topic: str(m.topic),
        score: r.score,
        text: doc?.content ?? r.text,
        source_qa_ids: stringArray(m.source_qa_ids),
      });
    } else {
      hits.push({ kind: "qa", id: r.doc_id, topic: str(m.topic), score: r.score, question: str(m.question), answer: str(m.answer) });
    }
  }
  return hits;
}

/** QA records in creation order: of one topic (matched like a name), merged ones only with `include_merged`. */
export async function listQa(scope: MemoryScope, options: { topic?: string; include_merged?: boolean }): Promise<QaRecord[]> {
  const key = options.topic === undefined ? undefined : await topicKey(scope, options.topic);
  const filter = allOf([
    options.include_merged ? inCollection(MEMORY_COLLECTIONS.qa) : UNMERGED_QA,
    key !== undefined ? metadataEq("topic_key", key) : undefined,
  ]) as Filter;
  return (await listAll(scope.db, filter)).map((d) => qaRecord(toQa(d)));
}
