// The HNSW index's settings (defaults, per-database meta keys, checks, the automatic search
// width) and the usearch library, loaded on first use.
import { StoreError, type VectorIndexSettings } from "@docdb/store";
import type * as USearchModule from "usearch";
import type { IndexLog } from "./log.js";

export type USearch = typeof USearchModule;

export const USEARCH_VERSION = "2.26.2";
export const LIBRARY = `usearch ${USEARCH_VERSION}`;

/** Above this many vectors, a database without its own ef_search searches wider (searchWidth). */
const AUTO_WIDTH_FROM = 200_000;
const MAX_EXPANSION = 4096;

/** The search width docdb picks for `size` vectors (0 up to AUTO_WIDTH_FROM: ef_search as set). */
export function autoSearchWidth(size: number): number {
  if (size <= AUTO_WIDTH_FROM) return 0;
  return Math.min(MAX_EXPANSION, Math.ceil((size * DEFAULT_VECTOR_INDEX_SETTINGS.expansionSearch) / AUTO_WIDTH_FROM));
}

export const DEFAULT_VECTOR_INDEX_SETTINGS: VectorIndexSettings = {
  threshold: 20_000,
  connectivity: 16,
  expansionAdd: 128,
  expansionSearch: 128,
  quantization: "f16",
};

const SETTING_KEYS: Record<keyof VectorIndexSettings, string> = {
  threshold: "setting:vector_index.threshold",
  connectivity: "setting:vector_index.connectivity",
  expansionAdd: "setting:vector_index.expansion_add",
  expansionSearch: "setting:vector_index.expansion_search",
  quantization: "setting:vector_index.quantization",
};

/** Checks settings; throws a message for people on a bad one. */
export function checkSettings(settings: Partial<VectorIndexSettings>): void {
  for (const [key, value] of Object.entries(settings)) {
    if (value === undefined) continue;
    if (key === "quantization") {
      if (value !== "f16" && value !== "f32")
        throw new StoreError("INVALID_REQUEST", `vector index quantization must be f16 or f32, not "${value}"`);
    } else if (key in SETTING_KEYS) {
      const max = key === "threshold" ? Number.MAX_SAFE_INTEGER : key === "connectivity" ? 128 : MAX_EXPANSION;
      const min = key === "threshold" ? 0 : key === "connectivity" ? 2 : 1;
      if (!Number.isInteger(value) || (value as number) < min || (value as number) > max) {
        throw new StoreError("INVALID_REQUEST", `vector index ${key} must be a whole number from ${min} to ${max}, not ${value}`);
      }
    } else throw new StoreError("INVALID_REQUEST", `unknown vector index setting "${key}"`);
  }
}

/** The engine defaults with this database's own settings over them. */
export function readSettings(log: IndexLog, defaults: VectorIndexSettings): VectorIndexSettings {
  // A copy of the kept values: callers may change theirs.
  return { ...log.kept("index.settings", () => readStoredSettings(log, defaults)) };
}

function readStoredSettings(log: IndexLog, defaults: VectorIndexSettings): VectorIndexSettings {
  const settings = { ...defaults };
  for (const [key, metaKey] of Object.entries(SETTING_KEYS) as [keyof VectorIndexSettings, string][]) {
    const value = (log.statement("SELECT value FROM meta WHERE key = ?").get(metaKey) as { value: string } | undefined)?.value;
    if (value === undefined) continue;
    if (key === "quantization") {
      if (value === "f16" || value === "f32") settings.quantization = value;
    } else {
      const n = Number(value);
      if (Number.isInteger(n) && n >= 0) settings[key] = n;
    }
  }
  return settings;
}

/** Keeps settings for this database (inside the caller's write transaction). */
export function storeSettings(log: IndexLog, settings: Partial<VectorIndexSettings>): void {
  checkSettings(settings);
  for (const [key, value] of Object.entries(settings) as [keyof VectorIndexSettings, unknown][]) {
    if (value === undefined) continue;
    log
      .statement("INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value")
      .run(SETTING_KEYS[key], String(value));
  }
}

/**
 * How many candidates a query explores when the database leaves ef_search to docdb: the
 * graph's recall at a fixed ef falls as it grows (bench clusters at ef 128: 0.993 of the exact
 * top 10 at 100k, 0.795 at 1M; ef 512 gave 0.943–0.953 at 1M over two builds of the graph,
 * ef 640 0.958), so above 200,000 vectors the width grows with the size (ef 640 at 1M), up to
 * the largest ef_search allowed. A database (or an
 * engine option) that sets ef_search gets exactly that. 0: the index's own ef_search.
 */
export function searchWidth(log: IndexLog, defaults: VectorIndexSettings, size: number): number {
  if (defaults.expansionSearch !== DEFAULT_VECTOR_INDEX_SETTINGS.expansionSearch) return 0;
  const stored = log.kept("index.expansionSearchSet", () =>
    log.statement("SELECT 1 FROM meta WHERE key = ?").get(SETTING_KEYS.expansionSearch),
  );
  return stored === undefined ? autoSearchWidth(size) : 0;
}

let usearchModule: Promise<USearch> | undefined;

/** usearch is imported on first use only: databases below the threshold and CLI start-up never load it. */
export function loadUsearch(): Promise<USearch> {
  usearchModule ??= import("usearch");
  return usearchModule;
}
