// Exporting a database's chunks (input hashes, vectors byte for byte, given times).
import { describe, expect, it } from "vitest";
import type { ContractContext } from "./context.js";
import { makeDocument, random, randomUnit } from "./fixtures.js";

export function exportContract(ctx: ContractContext): void {
  const { fresh } = ctx;
  describe("export (copying a database)", () => {
    it("exports chunks with input hashes and vectors byte for byte, and keeps given times", async () => {
      const store = await fresh();
      const next = random(11);
      const dims = 7;
      await store.setEmbeddingInfo({ provider: "test", model: "m", dimensions: dims });
      const vectors = [randomUnit(next, dims), Float32Array.from([1e-8, -0.1, 0.3333333, 1, -1, 2.5e-5, Math.SQRT1_2])];
      const times = { createdAt: "2020-01-02T03:04:05.678Z", updatedAt: "2021-02-03T04:05:06.789Z" };
      const doc = makeDocument(["first part", "second part", "third part"], times, (i) => ({
        inputHash: `h${i}`,
        ...(i < 2 ? { vector: vectors[i] } : {}),
      }));
      await store.writeDocuments([doc]);
      expect(await store.getDocument(doc.document.id)).toMatchObject(times);
      const exported = await store.exportChunks(doc.document.id);
      expect(exported.map((c) => [c.id, c.idx, c.text, c.inputHash, c.embedded])).toEqual([
        [doc.chunks[0]?.id, 0, "first part", "h0", true],
        [doc.chunks[1]?.id, 1, "second part", "h1", true],
        [doc.chunks[2]?.id, 2, "third part", "h2", false],
      ]);
      for (let i = 0; i < 2; i++) {
        const got = exported[i]?.vector as Float32Array;
        expect(got).toBeInstanceOf(Float32Array);
        expect(Buffer.from(got.buffer, got.byteOffset, got.byteLength)).toEqual(Buffer.from((vectors[i] as Float32Array).buffer));
      }
      expect(exported[2]?.vector).toBeUndefined();
      expect(await store.exportChunks("no-such-document")).toEqual([]);
      const plain = await fresh();
      const other = makeDocument(["no model yet"]);
      await plain.writeDocuments([other]);
      expect((await plain.exportChunks(other.document.id)).map((c) => [c.inputHash, c.vector])).toEqual([[null, undefined]]);
    });
  });
}
