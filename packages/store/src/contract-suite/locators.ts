// Locators of extracted documents: a chunk's page, slide, sheet and row kept on every read and
// copy, and filters on them (a search sees one chunk, a listing any chunk of a document).
import { describe, expect, it } from "vitest";
import type { ChunkLocator } from "../document-types.js";
import { type Filter, type FilterableDocument, matchesFilter } from "../filter.js";
import { type ContractContext, query } from "./context.js";
import { makeDocument, unit } from "./fixtures.js";

export function locatorsContract(ctx: ContractContext): void {
  const { fresh } = ctx;
  describe("chunk locators", () => {
    it("keeps each chunk's locator on every read and export, null where there is none", async () => {
      const store = await fresh();
      await store.setEmbeddingInfo({ provider: "p", model: "m", dimensions: 2 });
      const locators: (ChunkLocator | null)[] = [{ page: 3 }, { sheet: "売上 2026", row: 12 }, null, { slide: 2, section: "Intro" }];
      const doc = makeDocument(["page three", "a row", "plain", "a slide"], {}, (i) => ({ locator: locators[i], vector: unit([1, i]) }));
      await store.writeDocuments([doc]);
      const expected = locators.map((locator, i) => ({ id: doc.chunks[i]?.id, locator }));
      expect(await store.getChunks(doc.document.id)).toMatchObject(expected);
      expect(await store.exportChunks(doc.document.id)).toMatchObject(expected);
      expect(await store.chunkHits(doc.chunks.map((c) => c.id))).toMatchObject(expected);
    });

    it("filters on page, slide, sheet, row and section as the reference does, on every query path", async () => {
      const store = await fresh();
      await store.setEmbeddingInfo({ provider: "p", model: "m", dimensions: 2 });
      const layouts: (ChunkLocator | null)[][] = [
        [{ page: 1 }, { page: 2 }, { page: 3 }],
        [{ slide: 1 }, { slide: 4 }],
        [
          { sheet: "売上", row: 1 },
          { sheet: "売上", row: 40 },
          { sheet: "Costs", row: 2 },
        ],
        [null],
        [{ page: 7 }, null],
      ];
      const docs = layouts.map((chunks, d) =>
        makeDocument(
          chunks.map((_, i) => `共通 common ${d} ${i}`),
          {},
          (i) => ({ locator: chunks[i] ?? null, vector: unit([1, d + i]) }),
        ),
      );
      await store.writeDocuments(docs);
      const stored = await Promise.all(docs.map((d) => store.getDocument(d.document.id)));
      const view = (d: number, chunks: (ChunkLocator | null)[]): FilterableDocument => ({
        ...(stored[d] as FilterableDocument),
        chunks: chunks.map((locator) => ({ language: null, symbol: null, symbolKind: null, locator })),
      });
      const filters: Filter[] = [
        { op: "eq", field: { locator: "page" }, value: 2 },
        { op: "gte", field: { locator: "page" }, value: 3 },
        { op: "lt", field: { locator: "row" }, value: 10 },
        { op: "eq", field: { locator: "sheet" }, value: "売上" },
        { op: "prefix", field: { locator: "sheet" }, value: "Co" },
        { op: "ne", field: { locator: "page" }, value: 1 },
        { op: "eq", field: { locator: "page" }, value: null },
        { op: "in", field: { locator: "slide" }, values: [4, 9] },
        { op: "nin", field: { locator: "slide" }, values: [1] },
        { op: "exists", field: { locator: "page" }, value: true },
        { op: "exists", field: { locator: "row" }, value: false },
        { op: "eq", field: { locator: "page" }, value: "2" },
        {
          and: [
            { op: "eq", field: { locator: "sheet" }, value: "売上" },
            { op: "gt", field: { locator: "row" }, value: 5 },
          ],
        },
      ];
      for (const filter of filters) {
        const label = JSON.stringify(filter);
        const expectedChunks = docs
          .flatMap((d, di) => d.chunks.filter((_, ci) => matchesFilter(filter, view(di, [layouts[di]?.[ci] ?? null]))).map((c) => c.id))
          .sort();
        const keyword = (await store.keywordSearch(query("共通"), { limit: 100, filter })).map((h) => h.chunkId).sort();
        expect(keyword, `keywordSearch ${label}`).toEqual(expectedChunks);
        const vector = (await store.vectorSearch(unit([1, 1]), { limit: 100, filter, exact: true })).map((h) => h.chunkId).sort();
        expect(vector, `vectorSearch ${label}`).toEqual(expectedChunks);
        const expectedDocs = docs
          .filter((_, di) => matchesFilter(filter, view(di, layouts[di] ?? [])))
          .map((d) => d.document.id)
          .sort();
        const listed = (await store.listDocuments({ limit: 100, filter })).map((d) => d.id).sort();
        expect(listed, `listDocuments ${label}`).toEqual(expectedDocs);
      }
      // The filters are not trivial: page >= 3 keeps two chunks of two documents.
      expect(
        (await store.keywordSearch(query("共通"), { limit: 100, filter: { op: "gte", field: { locator: "page" }, value: 3 } })).length,
      ).toBe(2);
    });
  });
}
