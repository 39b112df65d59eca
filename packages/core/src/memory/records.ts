// How agent memory is kept as documents: topic and QA records read from their metadata, the
// filters that select them, and paging through all of them over the database's context.
import type { DocumentSummary, Filter } from "@docdb/store";
import type { DatabaseContext } from "../database/context.js";
import { MEMORY_COLLECTIONS } from "./names.js";
import type { QaRecord, ResolvedMemoryOptions } from "./types.js";

/** What every part of memory works on: its database's context and the thresholds in force. */
export interface MemoryScope {
  db: DatabaseContext;
  options: ResolvedMemoryOptions;
}

export interface TopicDoc {
  id: string;
  name: string;
  normalized: string;
  description: string;
  createdAt: string;
}

export interface QaDoc {
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

export const inCollection = (name: string): Filter => ({ op: "eq", field: { builtin: "collection" }, value: name });
export const metadataEq = (path: string, value: string | boolean): Filter => ({ op: "eq", field: { metadata: [path] }, value });
export const UNMERGED_QA: Filter = { and: [inCollection(MEMORY_COLLECTIONS.qa), metadataEq("merged", false)] };
const LIST_PAGE = 1000;

export function str(value: unknown): string {
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

export function toQa(d: {
  id: string;
  key: string | null;
  metadata: Record<string, unknown>;
  createdAt: string;
  updatedAt: string;
}): QaDoc {
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

export function qaRecord(q: QaDoc): QaRecord {
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

export function stringArray(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === "string") : [];
}

/** Every document `filter` allows, in creation order, read a page at a time. */
export async function listAll(db: DatabaseContext, filter: Filter): Promise<DocumentSummary[]> {
  const rows: DocumentSummary[] = [];
  for (let offset = 0; ; offset += LIST_PAGE) {
    const page = await db.store.listDocuments({ limit: LIST_PAGE, offset, filter });
    rows.push(...page);
    if (page.length < LIST_PAGE) return rows;
  }
}

/** Every topic record. */
export async function topics(db: DatabaseContext): Promise<TopicDoc[]> {
  return (await listAll(db, inCollection(MEMORY_COLLECTIONS.topics))).map(toTopic);
}

/** Each warning once, in the order first given (a topic and its record written together warn alike). */
export function once(warnings: string[]): string[] {
  return [...new Set(warnings)];
}
