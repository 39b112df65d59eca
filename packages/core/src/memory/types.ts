/** Similarity thresholds of agent memory; each 0–1. Environment variables give the defaults. */
export interface MemoryOptions {
  /**
   * Cosine similarity at or above which a topic name (or a query's context) matches an existing
   * topic, when vectors are available. Default 0.85 (`DOCDB_MEMORY_TOPIC_THRESHOLD`).
   */
  topic_threshold?: number;
  /**
   * Keyword similarity at or above which a topic name matches an existing topic: Jaccard of the
   * analyser's content terms of the two names (for a context, the share of the topic name's
   * terms found in the context). Default 0.6 (`DOCDB_MEMORY_TOPIC_KEYWORD_THRESHOLD`).
   */
  topic_keyword_threshold?: number;
  /**
   * Cosine similarity of two questions at or above which they are merge candidates (and
   * reported as `similar` by `storeQa`). Default 0.9 (`DOCDB_MEMORY_MERGE_THRESHOLD`).
   */
  merge_threshold?: number;
  /** The same without vectors: Jaccard of content terms. Default 0.5 (`DOCDB_MEMORY_MERGE_KEYWORD_THRESHOLD`). */
  merge_keyword_threshold?: number;
}

export type ResolvedMemoryOptions = Required<MemoryOptions>;

/** How two texts were compared: cosine of their vectors, or overlap of their analysed terms. */
export type SimilarityMeasure = "vector" | "keywords";

/** The topic a name or context resolved to, and why. */
export interface TopicMatch {
  /** The topic's name, as first given. */
  name: string;
  /** 1 for the same normalised name; otherwise the similarity that matched. */
  score: number;
  matched_by: "name" | SimilarityMeasure;
}

export interface TopicInfo {
  topic_id: string;
  name: string;
  /** NFKC, lower case, punctuation and whitespace runs as one space: two spellings of one topic share it. */
  normalized_name: string;
  description: string;
  /** Every QA record of the topic, merged or not. */
  qa_count: number;
  /** QA records not yet merged into knowledge (the ones searches return). */
  unmerged_count: number;
  knowledge_count: number;
  created_at: string;
}

export interface StoreQaInput {
  /** At most 2,000 characters. */
  question: string;
  /** At most 20,000 characters. */
  answer: string;
  /** A topic name (at most 200 characters): matched against existing topics, created when none is close. */
  topic: string;
  /** Stored with a topic that is created now (ignored when an existing topic is reused). */
  topic_description?: string;
}

export interface SimilarQa {
  qa_id: string;
  question: string;
  score: number;
}

export interface StoreQaResult {
  qa_id: string;
  /** The topic the record was filed under (an existing one's name when it was reused). */
  topic: string;
  topic_created: boolean;
  /** How the topic was matched; null when it was created. */
  topic_match: TopicMatch | null;
  /** Unmerged QAs of the topic at or above the merge threshold: candidates for `merge`. */
  similar: SimilarQa[];
  /** How `similar` was computed. */
  similarity: SimilarityMeasure;
  /** False when the record waits for an embedding (keyword search finds it meanwhile). */
  embedded: boolean;
  warnings: string[];
}

export interface QueryQaInput {
  /** The question to answer from memory (at most 2,000 characters). */
  question: string;
  /** What the question is about: picks the topic to search in. Without it, every topic is searched. */
  context?: string;
  /** Results, 1 to 100. Default 5. */
  top_k?: number;
}

/** A QA record or a knowledge record found by `queryQa`. */
export interface MemoryHit {
  kind: "qa" | "knowledge";
  /** The record's id (a qa_id or a knowledge_id). */
  id: string;
  topic: string;
  /** 0–1, higher is better (the hybrid search score of docdb's find). */
  score: number;
  /** QA records: the question and its answer. */
  question?: string;
  answer?: string;
  /** Knowledge records: the merged text and the QAs it came from. */
  text?: string;
  source_qa_ids?: string[];
}

export interface QueryQaResult {
  results: MemoryHit[];
  /** The topic the context picked; null without a context, or when no topic matched. */
  topic: TopicMatch | null;
  /** Why there are no results, when there are none. */
  note?: string;
  warnings: string[];
}

export interface MergeCandidatesInput {
  /** Only this topic (matched like store_qa's topic; NOT_FOUND when none matches). */
  topic?: string;
  /** 0–1; default the merge threshold of the measure in use. */
  threshold?: number;
}

/** Unmerged QAs of one topic similar enough to be merged into one knowledge record. */
export interface MergeGroup {
  topic: string;
  similarity: SimilarityMeasure;
  /** The weakest similarity holding the group together. */
  score: number;
  qas: { qa_id: string; question: string; answer: string }[];
}

export interface MergeCandidates {
  groups: MergeGroup[];
  /** The threshold used (the given one, or the default of the measure). */
  threshold: number;
  warnings: string[];
}

export interface StoreKnowledgeInput {
  /** The knowledge text (at most 20,000 characters). */
  text: string;
  topic: string;
  /** QA records this knowledge replaces: they are marked merged (kept, no longer searched). */
  source_qa_ids?: string[];
}

export interface StoreKnowledgeResult {
  knowledge_id: string;
  topic: string;
  topic_created: boolean;
  merged_qa_ids: string[];
  embedded: boolean;
  warnings: string[];
}

/** Writes one knowledge text for a group of QAs (e.g. the client's LLM through MCP sampling). */
export type Merger = (group: MergeGroup) => Promise<string>;

export interface MergeResult {
  /** The groups found and merged, in order. */
  merged: (StoreKnowledgeResult & { score: number })[];
  threshold: number;
  warnings: string[];
}

export interface QaRecord {
  qa_id: string;
  topic: string;
  question: string;
  answer: string;
  merged: boolean;
  /** The knowledge record it was merged into. */
  merged_into?: string;
  created_at: string;
  updated_at: string;
}

export interface KnowledgeRecord {
  knowledge_id: string;
  topic: string;
  text: string;
  source_qa_ids: string[];
  created_at: string;
}
