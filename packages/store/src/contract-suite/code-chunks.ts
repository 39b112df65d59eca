// Chunks of code: language, symbols and documentation kept and indexed, chunk-level filters,
// collection counts of code cut by line windows.
import { describe, expect, it } from "vitest";
import { type Filter, type FilterableDocument, matchesFilter } from "../filter.js";
import { type ContractContext, query } from "./context.js";
import { makeDocument, unit } from "./fixtures.js";

export function codeChunksContract(ctx: ContractContext): void {
  const { fresh } = ctx;
  describe("chunks of code", () => {
    const code = (language: string | null, symbol: string | null, symbolKind: string | null, codeFallback: string | null = null) => ({
      language,
      symbol,
      symbolKind,
      codeFallback,
    });

    it("keeps each chunk's language, symbols, kind, documentation and fallback, on every read", async () => {
      const store = await fresh();
      await store.setEmbeddingInfo({ provider: "p", model: "m", dimensions: 2 });
      const fields = [
        {
          ...code("typescript", "PaymentService.retryCharge", "method"),
          doc: "Retries a failed charge.\nWaits longer each time 🕐.",
          symbols: [],
        },
        { ...code(null, null, null), doc: null, symbols: [] },
        { ...code("cobol", null, null, "unsupported_language"), doc: null, symbols: [] },
        {
          ...code("python", "Invoice", "class"),
          doc: null,
          symbols: [
            { symbol: "Invoice", kind: "class" },
            { symbol: "Invoice.tax", kind: "method" },
            { symbol: "settle", kind: null },
          ],
        },
      ];
      const doc = makeDocument(["async retryCharge() {}", "prose", "IDENTIFICATION DIVISION.", "class Invoice: ..."], {}, (i) => ({
        ...fields[i],
        lineStart: i + 1,
        lineEnd: i + 1,
        vector: unit([1, i]),
      }));
      await store.writeDocuments([doc]);
      const expected = fields.map((f, i) => ({ id: doc.chunks[i]?.id, ...f, lineStart: i + 1, lineEnd: i + 1 }));
      expect(await store.getChunks(doc.document.id)).toMatchObject(expected);
      expect(await store.exportChunks(doc.document.id)).toMatchObject(expected);
      expect(await store.chunkHits(doc.chunks.map((c) => c.id).reverse())).toMatchObject([...expected].reverse());
    });

    it("indexes the symbol with the title: a query naming it finds the definition before its uses", async () => {
      const store = await fresh();
      const definition = makeDocument(
        ["async retryCharge(charge) {\n  for (let attempt = 0; attempt < 3; attempt++) await sleep(2 ** attempt);\n}"],
        {
          title: "src/payments/service.ts",
        },
        () => code("typescript", "PaymentService.retryCharge", "method"),
      );
      const uses = makeDocument(
        ["await payments.retryCharge(a);\nawait payments.retryCharge(b);\nawait payments.retryCharge(c);"],
        { title: "src/jobs/nightly.ts" },
        () => code("typescript", "runNightly", "function"),
      );
      const unrelated = makeDocument(["the charge was refunded"], { title: "notes.md" });
      await store.writeDocuments([uses, unrelated, definition]);
      for (const text of ["retryCharge", "PaymentService.retryCharge", "retry_charge"]) {
        const hits = await store.keywordSearch(query(text), { limit: 5 });
        expect(hits[0]?.chunkId, text).toBe(definition.chunks[0]?.id);
      }
      // The symbol's words alone find it first too ("service" is in its symbol and title only).
      const words = await store.keywordSearch(query("payment service"), { limit: 5 });
      expect(words[0]?.chunkId).toBe(definition.chunks[0]?.id);
    });

    it("indexes documentation and every packed symbol with the title, and a code chunk without its language's reserved words", async () => {
      const store = await fresh();
      const documented = makeDocument(["def tax(self, rate):\n    return self.total * rate"], { title: "billing.py" }, () => ({
        ...code("python", "Invoice.tax", "method"),
        doc: "Consumption tax, rounded down to the yen.",
      }));
      const packed = makeDocument(["class Invoice: ...\ndef settle(invoice): ..."], { title: "models.py" }, () => ({
        ...code("python", "Invoice", "class"),
        symbols: [
          { symbol: "Invoice", kind: "class" },
          { symbol: "settle", kind: "function" },
        ],
      }));
      const prose = makeDocument(["Return the form by the deadline; the tax office will not return it."], { title: "notes.md" });
      const uses = makeDocument(["settle(first)\nsettle(second)\nsettle(third)"], { title: "jobs.py" }, () => code("python", null, null));
      await store.writeDocuments([documented, packed, prose, uses]);
      const top = async (text: string) => (await store.keywordSearch(query(text), { limit: 5 })).map((h) => h.chunkId);
      // "consumption" and "yen" are only in the documentation.
      expect(await top("consumption yen")).toEqual([documented.chunks[0]?.id]);
      // "settle" is the second declaration packed into a chunk: indexed with its title, it outweighs three calls.
      expect(await top("settle")).toEqual([packed.chunks[0]?.id, uses.chunks[0]?.id]);
      // `return` in Python code is syntax: only the prose matches it.
      expect(await top("return")).toEqual([prose.chunks[0]?.id]);
      expect(await top("self")).toEqual([]);
    });

    it("filters on language, symbol and symbol_kind: a search sees one chunk, a listing any chunk of a document", async () => {
      const store = await fresh();
      await store.setEmbeddingInfo({ provider: "p", model: "m", dimensions: 2 });
      const layouts = [
        [code("typescript", "PaymentService", "class"), code("typescript", "PaymentService.retryCharge", "method")],
        [code("python", "retry_charge", "function"), code(null, null, null)],
        [code("typescript", null, null, "syntax_error")],
        [code(null, null, null)],
        [code("go", "Server.Serve", "method"), code("go", "Server", "struct"), code("go", "NewServer", "function")],
      ];
      const docs = layouts.map((chunks, d) =>
        makeDocument(
          chunks.map((_, i) => `共通 common ${d} ${i}`),
          { metadata: { team: d % 2 === 0 ? "pay" : "web" } },
          (i) => ({ ...chunks[i], vector: unit([1, d + i]) }),
        ),
      );
      await store.writeDocuments(docs);
      const chunkOf = new Map(
        docs.flatMap((d, di) => d.chunks.map((c, ci) => [c.id, { doc: d.document.id, fields: layouts[di]?.[ci] }] as const)),
      );
      const stored = await Promise.all(docs.map((d) => store.getDocument(d.document.id)));
      const view = (doc: (typeof stored)[number], chunks: ReturnType<typeof code>[]): FilterableDocument => ({
        ...(doc as FilterableDocument),
        chunks: chunks.map((c) => ({ language: c.language, symbol: c.symbol, symbolKind: c.symbolKind })),
      });
      const filters: Filter[] = [
        { op: "eq", field: { chunk: "language" }, value: "typescript" },
        { op: "eq", field: { chunk: "language" }, value: null },
        { op: "ne", field: { chunk: "language" }, value: "typescript" },
        { op: "in", field: { chunk: "symbol_kind" }, values: ["method", "function"] },
        { op: "nin", field: { chunk: "symbol_kind" }, values: ["class", "struct"] },
        { op: "eq", field: { chunk: "symbol_kind" }, value: "class" },
        { op: "exists", field: { chunk: "symbol" }, value: true },
        { op: "exists", field: { chunk: "symbol" }, value: false },
        { op: "prefix", field: { chunk: "symbol" }, value: "Server." },
        { op: "gt", field: { chunk: "symbol" }, value: "P" },
        { not: { op: "eq", field: { chunk: "symbol_kind" }, value: "method" } },
        {
          and: [
            { op: "eq", field: { chunk: "language" }, value: "typescript" },
            { op: "eq", field: { chunk: "symbol_kind" }, value: "method" },
          ],
        },
        {
          or: [
            { op: "eq", field: { chunk: "language" }, value: "python" },
            { op: "eq", field: { metadata: ["team"] }, value: "pay" },
          ],
        },
        // Conditions on the document beside conditions on the chunk (a scan asks the first once per document).
        {
          and: [
            { op: "eq", field: { metadata: ["team"] }, value: "pay" },
            { op: "ne", field: { chunk: "symbol_kind" }, value: "method" },
          ],
        },
        {
          and: [
            { op: "exists", field: { metadata: ["team"] }, value: true },
            {
              or: [
                { op: "eq", field: { chunk: "language" }, value: "python" },
                { op: "eq", field: { metadata: ["team"] }, value: "pay" },
              ],
            },
          ],
        },
      ];
      for (const filter of filters) {
        const label = JSON.stringify(filter);
        const expectedChunks = [...chunkOf]
          .filter(([, c]) =>
            matchesFilter(
              filter,
              view(
                stored.find((s) => s?.id === c.doc),
                [c.fields as ReturnType<typeof code>],
              ),
            ),
          )
          .map(([id]) => id)
          .sort();
        const keyword = (await store.keywordSearch(query("共通"), { limit: 100, filter })).map((h) => h.chunkId).sort();
        expect(keyword, `keywordSearch ${label}`).toEqual(expectedChunks);
        const vector = (await store.vectorSearch(unit([1, 1]), { limit: 100, filter, exact: true })).map((h) => h.chunkId).sort();
        expect(vector, `vectorSearch ${label}`).toEqual(expectedChunks);
        const expectedDocs = stored
          .filter((s, i) => matchesFilter(filter, view(s, layouts[i] ?? [])))
          .map((s) => s?.id)
          .sort();
        const listed = (await store.listDocuments({ limit: 100, filter })).map((d) => d.id).sort();
        expect(listed, `listDocuments ${label}`).toEqual(expectedDocs);
      }
      // Chunk and document views differ, and the filters split the chunks many ways.
      const ne = filters[2] as Filter;
      expect(matchesFilter(ne, view(stored[0], layouts[0] ?? []))).toBe(false);
      const sizes = new Set(
        filters.map(
          (f) =>
            [...chunkOf].filter(([, c]) =>
              matchesFilter(
                f,
                view(
                  stored.find((s) => s?.id === c.doc),
                  [c.fields as ReturnType<typeof code>],
                ),
              ),
            ).length,
        ),
      );
      expect(sizes.size).toBeGreaterThan(5);
    });

    it("counts a collection's documents and chunks of code cut by line windows", async () => {
      const store = await fresh();
      await store.createCollection({ name: "src", description: "d", source: "/tmp/src", enabled: true });
      const file = (path: string, fallback: (string | null)[]) => ({
        ...makeDocument(
          fallback.map((_, i) => `line ${i}`),
          {},
          (i) => code("typescript", null, null, fallback[i] ?? null),
        ),
        file: { collection: "src", record: { path, size: 1, mtime: 1, contentHash: path, chunking: "v" } },
      });
      await store.writeDocuments([
        file("ok.ts", [null, null]),
        file("broken.ts", ["syntax_error", "syntax_error"]),
        file("x.cob", ["unsupported_language"]),
      ]);
      expect(await store.collectionCounts("src")).toMatchObject({
        documents: 3,
        chunks: 5,
        codeFallbackDocuments: 2,
        codeFallbackChunks: 3,
      });
    });
  });
}
