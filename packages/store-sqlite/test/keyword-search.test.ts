import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { buildKeywordQuery, SqliteStore } from "../src/index.js";

let store: SqliteStore;
beforeEach(() => {
  store = SqliteStore.open(":memory:");
});
afterEach(() => store.close());

/** One single-chunk document per text; returns the chunk seq of each. */
function add(texts: Record<string, string>, metadata: Record<string, unknown> = {}): Record<string, number> {
  const seqs: Record<string, number> = {};
  for (const [id, text] of Object.entries(texts)) {
    const [seq] = store.insertDocument({ id, content: text, contentHash: id, metadata }, [
      { id: `${id}-0`, idx: 0, text, start: 0, end: text.length },
    ]);
    seqs[id] = seq as number;
  }
  return seqs;
}

function search(query: string, limit = 10): number[] {
  const q = buildKeywordQuery(query);
  return q ? store.keywordSearch(q, limit).map((h) => h.seq) : [];
}

describe("keyword search through the analyzer and FTS5", () => {
  it("finds English words by their stem", () => {
    const s = add({ mice: "The mice were running long experiments.", other: "A quiet afternoon by the river." });
    expect(search("run an experiment")).toEqual([s.mice]);
  });

  it("matches katakana with and without the final long vowel mark, and half-width forms", () => {
    const s = add({ pc: "コンピューターの設定を変更する。", server: "ｻｰﾊﾞｰを再起動した。" });
    expect(search("コンピュータ")).toEqual([s.pc]);
    expect(search("サーバー")).toEqual([s.server]);
  });

  it("finds a code identifier by itself, by its words and in another naming convention", () => {
    const s = add({ code: "設定は parseConfigFile() で読み込む。", prose: "The file was parsed before the config changed." });
    expect(search("parseConfigFile")[0]).toBe(s.code);
    expect(search("parse_config_file")[0]).toBe(s.code);
    expect(search("設定を読み込む")).toEqual([s.code]);
    // The words alone reach the prose too; the identifier's joined form ranks the code first.
    expect(search("parse config file")).toContain(s.prose);
    // An identifier that is nowhere finds nothing, though its words are common.
    expect(search("CONFIG_FILE_MISSING")).toEqual([]);
  });

  it("finds a mixed Japanese, English and code passage by each of its languages", () => {
    const s = add({
      mixed: "認証トークンは rotateAccessTokens で毎日更新します。Tokens expire after 24 hours.",
      ja: "東京は日本の首都です。",
      en: "Weather reports arrive hourly.",
    });
    expect(search("トークンの更新")).toEqual([s.mixed]);
    expect(search("token expiry")).toEqual([s.mixed]);
    expect(search("rotate access tokens")[0]).toBe(s.mixed);
  });

  it("ranks a passage that keeps the query's word order above one that scatters the same words", () => {
    // Same words, same lengths: plain BM25 cannot tell them apart; the phrase bonus can.
    const s = add({ scattered: "大仏は有名な寺にある。奈良の鹿も有名だ。", ordered: "奈良の大仏は有名な寺にある。鹿も有名だ。" });
    const q = buildKeywordQuery("奈良の大仏")!;
    const plain = store.keywordSearch(q.match, 10);
    expect(plain[0]?.score).toBeCloseTo(plain[1]?.score as number, 9);
    expect(store.keywordSearch(q, 10).map((h) => h.seq)).toEqual([s.ordered, s.scattered]);
  });

  it("keeps filters and limits when re-ranking by word order", () => {
    add({ a: "奈良の大仏は大きい。" }, { lang: "ja" });
    const other = add({ b: "奈良の大仏を見た。" }, { lang: "other" });
    const q = buildKeywordQuery("奈良の大仏")!;
    expect(store.keywordSearch(q, 10, { metadata: { lang: "other" } }).map((h) => h.seq)).toEqual([other.b]);
    expect(store.keywordSearch(q, 1)).toHaveLength(1);
  });
});
