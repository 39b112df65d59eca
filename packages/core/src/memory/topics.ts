// Topics of agent memory: matching a name or context to an existing topic (same normalised
// name, keywords or vectors), creating one, listing them and completing their names.
import { insertTogether } from "../database/ingest.js";
import { DocDBError, echo } from "../errors.js";
import { newId } from "../stored-chunks.js";
import { vectorModel, vectorScores } from "./compare.js";
import { MAX_TOPIC_LENGTH, MEMORY_COLLECTIONS, normalizeTopicName, requireText } from "./names.js";
import { inCollection, listAll, type MemoryScope, type TopicDoc, topics, toQa } from "./records.js";
import { containment, contentTerms, jaccard } from "./similarity.js";
import type { TopicInfo, TopicMatch } from "./types.js";

/**
 * The existing topic closest to a topic name (`how: "name"`) or a context text (`"context"`):
 * the same normalised name first; else the best of keyword similarity and vector similarity
 * that reaches its threshold. Undefined when none does.
 */
export async function matchTopic(
  scope: MemoryScope,
  text: string,
  how: "name" | "context",
  warnings: string[],
): Promise<{ topic: TopicDoc; match: TopicMatch } | undefined> {
  const all = await topics(scope.db);
  if (all.length === 0) return undefined;
  const normalized = normalizeTopicName(text);
  const same = all.find((t) => t.normalized === normalized);
  if (same) return { topic: same, match: { name: same.name, score: 1, matched_by: "name" } };

  const { topic_threshold, topic_keyword_threshold } = scope.options;
  let best: { topic: TopicDoc; match: TopicMatch } | undefined;
  const consider = (topic: TopicDoc, score: number, by: TopicMatch["matched_by"]) => {
    if (!best || score > best.match.score) best = { topic, match: { name: topic.name, score, matched_by: by } };
  };
  const terms = contentTerms(text);
  for (const topic of all) {
    const topicTerms = contentTerms(topic.name);
    const score = how === "name" ? jaccard(terms, topicTerms) : containment(topicTerms, terms);
    if (score >= topic_keyword_threshold) consider(topic, score, "keywords");
  }
  const model = await vectorModel(scope.db);
  if (model) {
    const scores = await vectorScores(scope.db, model, text, inCollection(MEMORY_COLLECTIONS.topics), 20, warnings);
    const byId = new Map(all.map((t) => [t.id, t]));
    for (const [id, score] of scores ?? []) {
      const topic = byId.get(id);
      if (topic && score >= topic_threshold) consider(topic, score, "vector");
    }
  }
  return best;
}

/** The topic for a name: an existing close one, or a new one. */
export async function resolveTopic(
  scope: MemoryScope,
  name: string,
  description: string,
  warnings: string[],
): Promise<{ topic: TopicDoc; created: boolean; match: TopicMatch | null }> {
  const found = await matchTopic(scope, name, "name", warnings);
  if (found) return { topic: found.topic, created: false, match: found.match };
  const normalized = normalizeTopicName(name);
  if (normalized === "") throw new DocDBError("INVALID_REQUEST", `topic "${echo(name)}" has no letters or digits: name the topic`);
  const id = newId();
  const [written] = await insertTogether(scope.db, [
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
  scope.db.logger.info({ db: scope.db.name, topic: name }, "memory topic created");
  return { topic, created: true, match: null };
}

/** The topic a name matches (NOT_FOUND when none does). */
export async function findTopic(scope: MemoryScope, name: string, warnings: string[]): Promise<TopicDoc> {
  const found = await matchTopic(scope, name, "name", warnings);
  if (!found) throw new DocDBError("NOT_FOUND", `no topic matches "${echo(name)}": list_topics shows the topics`);
  return found.topic;
}

/** The normalised name of the topic a name matches (NOT_FOUND when none does). */
export async function topicKey(scope: MemoryScope, name: string): Promise<string> {
  const valid = requireText(name, "topic", MAX_TOPIC_LENGTH);
  return (await findTopic(scope, valid, [])).normalized;
}

/** Topics with their counts, by name. */
export async function listTopics(scope: MemoryScope): Promise<TopicInfo[]> {
  const all = await topics(scope.db);
  const qas = (await listAll(scope.db, inCollection(MEMORY_COLLECTIONS.qa))).map(toQa);
  const knowledge = await listAll(scope.db, inCollection(MEMORY_COLLECTIONS.knowledge));
  return all
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
export async function completeTopic(scope: MemoryScope, prefix: string, limit: number): Promise<string[]> {
  const wanted = normalizeTopicName(typeof prefix === "string" ? prefix : "");
  const all = (await topics(scope.db)).sort((a, b) => a.name.localeCompare(b.name));
  const starts = all.filter((t) => t.normalized.startsWith(wanted));
  const contains = all.filter((t) => !t.normalized.startsWith(wanted) && t.normalized.includes(wanted));
  return [...starts, ...contains].slice(0, limit).map((t) => t.name);
}
