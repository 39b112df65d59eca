import type { EmbeddingModel } from "@docdb/embed";
import { allOf, type DocumentSummary, type Filter, type Store } from "@docdb/store";
import { assertSameModel } from "../embedding-guard.js";
import { DocDBError, fromStoreError } from "../errors.js";
import type { Logger } from "../logger.js";
import { newId } from "../stored-chunks.js";
import type { InsertInput, InsertResult, SearchMode, SearchResult } from "../types.js";
import { validateTopK } from "../validate.js";
import {
  MAX_ANSWER_LENGTH,
  MAX_CONTEXT_LENGTH,
  MAX_KNOWLEDGE_LENGTH,
  MAX_QUESTION_LENGTH,
  MAX_SOURCE_QA_IDS,
  MAX_TOPIC_DESCRIPTION_LENGTH,
  MAX_TOPIC_LENGTH,
  MEMORY_COLLECTIONS,
  normalizeTopicName,
  requireText,
  validateThreshold,
} from "./names.js";
import { containment, contentTerms, cosine, jaccard, similarityGroups } from "./similarity.js";
import type {
  KnowledgeRecord,
  MemoryHit,
  MemoryOptions,
  MergeCandidates,
  MergeCandidatesInput,
  MergeGroup,
  MergeResult,
  Merger,
  QaRecord,
  QueryQaInput,
  QueryQaResult,
  ResolvedMemoryOptions,
  SimilarityMeasure,
  SimilarQa,
  StoreKnowledgeInput,
  StoreKnowledgeResult,
  StoreQaInput,
  StoreQaResult,
  TopicInfo,
  TopicMatch,
} from "./types.js";

export const DEFAULT_MEMORY_OPTIONS: ResolvedMemoryOptions = {
  topic_threshold: 0.85,
  topic_keyword_threshold: 0.6,
  merge_threshold: 0.9,
  merge_keyword_threshold: 0.5,
};

const ENV_NAMES: Record<keyof MemoryOptions, string> = {
  topic_threshold: "DOCDB_MEMORY_TOPIC_THRESHOLD",
  topic_keyword_threshold: "DOCDB_MEMORY_TOPIC_KEYWORD_THRESHOLD",
  merge_threshold: "DOCDB_MEMORY_MERGE_THRESHOLD",
  merge_keyword_threshold: "DOCDB_MEMORY_MERGE_KEYWORD_THRESHOLD",
};

/** Memory thresholds: explicit options over `DOCDB_MEMORY_*` environment variables over defaults; each 0–1. */
export function resolveMemoryOptions(options: MemoryOptions = {}, env: Record<string, string | undefined> = {}): ResolvedMemoryOptions {
  const resolved = { ...DEFAULT_MEMORY_OPTIONS };
  for (const key of Object.keys(ENV_NAMES) as (keyof MemoryOptions)[]) {
    const raw = env[ENV_NAMES[key]];
    if (raw !== undefined && raw.trim() !== "") resolved[key] = validateThreshold(Number(raw), `${ENV_NAMES[key]}="${raw}"`);
    const given = options[key];
    if (given !== undefined) resolved[key] = validateThreshold(given, key);
  }
  return resolved;
}

/** What memory needs from its database. */
export interface MemoryContext {
  databaseName: string;
  store: Store;
  embedding: EmbeddingModel | null;
  logger: Logger;
  options: ResolvedMemoryOptions;
  insert(inputs: (InsertInput & { id?: string })[]): Promise<InsertResult[]>;
  search(
    query: string,
    options: { topK: number; mode: SearchMode; filter?: Filter },
  ): Promise<{ results: SearchResult[]; warnings: string[] }>;
  embed(model: EmbeddingModel, texts: string[]): Promise<Float32Array[]>;
}

interface TopicDoc {
  id: string;
  name: string;
  normalized: string;
  description: string;
  createdAt: string;
}

interface QaDoc {
  id: string;
  key: string | null;
  topic: string;
  topicKey: string;
  question: string;
  answer: string;
  merged: boolean;
  mergedInto?: string;
  createdAt: string;
  updatedAt: string;
}

const inCollection = (name: string): Filter => ({ op: "eq", field: { builtin: "collection" }, value: name });
const metadataEq = (path: string, value: string | boolean): Filter => ({ op: "eq", field: { metadata: [path] }, value });
const UNMERGED_QA: Filter = { and: [inCollection(MEMORY_COLLECTIONS.qa), metadataEq("merged", false)] };
const LIST_PAGE = 1000;
/** Most unmerged QAs of one topic compared pairwise by `mergeCandidates`. */
const MAX_MERGE_SCAN = 500;

