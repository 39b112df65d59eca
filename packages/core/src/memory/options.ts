// Agent memory's thresholds: defaults, `DOCDB_MEMORY_*` variables of the given environment,
// and explicit options, in that order of strength.
import { validateThreshold } from "./names.js";
import type { MemoryOptions, ResolvedMemoryOptions } from "./types.js";

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
