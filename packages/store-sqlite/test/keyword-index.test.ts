// The in-memory keyword index against FTS5 on a real database: same vocabulary and statistics as
// fts5vocab, and the same keyword answers (seqs, order, scores bit for bit) as keywordSearch().
import { mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { buildKeywordQuery, indexTerms, type KeywordQuery } from "@docdb/analyzer";
import type { Filter } from "@docdb/store";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSqliteEngine } from "../src/index.js";
import { keywordSearch } from "../src/keyword.js";
import {
  type IndexedRow,
  KeywordIndex,
  KeywordIndexFormatError,
  type KeywordSearchOptions,
  PositionFile,
  positionsSection,
  SEGMENT_HEADER,
  tokenize,
} from "../src/keyword-index/index.js";

const EVAL = join(__dirname, "../../../../shared/eval");
const readJsonl = (file: string) =>
  readFileSync(join(EVAL, file), "utf8")
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l) as { id: string; title?: string; text: string });
const PER_SET = 700;

let dir: string;
let raw: Database.Database;
let rows: IndexedRow[];
let ln: (x: number) => number;
const queries: KeywordQuery[] = [];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "docdb-kwindex-"));
  const engine = createSqliteEngine({ dataDir: dir });
  const store = await engine.openDatabase("k", { create: true });
  const docs = [...readJsonl("scifact/corpus.jsonl").slice(0, PER_SET), ...readJsonl("jaquad/corpus.jsonl").slice(0, PER_SET)];
  for (let start = 0; start < docs.length; start += 100) {
    await store.writeDocuments(
      docs.slice(start, start + 100).map((d, i) => {
        // Paragraphs as chunks, so documents share titles and rows differ in size.
        const parts = d.text.split(/\n+/).filter((p) => p.trim() !== "");
        let at = 0;
        const chunks = parts.map((text, idx) => {
          const begin = d.text.indexOf(text, at);
          at = begin + text.length;
          return { id: `${d.id}-${idx}`, idx, text, start: begin, end: at, heading: idx === 1 ? "Heading_name Results" : null };
        });
        return {
          document: { id: d.id, title: d.title || null, content: d.text, contentHash: d.id, metadata: { n: (start + i) % 3 } },
          chunks,
        };
      }),
    );
  }
  // Diacritics continue a token (ʀɔ̃ʀɔ̃ is one) though they cannot start one.
  await store.writeDocuments([
    {
      document: { id: "marks", title: "Dia\u0301critics", content: "x", contentHash: "marks", metadata: { n: 0 } },
      chunks: [{ id: "marks-0", idx: 0, text: "ronron ʀɔ̃ʀɔ̃ князь пожа́рскій \u0301lead e\u0301", start: 0, end: 1 }],
    },
  ]);
  await engine.close();
  raw = new Database(join(dir, "k.db"), { readonly: true });
  const lnStatement = raw.prepare("SELECT ln(?) AS v");
  ln = (x) => (lnStatement.get(x) as { v: number }).v;
  rows = (
    raw
      .prepare(
        "SELECT c.seq, c.text, c.heading, c.symbol, c.doc, c.language, d.title FROM chunks c JOIN documents d ON d.id = c.doc_id ORDER BY c.seq",
      )
      .all() as {
      seq: number;
      text: string;
      heading: string | null;
      symbol: string | null;
      doc: string | null;
      language: string | null;
      title: string | null;
    }[]
  ).map((r) => {
    const terms = indexTerms(r.title, r, r.text);
    return { seq: r.seq, title: terms.title, body: terms.body };
  });
  for (const file of ["scifact/queries.jsonl", "jaquad/queries.jsonl"]) {
    for (const q of readJsonl(file).slice(0, 60)) {
      const query = buildKeywordQuery(q.text);
      if (query) queries.push(query);
    }
  }
  for (const text of [
    "heading_name results",
    "Heading name",
    "results results results",
    "奈良の大仏",
    "東大寺 東大寺",
    "zzzqqq nothing",
    "the of",
  ]) {
    const query = buildKeywordQuery(text);
    if (query) queries.push(query);
  }
  queries.push({ any: [["奈良"], ["大仏"]], phrases: [["奈良", "の", "大仏"]] }, { any: [["cell"]], phrases: [["cell", "cell"]] });
}, 300_000);

afterAll(() => {
  raw?.close();
  rmSync(dir, { recursive: true, force: true });
});

function build(list: IndexedRow[] = rows): KeywordIndex {
  const index = KeywordIndex.empty();
  for (const r of list) index.add(r);
  return index;
}

