export { Memory } from "./memory.js";
export {
  isSystemCollection,
  MAX_ANSWER_LENGTH,
  MAX_CONTEXT_LENGTH,
  MAX_KNOWLEDGE_LENGTH,
  MAX_QUESTION_LENGTH,
  MAX_SOURCE_QA_IDS,
  MAX_TOPIC_LENGTH,
  MEMORY_COLLECTION_PREFIX,
  MEMORY_COLLECTIONS,
  normalizeTopicName,
} from "./names.js";
export { DEFAULT_MEMORY_OPTIONS, resolveMemoryOptions } from "./options.js";
export type * from "./types.js";