function str(value: unknown): string {
  return typeof value === "string" ? value : "";
}

function toTopic(d: DocumentSummary): TopicDoc {
  return {
    id: d.id,
    name: str(d.metadata.name),
    normalized: str(d.metadata.normalized_name),
    description: str(d.metadata.description),
    createdAt: d.createdAt,
  };
}

function toQa(d: { id: string; key: string | null; metadata: Record<string, unknown>; createdAt: string; updatedAt: string }): QaDoc {
  const m = d.metadata;
  return {
    id: d.id,
    key: d.key,
    topic: str(m.topic),
    topicKey: str(m.topic_key),
    question: str(m.question),
    answer: str(m.answer),
    merged: m.merged === true,
    ...(typeof m.merged_into === "string" ? { mergedInto: m.merged_into } : {}),
    createdAt: d.createdAt,
    updatedAt: d.updatedAt,
  };
}

function qaRecord(q: QaDoc): QaRecord {
  return {
    qa_id: q.id,
    topic: q.topic,
    question: q.question,
    answer: q.answer,
    merged: q.merged,
    ...(q.mergedInto !== undefined ? { merged_into: q.mergedInto } : {}),
    created_at: q.createdAt,
    updated_at: q.updatedAt,
  };
}

function stringArray(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === "string") : [];
}

/**
 * Memory for agents, in one database: question–answer records filed by topic, merged into
 * knowledge records (by an LLM the caller supplies; docdb holds none), and searched by meaning
 * and keywords. Everything is stored as documents of the reserved collections `_memory_topics`,
 * `_memory_qa` and `_memory_knowledge` through the ordinary storage contract, so it works on every
 * engine, is keyword-indexed, and gets vectors like other chunks (pending ones through
 * `embedPending`). Normal find, list and status leave these collections out.
 *
 * Without an embedding model (or before the database has vectors) every comparison uses the
 * analyser's terms instead: topics by normalised name and Jaccard of terms, questions by Jaccard.
 */
export class Memory {
  /** @internal Created by its Database (`db.memory`). */
  constructor(private readonly context: MemoryContext) {}

  /** The thresholds in force. */
  get options(): ResolvedMemoryOptions {
    return { ...this.context.options };
  }

