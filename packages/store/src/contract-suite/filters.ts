// Filters: every operator on every query path against the reference (matchesFilter), unsafe paths.
import { describe, expect, it } from "vitest";
import { type Filter, type FilterableDocument, matchesFilter } from "../filter.js";
import { type ContractContext, expectStoreError, query } from "./context.js";
import { makeDocument, unit } from "./fixtures.js";

export function filtersContract(ctx: ContractContext): void {
  const { fresh } = ctx;
  describe("filters", () => {
    const docsMetadata: Record<string, unknown>[] = [
      { lang: "ja", n: 1, tags: ["a", "b"], flag: true, author: { name: "Sato" } },
      { lang: "en", n: 2.5, tags: ["b"], flag: false, author: { name: "Smith" } },
      { lang: "ja", n: "1", tags: [], flag: 1, nothing: null },
      { lang: "fr", n: 10, tags: "a", author: { name: "Sato", age: 40 } },
      { n: -3, date: "2026-11-01T00:00:00.000Z", nested: { deep: { x: "y" } } },
      { lang: "日本語", n: 0, date: "2025-01-01T00:00:00.000Z", tags: [1, "1", true, null] },
      {},
    ];
    const filters: Filter[] = [
      { op: "eq", field: { metadata: ["lang"] }, value: "ja" },
      { op: "eq", field: { metadata: ["n"] }, value: 1 },
      { op: "eq", field: { metadata: ["n"] }, value: "1" },
      { op: "eq", field: { metadata: ["flag"] }, value: true },
      { op: "eq", field: { metadata: ["flag"] }, value: 1 },
      { op: "eq", field: { metadata: ["nothing"] }, value: null },
      { op: "eq", field: { metadata: ["tags"] }, value: "a" },
      { op: "eq", field: { metadata: ["tags"] }, value: 1 },
      { op: "eq", field: { metadata: ["tags"] }, value: null },
      { op: "eq", field: { metadata: ["author", "name"] }, value: "Sato" },
      { op: "eq", field: { metadata: ["author"] }, value: "Sato" },
      { op: "ne", field: { metadata: ["lang"] }, value: "ja" },
      { op: "in", field: { metadata: ["lang"] }, values: ["en", "fr", "日本語"] },
      { op: "in", field: { metadata: ["lang"] }, values: [] },
      { op: "nin", field: { metadata: ["tags"] }, values: ["a", "b"] },
      { op: "nin", field: { metadata: ["lang"] }, values: [] },
      { op: "gt", field: { metadata: ["n"] }, value: 1 },
      { op: "gte", field: { metadata: ["n"] }, value: 1 },
      { op: "lt", field: { metadata: ["n"] }, value: 0 },
      { op: "lte", field: { metadata: ["n"] }, value: 2.5 },
      { op: "gt", field: { metadata: ["lang"] }, value: "en" },
      { op: "gte", field: { metadata: ["date"] }, value: "2026-01-01" },
      { op: "exists", field: { metadata: ["nothing"] }, value: true },
      { op: "exists", field: { metadata: ["lang"] }, value: false },
      { op: "exists", field: { metadata: ["nested", "deep", "x"] }, value: true },
      { op: "prefix", field: { metadata: ["lang"] }, value: "j" },
      { op: "prefix", field: { metadata: ["lang"] }, value: "日本" },
      {
        and: [
          { op: "eq", field: { metadata: ["lang"] }, value: "ja" },
          { op: "eq", field: { metadata: ["flag"] }, value: true },
        ],
      },
      {
        or: [
          { op: "eq", field: { metadata: ["lang"] }, value: "fr" },
          { op: "lt", field: { metadata: ["n"] }, value: 0 },
        ],
      },
      { not: { op: "exists", field: { metadata: ["tags"] }, value: true } },
      { and: [] },
      { or: [] },
      { op: "eq", field: { builtin: "source" }, value: "docs/a.md" },
      { op: "eq", field: { builtin: "source" }, value: null },
      { op: "prefix", field: { builtin: "source" }, value: "docs/" },
      { op: "eq", field: { builtin: "collection" }, value: null },
      { op: "eq", field: { builtin: "title" }, value: "T3" },
      { op: "in", field: { builtin: "title" }, values: ["T1", "T5", "nope"] },
      { op: "exists", field: { builtin: "key" }, value: true },
      { op: "gte", field: { builtin: "created_at" }, value: "2000-01-01" },
      { op: "lt", field: { builtin: "created_at" }, value: "2000-01-01" },
      { op: "ne", field: { builtin: "source" }, value: "docs/a.md" },
    ];

    it("every operator means what the reference says, on every query path", async () => {
      const store = await fresh();
      await store.setEmbeddingInfo({ provider: "p", model: "m", dimensions: 2 });
      const docs = docsMetadata.map((metadata, i) =>
        makeDocument(
          [`共通の言葉 common words ${i}`],
          {
            metadata,
            title: `T${i}`,
            source: i % 2 === 0 ? `docs/${String.fromCharCode(97 + i)}.md` : null,
            key: i === 3 ? "the-key" : null,
          },
          () => ({ vector: unit([1, i]) }),
        ),
      );
      for (const d of docs) await store.writeDocuments([{ ...d, upsertByKey: true }]);
      const stored = await Promise.all(docs.map((d) => store.getDocument(d.document.id)));
      const byChunk = new Map(docs.map((d) => [d.chunks[0]?.id as string, d.document.id]));
      for (const filter of filters) {
        const expected = stored
          .filter((s) => matchesFilter(filter, s as FilterableDocument))
          .map((s) => s?.id)
          .sort();
        const label = JSON.stringify(filter);
        const listed = (await store.listDocuments({ limit: 100, filter })).map((d) => d.id).sort();
        expect(listed, `listDocuments ${label}`).toEqual(expected);
        const keyword = (await store.keywordSearch(query("共通"), { limit: 100, filter })).map((h) => byChunk.get(h.chunkId)).sort();
        expect(keyword, `keywordSearch ${label}`).toEqual(expected);
        const vector = (await store.vectorSearch(unit([1, 1]), { limit: 100, filter, exact: true }))
          .map((h) => byChunk.get(h.chunkId))
          .sort();
        expect(vector, `vectorSearch ${label}`).toEqual(expected);
      }
      // The reference itself is not vacuous: the filters above split the documents many ways.
      const sizes = new Set(filters.map((f) => stored.filter((s) => matchesFilter(f, s as FilterableDocument)).length));
      expect(sizes.size).toBeGreaterThan(4);
    });

    it("refuses a metadata path it cannot name safely", async () => {
      const store = await fresh();
      await expectStoreError(
        store.listDocuments({ limit: 1, filter: { op: "eq", field: { metadata: ['a"b'] }, value: 1 } }),
        "INVALID_REQUEST",
      );
      await expectStoreError(store.listDocuments({ limit: 1, filter: { op: "eq", field: { metadata: [] }, value: 1 } }), "INVALID_REQUEST");
    });
  });
}
