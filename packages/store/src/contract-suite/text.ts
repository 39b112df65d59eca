// Text: one model on every engine. NUL and lone surrogates are refused in every text column with
// INVALID_REQUEST naming the field (nothing of the write is stored); valid text, astral characters
// included, comes back exactly, and chunk offsets are UTF-16 code units that slice the content.
import { describe, expect, it } from "vitest";
import type { DocumentWrite, NewChunk, NewDocument } from "../types.js";
import { type ContractContext, expectStoreError } from "./context.js";
import { makeDocument } from "./fixtures.js";

/** Text no engine stores, and where its fault is (UTF-16 code units). */
const FAULTY: { name: string; text: string; index: number }[] = [
  { name: "a NUL character", text: "a\u0000b", index: 1 },
  { name: "a lone high surrogate", text: "前\ud800後 abc", index: 1 },
  { name: "a lone low surrogate", text: "abc \udfff end", index: 4 },
  { name: "a pair in the wrong order", text: "x\ude00\ud83d", index: 1 },
  { name: "a high surrogate at the end", text: "end\ud83d", index: 3 },
];

/** Where the faulty text goes in a write, and the field the refusal must name. */
const PLACES: { field: string; named: string; put: (w: DocumentWrite, text: string) => DocumentWrite }[] = [
  { field: "content", named: "document.content", put: (w, t) => doc(w, { content: `${w.document.content}${t}` }) },
  { field: "title", named: "document.title", put: (w, t) => doc(w, { title: t }) },
  { field: "key", named: "document.key", put: (w, t) => doc(w, { key: t }) },
  { field: "source", named: "document.source", put: (w, t) => doc(w, { source: t }) },
  { field: "metadata value", named: "document.metadata.tags[1]", put: (w, t) => doc(w, { metadata: { tags: ["ok", t] } }) },
  { field: "nested metadata value", named: "document.metadata.a.b", put: (w, t) => doc(w, { metadata: { a: { b: t } } }) },
  { field: "metadata key", named: "in document.metadata", put: (w, t) => doc(w, { metadata: { fine: 1, [t]: "v" } }) },
  { field: "chunk text", named: "chunks[0].text", put: (w, t) => firstChunk(w, { text: t }) },
  { field: "chunk heading", named: "chunks[0].heading", put: (w, t) => firstChunk(w, { heading: t }) },
];

const doc = (w: DocumentWrite, fields: Partial<NewDocument>): DocumentWrite => ({ ...w, document: { ...w.document, ...fields } });
const firstChunk = (w: DocumentWrite, fields: Partial<NewChunk>): DocumentWrite => ({
  ...w,
  chunks: w.chunks.map((c, i) => (i === 0 ? { ...c, ...fields } : c)),
});

/** A document whose chunks lie end to end at UTF-16 offsets, as core's chunker gives them. */
function laidOut(pieces: string[]): DocumentWrite {
  const doc = makeDocument(pieces, { title: "𠮷野家 😀", metadata: { emoji: "👩‍👩‍👧", 漢字: "𠮷" } });
  for (const chunk of doc.chunks) expect(doc.document.content.slice(chunk.start, chunk.end)).toBe(chunk.text);
  return doc;
}

export function textContract(ctx: ContractContext): void {
  const { fresh } = ctx;
  describe("text: one model on every engine", () => {
    for (const place of PLACES) {
      it(`refuses NUL and lone surrogates in a document's ${place.field}, naming it, and stores nothing of the write`, async () => {
        const store = await fresh();
        for (const faulty of FAULTY) {
          const good = makeDocument(["きれいな文書"]);
          const bad = place.put(
            makeDocument(["もう一つの文書"], { key: "k", source: "s.md" }, () => ({ heading: "H" })),
            faulty.text,
          );
          const error = await expectStoreError(store.writeDocuments([good, bad]), "INVALID_REQUEST");
          expect(error.message, faulty.name).toContain(place.named);
          expect(error.message, faulty.name).toMatch(faulty.name.includes("NUL") ? /NUL/ : /lone surrogate/);
          if (place.field !== "content") expect(error.message, faulty.name).toContain(`position ${faulty.index}`);
          expect(await store.counts(), faulty.name).toMatchObject({ documents: 0, chunks: 0, keywordRows: 0 });
        }
      });
    }

    it("refuses NUL and lone surrogates in a collection's description, source and settings", async () => {
      const store = await fresh();
      await expectStoreError(
        store.createCollection({ name: "c", description: "a\u0000b", source: "/src", enabled: true }),
        "INVALID_REQUEST",
      );
      await expectStoreError(
        store.createCollection({ name: "c", description: "docs", source: "/s\ud800", enabled: true }),
        "INVALID_REQUEST",
      );
      expect(await store.listCollections()).toEqual([]);
      await store.createCollection({ name: "c", description: "docs", source: "/src", enabled: true });
      const error = await expectStoreError(store.updateCollection("c", { description: "x\udc00" }), "INVALID_REQUEST");
      expect(error.message).toContain("collection.description");
      await expectStoreError(store.updateCollection("c", { settings: { ignore: ["a\u0000"] } }), "INVALID_REQUEST");
      expect(await store.getCollection("c")).toMatchObject({ description: "docs", source: "/src", settings: {} });
    });

    it("keeps astral characters exactly, with chunk offsets in UTF-16 code units", async () => {
      const store = await fresh();
      // The text of the report on lone surrogates, with whole pairs where the halves were.
      const doc = laidOut(["前😀後 abc 𠮷 end", "👩‍👩‍👧 家族 🎌🎌", "e\u0301 ｶﾀｶﾅ 𝄞 fin"]);
      expect(doc.chunks.map((c) => [c.start, c.end])).toEqual([
        [0, 15],
        [16, 32],
        [33, 47],
      ]);
      await store.writeDocuments([doc]);
      const stored = await store.getDocument(doc.document.id);
      expect(stored?.content).toBe(doc.document.content);
      expect(stored?.title).toBe("𠮷野家 😀");
      expect(stored?.metadata).toEqual({ emoji: "👩‍👩‍👧", 漢字: "𠮷" });
      for (const read of [await store.getChunks(doc.document.id), await store.exportChunks(doc.document.id)]) {
        expect(read.map((c) => [c.text, c.start, c.end])).toEqual(doc.chunks.map((c) => [c.text, c.start, c.end]));
        for (const c of read) expect(stored?.content.slice(c.start, c.end)).toBe(c.text);
      }
    });

    it("accepts U+FFFD and other control characters, which are valid text", async () => {
      const store = await fresh();
      const doc = makeDocument(["replacement \uFFFD tab\t bell\u0007 del\u007f"], { title: "\uFFFD", metadata: { "\uFFFD": "\u0001" } });
      await store.writeDocuments([doc]);
      const stored = await store.getDocument(doc.document.id);
      expect(stored).toMatchObject({ content: doc.document.content, title: "\uFFFD", metadata: { "\uFFFD": "\u0001" } });
    });
  });
}