  private async call<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      throw fromStoreError(error);
    }
  }

  private async listAll(filter: Filter): Promise<DocumentSummary[]> {
    const rows: DocumentSummary[] = [];
    for (let offset = 0; ; offset += LIST_PAGE) {
      const page = await this.call(() => this.context.store.listDocuments({ limit: LIST_PAGE, offset, filter }));
      rows.push(...page);
      if (page.length < LIST_PAGE) return rows;
    }
  }

  private async topics(): Promise<TopicDoc[]> {
    return (await this.listAll(inCollection(MEMORY_COLLECTIONS.topics))).map(toTopic);
  }

  /** The model, when the database's vectors can be compared with it; null means "compare keywords". */
  private async vectorModel(): Promise<EmbeddingModel | null> {
    const model = this.context.embedding;
    if (!model) return null;
    const info = await this.call(() => this.context.store.getEmbeddingInfo());
    if (!info) return null;
    assertSameModel(info, model, this.context.databaseName);
    return model;
  }

  /** Vectors for texts, or undefined (with a warning) when the model fails: callers fall back to keywords. */
  private async vectors(model: EmbeddingModel, texts: string[], warnings: string[]): Promise<Float32Array[] | undefined> {
    try {
      return await this.context.embed(model, texts);
    } catch (error) {
      if (DocDBError.isInstance(error) && error.code !== "EMBEDDING_UNAVAILABLE") throw error;
      const reason = error instanceof Error ? error.message : String(error);
      warnings.push(`compared by keywords: the embedding model failed (${reason})`);
      return undefined;
    }
  }

  /** Cosine similarity of `text` to the best chunk of each document `filter` allows (nearest `limit` chunks). */
  private async vectorScores(model: EmbeddingModel, text: string, filter: Filter, limit: number, warnings: string[]) {
    const scores = new Map<string, number>();
    const [probe] = (await this.vectors(model, [text], warnings)) ?? [];
    if (!probe) return undefined;
    const hits = await this.call(() => this.context.store.vectorSearch(probe, { limit, filter, exact: true }));
    const chunks = await this.call(() => this.context.store.chunkHits(hits.map((h) => h.chunkId)));
    const docOf = new Map(chunks.map((c) => [c.id, c.docId]));
    for (const hit of hits) {
      const doc = docOf.get(hit.chunkId);
      if (doc === undefined) continue;
      scores.set(doc, Math.max(scores.get(doc) ?? 0, 1 - hit.distance));
    }
    return scores;
  }

  /**
   * The existing topic closest to a topic name (`how: "name"`) or a context text (`"context"`):
   * the same normalised name first; else the best of keyword similarity and vector similarity
   * that reaches its threshold. Undefined when none does.
   */
  private async matchTopic(
    text: string,
    how: "name" | "context",
    warnings: string[],
  ): Promise<{ topic: TopicDoc; match: TopicMatch } | undefined> {
    const topics = await this.topics();
    if (topics.length === 0) return undefined;
    const normalized = normalizeTopicName(text);
    const same = topics.find((t) => t.normalized === normalized);
    if (same) return { topic: same, match: { name: same.name, score: 1, matched_by: "name" } };

    const { topic_threshold, topic_keyword_threshold } = this.context.options;
    let best: { topic: TopicDoc; match: TopicMatch } | undefined;
    const consider = (topic: TopicDoc, score: number, by: TopicMatch["matched_by"]) => {
      if (!best || score > best.match.score) best = { topic, match: { name: topic.name, score, matched_by: by } };
    };
    const terms = contentTerms(text);
    for (const topic of topics) {
      const topicTerms = contentTerms(topic.name);
      const score = how === "name" ? jaccard(terms, topicTerms) : containment(topicTerms, terms);
      if (score >= topic_keyword_threshold) consider(topic, score, "keywords");
    }
    const model = await this.vectorModel();
    if (model) {
      const scores = await this.vectorScores(model, text, inCollection(MEMORY_COLLECTIONS.topics), 20, warnings);
      const byId = new Map(topics.map((t) => [t.id, t]));
      for (const [id, score] of scores ?? []) {
        const topic = byId.get(id);
        if (topic && score >= topic_threshold) consider(topic, score, "vector");
      }
    }
    return best;
  }

  /** The topic for a name: an existing close one, or a new one. */
  private async resolveTopic(
    name: string,
    description: string,
    warnings: string[],
  ): Promise<{ topic: TopicDoc; created: boolean; match: TopicMatch | null }> {
    const found = await this.matchTopic(name, "name", warnings);
    if (found) return { topic: found.topic, created: false, match: found.match };
    const normalized = normalizeTopicName(name);
    if (normalized === "")
      throw new DocDBError("INVALID_REQUEST", `topic ${JSON.stringify(name)} has no letters or digits: name the topic`);
    const id = newId();
    const [written] = await this.context.insert([
      {
        id,
        collection: MEMORY_COLLECTIONS.topics,
        key: `topic:${normalized}`,
        text: description ? `${name}\n${description}` : name,
        metadata: { kind: "topic", name, normalized_name: normalized, description },
      },
    ]);
    warnings.push(...(written?.warnings ?? []));
    const topic: TopicDoc = { id: written?.doc_id ?? id, name, normalized, description, createdAt: new Date().toISOString() };
    this.context.logger.info({ db: this.context.databaseName, topic: name }, "memory topic created");
    return { topic, created: true, match: null };
  }

  /**
   * Stores a question with its answer under a topic. The topic name is matched against existing
   * topics (same normalised name, or similar enough by vectors or keywords) and the closest is
   * reused; otherwise a topic is created. Returns the unmerged QAs of that topic whose question
   * is at or above the merge threshold, as candidates for `merge`.
   */
  async storeQa(input: StoreQaInput): Promise<StoreQaResult> {
    if (typeof input !== "object" || input === null) throw new DocDBError("INVALID_REQUEST", "store_qa needs {question, answer, topic}");
    const question = requireText(input.question, "question", MAX_QUESTION_LENGTH);
    const answer = requireText(input.answer, "answer", MAX_ANSWER_LENGTH);
    const topicName = requireText(input.topic, "topic", MAX_TOPIC_LENGTH);
    const description =
      input.topic_description === undefined ? "" : requireText(input.topic_description, "topic_description", MAX_TOPIC_DESCRIPTION_LENGTH);
    const warnings: string[] = [];
    const { topic, created, match } = await this.resolveTopic(topicName, description, warnings);

    const id = newId();
    const [written] = await this.context.insert([
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

    const scope: Filter = {
      and: [UNMERGED_QA, metadataEq("topic_key", topic.normalized), { op: "ne", field: { builtin: "doc_id" }, value: qaId }],
    };
    const { similar, similarity } = await this.similarQuestions(question, scope, written?.embedded === true, warnings);
    this.context.logger.info(
      { db: this.context.databaseName, qa_id: qaId, topic: topic.name, similar: similar.length },
      "memory qa stored",
    );
    return {
      qa_id: qaId,
      topic: topic.name,
      topic_created: created,
      topic_match: match,
      similar,
      similarity,
      embedded: written?.embedded === true,
      warnings,
    };
  }

  private async similarQuestions(
    question: string,
    scope: Filter,
    embedded: boolean,
    warnings: string[],
  ): Promise<{ similar: SimilarQa[]; similarity: SimilarityMeasure }> {
    const model = embedded ? await this.vectorModel() : null;
    const candidates = new Map((await this.listAll(scope)).map((d) => [d.id, toQa(d)]));
    if (model) {
      const scores = await this.vectorScores(model, question, scope, 50, warnings);
      if (scores) {
        const similar = [...scores]
          .filter(([id, score]) => score >= this.context.options.merge_threshold && candidates.has(id))
          .map(([id, score]) => ({ qa_id: id, question: candidates.get(id)?.question ?? "", score }))
          .sort((a, b) => b.score - a.score);
        return { similar, similarity: "vector" };
      }
    }
    const terms = contentTerms(question);
    const similar = [...candidates.values()]
      .map((q) => ({ qa_id: q.id, question: q.question, score: jaccard(terms, contentTerms(q.question)) }))
      .filter((s) => s.score >= this.context.options.merge_keyword_threshold)
      .sort((a, b) => b.score - a.score);
    return { similar, similarity: "keywords" };
  }

  /**
   * Answers a question from memory: unmerged QA records and knowledge records, best first. With
   * a `context`, the context picks the topic (the best topic match above the threshold) and only
   * that topic is searched; when no topic matches, the result is empty and `note` says so (no
   * fallback to other topics). Without a context every topic is searched.
   */
  async queryQa(input: QueryQaInput): Promise<QueryQaResult> {
    if (typeof input !== "object" || input === null) throw new DocDBError("INVALID_REQUEST", "query_qa needs {question}");
    const question = requireText(input.question, "question", MAX_QUESTION_LENGTH);
    const context = input.context === undefined ? undefined : requireText(input.context, "context", MAX_CONTEXT_LENGTH);
    const topK = validateTopK(input.top_k ?? 5);
    const warnings: string[] = [];
    let topic: { topic: TopicDoc; match: TopicMatch } | undefined;
    if (context !== undefined) {
      topic = await this.matchTopic(context, "context", warnings);
      if (!topic) {
        const names = (await this.topics()).map((t) => t.name);
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
    const results = await this.searchMemory(question, topK, topic?.topic.normalized, warnings);
    return {
      results,
      topic: topic?.match ?? null,
      ...(results.length === 0
        ? { note: topic ? `nothing in topic "${topic.topic.name}" matches the question` : "nothing in memory matches the question" }
        : {}),
      warnings,
    };
  }

  /** Hybrid search over unmerged QAs and knowledge (of one topic, or all), one hit per record. */
  private async searchMemory(question: string, topK: number, topicKey: string | undefined, warnings: string[]): Promise<MemoryHit[]> {
    const filter = allOf([
      { or: [UNMERGED_QA, inCollection(MEMORY_COLLECTIONS.knowledge)] },
      topicKey !== undefined ? metadataEq("topic_key", topicKey) : undefined,
    ]);
    const found = await this.context.search(question, { topK: Math.min(topK * 3, 100), mode: "hybrid", filter });
    for (const w of found.warnings) if (!warnings.includes(w)) warnings.push(w);
    const hits: MemoryHit[] = [];
    const seen = new Set<string>();
    for (const r of found.results) {
      if (seen.has(r.doc_id) || hits.length >= topK) continue;
      seen.add(r.doc_id);
      const m = r.metadata;
      if (m.kind === "knowledge") {
        const doc = await this.call(() => this.context.store.getDocument(r.doc_id));
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

  /**
   * What a `knowledge://{topic}/{query}` resource holds: the topic (matched like a name; NOT_FOUND
   * when none matches) and its best knowledge and answers for the query. Without a query, the
   * topic's knowledge records and unmerged QAs, newest first.
   */
  async readTopic(topicName: string, query?: string, topK = 5): Promise<{ topic: string; results: MemoryHit[]; warnings: string[] }> {
    const name = requireText(topicName, "topic", MAX_TOPIC_LENGTH);
    const warnings: string[] = [];
    const found = await this.matchTopic(name, "name", warnings);
    if (!found) throw new DocDBError("NOT_FOUND", `no topic matches ${JSON.stringify(name)}: list_topics shows the topics`);
    if (query !== undefined && query.trim() !== "") {
      const q = requireText(query, "query", MAX_QUESTION_LENGTH);
      return { topic: found.topic.name, results: await this.searchMemory(q, topK, found.topic.normalized, warnings), warnings };
    }
    const knowledge = (await this.listKnowledge({ topic: found.topic.name })).slice(-topK).reverse();
    const qas = (await this.listQa({ topic: found.topic.name })).slice(-topK).reverse();
    const results: MemoryHit[] = [
      ...knowledge.map((k) => ({
        kind: "knowledge" as const,
        id: k.knowledge_id,
        topic: k.topic,
        score: 1,
        text: k.text,
        source_qa_ids: k.source_qa_ids,
      })),
      ...qas.map((q) => ({ kind: "qa" as const, id: q.qa_id, topic: q.topic, score: 1, question: q.question, answer: q.answer })),
    ];
    return { topic: found.topic.name, results, warnings };
  }

  /**
   * Groups of similar unmerged QAs, per topic: by the cosine of their questions' vectors when the
   * database has a usable model, else by Jaccard of their terms. `threshold` overrides the
   * measure's merge threshold.
   */
  async mergeCandidates(input: MergeCandidatesInput = {}): Promise<MergeCandidates> {
    const threshold = input.threshold === undefined ? undefined : validateThreshold(input.threshold);
    const warnings: string[] = [];
    let topics = await this.topics();
    if (input.topic !== undefined) {
      const name = requireText(input.topic, "topic", MAX_TOPIC_LENGTH);
      const found = await this.matchTopic(name, "name", warnings);
      if (!found) throw new DocDBError("NOT_FOUND", `no topic matches ${JSON.stringify(name)}: list_topics shows the topics`);
      topics = [found.topic];
    }
    const model = await this.vectorModel();
    let used: number | undefined;
    const groups: MergeGroup[] = [];
    for (const topic of topics) {
      const qas = (await this.listAll({ and: [UNMERGED_QA, metadataEq("topic_key", topic.normalized)] }))
        .slice(0, MAX_MERGE_SCAN)
        .map(toQa);
      if (qas.length < 2) continue;
      const vectors = model
        ? await this.vectors(
            model,
            qas.map((q) => q.question),
            warnings,
          )
        : undefined;
      const measure: SimilarityMeasure = vectors ? "vector" : "keywords";
      const limit = threshold ?? (vectors ? this.context.options.merge_threshold : this.context.options.merge_keyword_threshold);
      used ??= limit;
      const terms = vectors ? [] : qas.map((q) => contentTerms(q.question));
      const similarity = vectors
        ? (i: number, j: number) => cosine(vectors[i] as Float32Array, vectors[j] as Float32Array)
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
    return {
      groups,
      threshold: used ?? threshold ?? (model ? this.context.options.merge_threshold : this.context.options.merge_keyword_threshold),
      warnings,
    };
  }

  /**
   * Stores a knowledge record under a topic (matched or created like store_qa's) and marks the
   * given QAs merged, all in one transaction. The QAs are kept (and listed) but no longer
   * returned by searches. Unknown ids are NOT_FOUND; QAs of another topic are INVALID_REQUEST.
   */
  async storeKnowledge(input: StoreKnowledgeInput): Promise<StoreKnowledgeResult> {
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
      const doc = await this.call(() => this.context.store.getDocument(id));
      if (!doc || doc.collection !== MEMORY_COLLECTIONS.qa) unknown.push(id);
      else qas.push(toQa(doc));
    }
    if (unknown.length > 0) {
      throw new DocDBError(
        "NOT_FOUND",
        `no QA record with id ${unknown.map((id) => JSON.stringify(id)).join(", ")} in database "${this.context.databaseName}"; nothing was stored`,
      );
    }
    const warnings: string[] = [];
    const { topic, created } = await this.resolveTopic(topicName, "", warnings);
    const elsewhere = qas.filter((q) => q.topicKey !== topic.normalized);
    if (elsewhere.length > 0) {
      throw new DocDBError(
        "INVALID_REQUEST",
        `QA ${elsewhere.map((q) => `${q.id} (topic "${q.topic}")`).join(", ")} is not in topic "${topic.name}": store knowledge under the QAs' topic`,
      );
    }
    const id = newId();
    const written = await this.context.insert([
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
    this.context.logger.info(
      { db: this.context.databaseName, knowledge_id: knowledge?.doc_id, merged: unique.length },
      "memory knowledge stored",
    );
    return {
      knowledge_id: knowledge?.doc_id ?? id,
      topic: topic.name,
      topic_created: created,
      merged_qa_ids: qas.map((q) => q.id),
      embedded: knowledge?.embedded === true,
      warnings,
    };
  }

  /**
   * Finds the merge candidates and has `merger` write one knowledge text per group, stores it
   * and marks the group's QAs merged. Groups already stored stay stored if a later one fails.
   */
  async merge(input: MergeCandidatesInput & { merger: Merger }): Promise<MergeResult> {
    if (typeof input?.merger !== "function")
      throw new DocDBError("INVALID_REQUEST", "merge needs a merger function (the LLM that writes the knowledge)");
    const candidates = await this.mergeCandidates(input);
    const merged: MergeResult["merged"] = [];
    for (const group of candidates.groups) {
      const text = await input.merger(group);
      const stored = await this.storeKnowledge({ text, topic: group.topic, source_qa_ids: group.qas.map((q) => q.qa_id) });
      merged.push({ ...stored, score: group.score });
    }
    return { merged, threshold: candidates.threshold, warnings: candidates.warnings };
  }

  /** Topics with their counts, by name. */
  async listTopics(): Promise<TopicInfo[]> {
    const topics = await this.topics();
    const qas = (await this.listAll(inCollection(MEMORY_COLLECTIONS.qa))).map(toQa);
    const knowledge = await this.listAll(inCollection(MEMORY_COLLECTIONS.knowledge));
    return topics
      .map((t) => {
        const own = qas.filter((q) => q.topicKey === t.normalized);
        return {
          topic_id: t.id,
          name: t.name,
          normalized_name: t.normalized,
          description: t.description,
          qa_count: own.length,
          unmerged_count: own.filter((q) => !q.merged).length,
          knowledge_count: knowledge.filter((k) => k.metadata.topic_key === t.normalized).length,
          created_at: t.createdAt,
        };
      })
      .sort((a, b) => a.name.localeCompare(b.name));
  }

  /**
   * Topic names for completion: those whose normalised name starts with (then contains) the
   * normalised prefix, at most `limit`.
   */
  async completeTopic(prefix: string, limit = 100): Promise<string[]> {
    const wanted = normalizeTopicName(typeof prefix === "string" ? prefix : "");
    const topics = (await this.topics()).sort((a, b) => a.name.localeCompare(b.name));
    const starts = topics.filter((t) => t.normalized.startsWith(wanted));
    const contains = topics.filter((t) => !t.normalized.startsWith(wanted) && t.normalized.includes(wanted));
    return [...starts, ...contains].slice(0, limit).map((t) => t.name);
  }

  /** QA records in creation order: of one topic (matched like a name), merged ones only with `include_merged`. */
  async listQa(options: { topic?: string; include_merged?: boolean } = {}): Promise<QaRecord[]> {
    const key = options.topic === undefined ? undefined : await this.topicKey(options.topic);
    const filter = allOf([
      options.include_merged ? inCollection(MEMORY_COLLECTIONS.qa) : UNMERGED_QA,
      key !== undefined ? metadataEq("topic_key", key) : undefined,
    ]) as Filter;
    return (await this.listAll(filter)).map((d) => qaRecord(toQa(d)));
  }

  /** Knowledge records in creation order, of one topic or all. */
  async listKnowledge(options: { topic?: string } = {}): Promise<KnowledgeRecord[]> {
    const key = options.topic === undefined ? undefined : await this.topicKey(options.topic);
    const filter = allOf([
      inCollection(MEMORY_COLLECTIONS.knowledge),
      key !== undefined ? metadataEq("topic_key", key) : undefined,
    ]) as Filter;
    const records: KnowledgeRecord[] = [];
    for (const d of await this.listAll(filter)) {
      const doc = await this.call(() => this.context.store.getDocument(d.id));
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

  private async topicKey(name: string): Promise<string> {
    const valid = requireText(name, "topic", MAX_TOPIC_LENGTH);
    const found = await this.matchTopic(valid, "name", []);
    if (!found) throw new DocDBError("NOT_FOUND", `no topic matches ${JSON.stringify(valid)}: list_topics shows the topics`);
    return found.topic.normalized;
  }
}
