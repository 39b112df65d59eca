// Several writers: two connections writing the same database at once.
import { describe, expect, it } from "vitest";
import type { Store } from "../types.js";
import { type ContractContext, query } from "./context.js";
import { makeDocument, testId } from "./fixtures.js";

export function writersContract(ctx: ContractContext): void {
  describe("several writers", () => {
    it("two connections writing at once both succeed, and each sees the other's writes", async () => {
      const name = `cc_${testId().toLowerCase()}`.slice(0, 40);
      const a = await ctx.engine.openDatabase(name, { create: true });
      const otherEngine = await ctx.second();
      try {
        const b = await otherEngine.openDatabase(name);
        const token = await a.changeToken();
        const writer = (store: Store, tag: string) =>
          Promise.all(
            Array.from({ length: 40 }, async (_, i) => {
              await store.writeDocuments([makeDocument([`${tag} ${i} 並行書き込み`])]);
            }),
          );
        await Promise.all([
          writer(a, "a"),
          writer(b, "b"),
          a.createCollection({ name: "c", description: "d", source: "/c", enabled: true }),
        ]);
        expect((await a.counts()).documents).toBe(80);
        expect((await b.counts()).documents).toBe(80);
        expect(await a.changeToken()).not.toBe(token);
        const before = await a.changeToken();
        await b.writeDocuments([makeDocument(["one more"])]);
        expect(await a.changeToken()).not.toBe(before);
        expect((await a.keywordSearch(query("並行書き込み"), { limit: 100 })).length).toBe(80);
      } finally {
        await otherEngine.close();
      }
    });
  });
}
