// Test data for the keyword index beside a SQLite database: documents mixing English and Japanese,
// written in batches, and the answers of a fixed set of queries and filters (to compare with FTS5).
import { buildKeywordQuery } from "@docdb/analyzer";
import type { DocumentWrite, Filter, KeywordHit } from "@docdb/store";
import { createSqliteEngine, type KeywordIndexOptions, type SqliteStore } from "../../src/index.js";
import { storeFolder } from "./store-folder.js";

/**
 * A fresh folder per test (`prefix` names it) with SQLite engines opened in it, closed and removed
 * after each test: `open` gives database "k" with the keyword index at `threshold` chunks.
 */
export function keywordStores(prefix: string) {
  const folder = storeFolder(prefix);
  /** An engine on the folder, closed with the others. */
  const engine = (options: { keywordIndex?: KeywordIndexOptions } = {}) =>
    folder.track(createSqliteEngine({ dataDir: folder.dir, ...options }));
  const open = async (threshold: number, extra: KeywordIndexOptions = {}): Promise<SqliteStore> =>
    (await engine({ keywordIndex: { threshold, ...extra } }).openDatabase("k", { create: true })) as SqliteStore;
  return {
    get dir(): string {
      return folder.dir;
    },
    engine,
    open,
    closeAll: folder.closeAll,
  };
}

const WORDS =
  "apple river stone light quantum protein cell membrane signal garden winter market engine cloud forest music theory data model index search table glass paper ocean".split(
    " ",
  );
const JAPANESE = ["東京の大学で研究する", "奈良の寺院と仏像", "川の水が流れる", "新しい技術の開発", "古い文化財を守る"];

/** Deterministic documents mixing English and Japanese, titles, two metadata groups, 1–3 chunks each. */
export function documents(count: number, seed: number): DocumentWrite[] {
  let state = seed;
  const next = (n: number) => {
    state = (state * 1103515245 + 12345) % 2147483648;
    return state % n;
  };
  return Array.from({ length: count }, (_, i) => {
    const id = `d${seed}-${i}`;
    const chunks = Array.from({ length: 1 + next(3) }, (_, c) => {
      const words = Array.from({ length: 5 + next(30) }, () => WORDS[next(WORDS.length)]);
      const text = `${words.join(" ")} ${next(3) === 0 ? (JAPANESE[next(JAPANESE.length)] as string) : ""}`.trim();
      return { id: `${id}-${c}`, idx: c, text, start: 0, end: text.length };
    });
    const title = next(2) === 0 ? `${WORDS[next(WORDS.length)]} ${WORDS[next(WORDS.length)]}` : undefined;
    return {
      upsertByKey: true,
      document: {
        id,
        key: id,
        title,
        content: chunks.map((c) => c.text).join("\n"),
        contentHash: id,
        metadata: { group: i % 3 === 0 ? "a" : "b" },
      },
      chunks,
    };
  });
}

export async function write(store: SqliteStore, docs: DocumentWrite[]): Promise<void> {
  for (let i = 0; i < docs.length; i += 100) await store.writeDocuments(docs.slice(i, i + 100));
}

const QUERIES = [
  "apple",
  "quantum protein",
  "river stone light",
  "cell membrane signal",
  "奈良の仏像",
  "東京 大学",
  "index search",
  "ocean glass paper",
];
const FILTERS: (Filter | undefined)[] = [
  undefined,
  { op: "eq", field: { metadata: ["group"] }, value: "a" },
  { not: { op: "eq", field: { metadata: ["group"] }, value: "a" } },
  { op: "exists", field: { builtin: "title" }, value: true },
];

export async function answers(store: SqliteStore, limit = 10): Promise<KeywordHit[][]> {
  const all: KeywordHit[][] = [];
  for (const text of QUERIES) {
    const query = buildKeywordQuery(text);
    if (!query) throw new Error(`no query from ${text}`);
    for (const filter of FILTERS) all.push(await store.keywordSearch(query, { limit, ...(filter ? { filter } : {}) }));
  }
  return all;
}
