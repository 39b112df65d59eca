import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { buildKeywordQuery } from "@docdb/analyzer";
import type { Store } from "@docdb/store";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createSqliteEngine, type SqliteEngine } from "../src/index.js";

let dir: string;
let engine: SqliteEngine;
let store: Store;
beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), "docdb-keyword-"));
  engine = createSqliteEngine({ dataDir: dir });
  store = await engine.openDatabase("k", { create: true });
});
afterEach(async () => {
  await engine.close();
  rmSync(dir, { recursive: true, force: true });
});

/** One single-chunk document per text; returns the chunk id of each. */
async function add(texts: Record<string, string>, metadata: Record<string, unknown> = {}): Promise<Record<string, string>> {
  const ids: Record<string, string> = {};
  for (const [id, text] of Object.entries(texts)) {
    await store.writeDocuments([
      { document: { id, content: text, contentHash: id, metadata }, chunks: [{ id: `${id}-0`, idx: 0, text, start: 0, end: text.length }] },
    ]);
    ids[id] = `${id}-0`;
  }
  return ids;
}

async function search(query: string, limit = 10): Promise<string[]> {
  const q = buildKeywordQuery(query);
  return q ? (await store.keywordSearch(q, { limit })).map((h) => h.chunkId) : [];
}

describe("keyword search through the analyzer and FTS5", () => {
  it("finds English words by their stem", async () => {
    const s = await add({ mice: "The mice were running long experiments.", other: "A quiet afternoon by the river." });
    expect(await search("run an experiment")).toEqual([s.mice]);
  });

  it("matches katakana with and without the final long vowel mark, and half-width forms", async () => {
    const s = await add({ pc: "コンピューターの設定を変更する。", server: "ｻｰﾊﾞｰを再起動した。" });
    expect(await search("コンピュータ")).toEqual([s.pc]);
    expect(await search("サーバー")).toEqual([s.server]);
  });

  it("finds a code identifier by itself, by its words and in another naming convention", async () => {
    const s = await add({ code: "設定は parseConfigFile() で読み込む。", prose: "The file was parsed before the config changed." });
    expect((await search("parseConfigFile"))[0]).toBe(s.code);
    expect((await search("parse_config_file"))[0]).toBe(s.code);
    expect(await search("設定を読み込む")).toEqual([s.code]);
    // The words alone reach the prose too; the identifier's joined form ranks the code first.
    expect(await search("parse config file")).toContain(s.prose);
    // An identifier that is nowhere finds nothing, though its words are common.
    expect(await search("CONFIG_FILE_MISSING")).toEqual([]);
  });

  it("finds a mixed Japanese, English and code passage by each of its languages", async () => {
    const s = await add({
      mixed: "認証トークンは rotateAccessTokens で毎日更新します。Tokens expire after 24 hours.",
      ja: "東京は日本の首都です。",
      en: "Weather reports arrive hourly.",
    });
    expect(await search("トークンの更新")).toEqual([s.mixed]);
    expect(await search("token expiry")).toEqual([s.mixed]);
    expect((await search("rotate access tokens"))[0]).toBe(s.mixed);
  });

  it("ranks a passage that keeps the query's word order above one that scatters the same words", async () => {
    // Same words, same lengths: plain BM25 cannot tell them apart; the phrase bonus can.
    const s = await add({ scattered: "大仏は有名な寺にある。奈良の鹿も有名だ。", ordered: "奈良の大仏は有名な寺にある。鹿も有名だ。" });
    const q = buildKeywordQuery("奈良の大仏")!;
    const plain = await store.keywordSearch({ any: q.any, phrases: [] }, { limit: 10 });
    expect(plain[0]?.score).toBeCloseTo(plain[1]?.score as number, 9);
    expect((await store.keywordSearch(q, { limit: 10 })).map((h) => h.chunkId)).toEqual([s.ordered, s.scattered]);
  });

  it("keeps filters and limits when re-ranking by word order", async () => {
    await add({ a: "奈良の大仏は大きい。" }, { lang: "ja" });
    const other = await add({ b: "奈良の大仏を見た。" }, { lang: "other" });
    const q = buildKeywordQuery("奈良の大仏")!;
    const filter = { op: "eq", field: { metadata: ["lang"] }, value: "other" } as const;
    expect((await store.keywordSearch(q, { limit: 10, filter })).map((h) => h.chunkId)).toEqual([other.b]);
    expect(await store.keywordSearch(q, { limit: 1 })).toHaveLength(1);
  });
});
