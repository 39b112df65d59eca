import type { Filter } from "@docdb/store";
import { DocDBError } from "../errors.js";
import { validateWellFormed } from "../validate.js";

/**
 * Agent memory lives in reserved collections of the same database, as ordinary documents
 * written through the storage contract: every engine stores it with no schema of its own, the
 * analyser indexes its words, and its chunks get vectors (or wait for `embedPending`) like any
 * other. Collection names starting with "_" are docdb's: users cannot create or insert into them.
 */
export const SYSTEM_COLLECTION_PREFIX = "_";
export const MEMORY_COLLECTION_PREFIX = "_memory_";
export const MEMORY_COLLECTIONS = {
  topics: "_memory_topics",
  qa: "_memory_qa",
  knowledge: "_memory_knowledge",
} as const;

/** Longest question, answer, topic name and knowledge text accepted (characters). */
export const MAX_QUESTION_LENGTH = 2_000;
export const MAX_ANSWER_LENGTH = 20_000;
export const MAX_TOPIC_LENGTH = 200;
export const MAX_TOPIC_DESCRIPTION_LENGTH = 2_000;
export const MAX_KNOWLEDGE_LENGTH = 20_000;
export const MAX_CONTEXT_LENGTH = 10_000;
/** Most QA ids one knowledge record may cite. */
export const MAX_SOURCE_QA_IDS = 200;

export function isSystemCollection(name: string): boolean {
  return name.startsWith(SYSTEM_COLLECTION_PREFIX);
}

/** The condition that keeps memory out of normal find and list (a null collection passes). */
export const WITHOUT_SYSTEM_COLLECTIONS: Filter = {
  not: { op: "prefix", field: { builtin: "collection" }, value: MEMORY_COLLECTION_PREFIX },
};

/** The documents of agent memory (an indexed lookup on every engine, unlike a prefix). */
export const ANY_MEMORY: Filter = { op: "in", field: { builtin: "collection" }, values: Object.values(MEMORY_COLLECTIONS) };

/**
 * A topic name in the form two spellings of one topic share: NFKC, lower case, and every run of
 * whitespace, punctuation and symbols one space, trimmed ("Deploy", " deploy!" and "DEPLOY" are
 * all "deploy"; "CI / CD" and "ci-cd" are "ci cd").
 */
export function normalizeTopicName(name: string): string {
  return name
    .normalize("NFKC")
    .toLowerCase()
    .replace(/[\s\p{P}\p{S}]+/gu, " ")
    .trim();
}

/** A required, non-empty string field of at most `max` characters, trimmed. */
export function requireText(value: unknown, what: string, max: number): string {
  if (typeof value !== "string") throw new DocDBError("INVALID_REQUEST", `${what} must be a string`);
  const trimmed = value.trim();
  if (trimmed === "") throw new DocDBError("INVALID_REQUEST", `${what} is empty: give the ${what}`);
  validateWellFormed(value, what);
  if (value.length > max) {
    throw new DocDBError("INVALID_REQUEST", `${what} has ${value.length} characters, more than the limit of ${max}: shorten it`);
  }
  return trimmed;
}

/** A similarity threshold: a number from 0 to 1. */
export function validateThreshold(value: unknown, what = "threshold"): number {
  if (typeof value !== "number" || !Number.isFinite(value) || value < 0 || value > 1) {
    throw new DocDBError("INVALID_REQUEST", `${what} must be a number from 0 to 1 (similarity, higher is stricter), got ${String(value)}`);
  }
  return value;
}