/** Every query's answer from the index equals FTS5's. */
function expectSameAnswers(index: KeywordIndex, limits = [10], extra: Partial<KeywordSearchOptions> = {}, filter?: Filter) {
  let compared = 0;
  for (const query of queries) {
    for (const limit of limits) {
      const expected = keywordSearch(raw, query, limit, filter);
      const accept = filter ? acceptFor(filter) : undefined;
      const got = index.search(query, limit, { ln, accept, ...extra });
      expect(got, JSON.stringify(query)).toEqual(expected);
      compared += expected.length;
    }
  }
  expect(compared).toBeGreaterThan(queries.length);
}

function acceptFor(filter: Filter): (seqs: number[]) => Set<number> {
  const n = (filter as { value: number }).value;
  const statement = raw.prepare(
    "SELECT c.seq FROM chunks c JOIN documents d ON d.id = c.doc_id WHERE c.seq = ? AND json_extract(d.metadata, '$.n') = ?",
  );
  return (seqs) => new Set(seqs.filter((s) => statement.get(s, n) !== undefined));
}

describe("the keyword index mirrors FTS5's chunks_fts", () => {
  it("tokenizes as unicode61: the same terms, rows per term and total tokens as fts5vocab", () => {
    const index = build();
    raw.exec("CREATE VIRTUAL TABLE IF NOT EXISTS temp.v USING fts5vocab(main, chunks_fts, row)");
    const terms = raw.prepare("SELECT term, doc, cnt FROM temp.v").all() as { term: string; doc: number; cnt: number }[];
    expect(terms.length).toBeGreaterThan(5000);
    let total = 0;
    for (const t of terms) {
      expect(index.df(t.term), t.term).toBe(t.doc);
      total += t.cnt;
    }
    expect(index.tokens).toBe(total);
    expect(index.rows).toBe(rows.length);
    index.compact();
    expect(index.postings).toBe(terms.reduce((n, t) => n + t.doc, 0));
    expect(tokenize("Ｆｏｏ_bar Ünïcode ΣΑΣ 1,000 東大寺")).toEqual(["ｆｏｏ", "bar", "ünïcode", "σασ", "1", "000", "東大寺"]);
    expect(tokenize("ʀɔ̃ʀɔ̃ \u0301lead")).toEqual(["ʀɔ̃ʀɔ̃", "lead"]);
    expect(index.df("ʀɔ̃ʀɔ̃")).toBe(1);
  });

  it("answers as keywordSearch() over FTS5: seqs, order and scores, for limits 1, 10, 100 and 1,000", () => {
    const index = build();
    // 1,000: more rows than the best-rows heap starts with room for (it grows).
    expectSameAnswers(index, [1, 10, 100, 1000]);
    index.compact();
    expectSameAnswers(index, [10]);
  });

  it("scores every match the same way when asked to (no pruning)", () => {
    expectSameAnswers(build(), [10], { exhaustive: true });
  });

  it("scores far fewer rows than match (pruning), with the same answers", () => {
    const index = build();
    index.compact();
    const pruned = { postings: 0, scored: 0 };
    const all = { postings: 0, scored: 0 };
    for (const query of queries) {
      const a = index.search({ any: query.any, phrases: [] }, 10, { ln, stats: pruned });
      expect(index.search({ any: query.any, phrases: [] }, 10, { ln, stats: all, exhaustive: true })).toEqual(a);
    }
    expect(pruned.postings).toBe(all.postings);
    expect(pruned.scored).toBeLessThan(all.scored / 2);
  });

  it("answers the same after rows are removed and added again, and after a round trip through bytes", () => {
    const index = build();
    index.compact();
    const removed = rows.filter((_, i) => i % 3 === 0);
    for (const r of removed) expect(index.remove(r.seq)).toBe(true);
    expect(index.remove(removed[0]?.seq as number)).toBe(false);
    expect(index.has(removed[0]?.seq as number)).toBe(false);
    for (const r of removed) index.add(r);
    for (const r of rows.slice(0, 50)) index.add(r); // replaced by itself
    expect(index.rows).toBe(rows.length);
    expectSameAnswers(index, [10]);
    const loaded = KeywordIndex.fromBuffer(index.toBuffer());
    expect(loaded.rows).toBe(rows.length);
    expect(loaded.tokens).toBe(index.tokens);
    expectSameAnswers(loaded, [1, 10]);
  });

  it("answers the same with its positions left in a file, read a window at a time", () => {
    const bytes = build().toBuffer();
    const section = positionsSection(bytes.subarray(0, SEGMENT_HEADER));
    if (!section) throw new Error("no positions section found");
    expect(section.length).toBeGreaterThan(200_000); // many windows of 32 KiB
    const end = section.start + ((section.length + 3) & ~3);
    const file = join(dir, "positions.bin");
    writeFileSync(file, Buffer.concat([Buffer.from("junk before"), bytes]));
    const withoutPositions = new Uint8Array(bytes.length - (end - section.start));
    withoutPositions.set(bytes.subarray(0, section.start));
    withoutPositions.set(bytes.subarray(end), section.start);
    const index = KeywordIndex.fromBuffer(withoutPositions, new PositionFile(openSync(file, "r"), 11 + section.start, section.length));
    expect(queries.filter((q) => q.phrases.length > 0).length).toBeGreaterThan(50);
    expectSameAnswers(index, [1, 10]);
    // Saved and compacted, it reads them back from the file.
    expect(Buffer.from(index.toBuffer()).equals(Buffer.from(bytes))).toBe(true);
    for (const r of rows.slice(0, 100)) index.remove(r.seq);
    for (const r of rows.slice(0, 100)) index.add(r);
    index.compact();
    expect(index.positionsInFile).toBe(false); // compacted: in memory
    expectSameAnswers(index, [10]);
    index.close();

    // Written to a file (as a save does), an index reads its positions from there.
    const saved = build();
    const written = saved.toBuffer();
    writeFileSync(file, Buffer.concat([Buffer.from("header"), written]));
    saved.install(openSync(file, "r"), 6);
    expect(saved.positionsInFile).toBe(true);
    expectSameAnswers(saved, [10]);
    saved.add({ seq: 10 ** 9, title: "", body: "changed since" });
    saved.compact();
    saved.close();
  });

  it("keeps a phrase's matches only while no row is added or removed", () => {
    const body = (i: number) => (i % 5 === 0 ? "red apple pie" : i % 2 ? "red car apple" : "green apple");
    const list = Array.from({ length: 50 }, (_, i) => ({ seq: i, title: "", body: body(i) }));
    const query: KeywordQuery = { any: [["red"], ["apple"]], phrases: [["red", "apple"]] };
    const answer = (ix: KeywordIndex) => ix.search(query, 5, { ln });
    const index = build(list);
    const before = answer(index);
    expect(answer(index)).toEqual(before); // from the cache
    for (const seq of [0, 5, 7]) index.remove(seq);
    const kept = list.filter((r) => ![0, 5, 7].includes(r.seq));
    expect(answer(index)).toEqual(answer(build(kept)));
    const added = { seq: 100, title: "", body: "red apple red apple" };
    index.add(added);
    expect(answer(index)).toEqual(answer(build([...kept, added])));
    expect(answer(index)[0]?.seq).toBe(100);
    // The same over the test corpus's questions.
    const phrased = queries.filter((q) => q.phrases.length > 0);
    const big = build();
    for (const q of phrased) big.search(q, 10, { ln });
    for (const r of rows.slice(0, 40)) big.remove(r.seq);
    const fresh = build(rows.slice(40));
    for (const q of phrased) expect(big.search(q, 10, { ln }), JSON.stringify(q)).toEqual(fresh.search(q, 10, { ln }));
  });

  it("gives the filtered answer with an accept callback", () => {
    const index = build();
    expectSameAnswers(index, [1, 10], {}, { op: "eq", field: { metadata: ["n"] }, value: 1 } as Filter);
  });

  it("refuses bytes it did not write, and seqs past 2^32 - 1", () => {
    const bytes = build(rows.slice(0, 200)).toBuffer();
    expect(() => KeywordIndex.fromBuffer(new Uint8Array(10))).toThrow(KeywordIndexFormatError);
    const wrongMagic = bytes.slice();
    wrongMagic[0] = 0x41;
    expect(() => KeywordIndex.fromBuffer(wrongMagic)).toThrow(/wrong magic/);
    expect(() => KeywordIndex.fromBuffer(bytes.subarray(0, bytes.length - 8))).toThrow(KeywordIndexFormatError);
    const damaged = bytes.slice();
    new DataView(damaged.buffer).setUint32(48, 0xffffffff, true); // seqs out of order
    new DataView(damaged.buffer).setUint32(52, 0, true);
    expect(() => KeywordIndex.fromBuffer(damaged)).toThrow(KeywordIndexFormatError);
    const index = KeywordIndex.empty();
    index.add({ seq: 2 ** 32 - 1, title: "", body: "x" });
    expect(index.has(2 ** 32 - 1)).toBe(true);
    expect(() => index.add({ seq: 2 ** 32, title: "", body: "x" })).toThrow(/seq 4294967296/);
    expect(KeywordIndex.fromBuffer(KeywordIndex.empty().toBuffer()).rows).toBe(0);
  });
});
