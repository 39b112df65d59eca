// Memory, the facade agents use: question–answer records by topic, merged into knowledge and
// searched; each method delegates to topics.ts, qa.ts or knowledge.ts over the database's context.
import type { DatabaseContext } from "../database/context.js";
import { listKnowledge, merge, mergeCandidates, storeKnowledge } from "./knowledge.js";
import { MAX_QUESTION_LENGTH, MAX_TOPIC_LENGTH, requireText } from "./names.js";
import { listQa, queryQa, searchMemory, storeQa } from "./qa.js";
import type { MemoryScope } from "./records.js";
import { completeTopic, findTopic, listTopics } from "./topics.js";
import type {
  KnowledgeRecord,
  MemoryHit,
  MergeCandidates,
  MergeCandidatesInput,
  MergeResult,
  Merger,
  QaRecord,
  QueryQaInput,
  QueryQaResult,
  ResolvedMemoryOptions,
  StoreKnowledgeInput,
  StoreKnowledgeResult,
  StoreQaInput,
  StoreQaResult,
  TopicInfo,
} from "./types.js";

export { DEFAULT_MEMORY_OPTIONS, resolveMemoryOptions } from "./options.js";

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
  private readonly scope: MemoryScope;

  /** @internal Created by its Database (`db.memory`), over the database's context. */
  constructor(db: DatabaseContext, options: ResolvedMemoryOptions) {
    this.scope = { db, options };
  }

  /** The scope of one operation: its embedding calls share one deadline (the insert deadline). */
  private timed(): MemoryScope {
    return { db: this.scope.db.withDeadline(), options: this.scope.options };
  }

  /** The thresholds in force. */
  get options(): ResolvedMemoryOptions {
    return { ...this.scope.options };
  }

  /**
   * Stores a question with its answer under a topic. The topic name is matched against existing
   * topics (same normalised name, or similar enough by vectors or keywords) and the closest is
   * reused; otherwise a topic is created. Returns the unmerged QAs of that topic whose question
   * is at or above the merge threshold, as candidates for `merge`.
   */
  async storeQa(input: StoreQaInput): Promise<StoreQaResult> {
    return storeQa(this.timed(), input);
  }

  /**
   * Answers a question from memory: unmerged QA records and knowledge records, best first. With
   * a `context`, the context picks the topic (the best topic match above the threshold) and only
   * that topic is searched; when no topic matches, the result is empty and `note` says so (no
   * fallback to other topics). Without a context every topic is searched.
   */
  async queryQa(input: QueryQaInput): Promise<QueryQaResult> {
    return queryQa(this.timed(), input);
  }

  /**
   * What a `knowledge://{topic}/{query}` resource holds: the topic (matched like a name; NOT_FOUND
   * when none matches) and its best knowledge and answers for the query. Without a query, the
   * topic's knowledge records and unmerged QAs, newest first.
   */
  async readTopic(topicName: string, query?: string, topK = 5): Promise<{ topic: string; results: MemoryHit[]; warnings: string[] }> {
    const name = requireText(topicName, "topic", MAX_TOPIC_LENGTH);
    const warnings: string[] = [];
    const scope = this.timed();
    const topic = await findTopic(scope, name, warnings);
    if (query !== undefined && query.trim() !== "") {
      const q = requireText(query, "query", MAX_QUESTION_LENGTH);
      return { topic: topic.name, results: await searchMemory(scope, q, topK, topic.normalized, warnings), warnings };
    }
    const knowledge = (await this.listKnowledge({ topic: topic.name })).slice(-topK).reverse();
    const qas = (await this.listQa({ topic: topic.name })).slice(-topK).reverse();
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
    return { topic: topic.name, results, warnings };
  }

  /**
   * Groups of similar unmerged QAs, per topic: by the cosine of their questions' vectors when the
   * database has a usable model, else by Jaccard of their terms. `threshold` overrides the
   * measure's merge threshold.
   */
  async mergeCandidates(input: MergeCandidatesInput = {}): Promise<MergeCandidates> {
    return mergeCandidates(this.scope, input);
  }

  /**
   * Stores a knowledge record under a topic (matched or created like store_qa's) and marks the
   * given QAs merged, all in one transaction. The QAs are kept (and listed) but no longer
   * returned by searches. Unknown ids are NOT_FOUND; QAs of another topic are INVALID_REQUEST.
   */
  async storeKnowledge(input: StoreKnowledgeInput): Promise<StoreKnowledgeResult> {
    return storeKnowledge(this.timed(), input);
  }

  /**
   * Finds the merge candidates and has `merger` write one knowledge text per group, stores it
   * and marks the group's QAs merged. Groups already stored stay stored if a later one fails.
   */
  async merge(input: MergeCandidatesInput & { merger: Merger }): Promise<MergeResult> {
    return merge(this.scope, input);
  }

  /** Topics with their counts, by name. */
  async listTopics(): Promise<TopicInfo[]> {
    return listTopics(this.scope);
  }

  /**
   * Topic names for completion: those whose normalised name starts with (then contains) the
   * normalised prefix, at most `limit`.
   */
  async completeTopic(prefix: string, limit = 100): Promise<string[]> {
    return completeTopic(this.scope, prefix, limit);
  }

  /** QA records in creation order: of one topic (matched like a name), merged ones only with `include_merged`. */
  async listQa(options: { topic?: string; include_merged?: boolean } = {}): Promise<QaRecord[]> {
    return listQa(this.scope, options);
  }

  /** Knowledge records in creation order, of one topic or all. */
  async listKnowledge(options: { topic?: string } = {}): Promise<KnowledgeRecord[]> {
    return listKnowledge(this.scope, options);
  }
}
