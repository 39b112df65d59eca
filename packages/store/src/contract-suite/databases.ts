// Named databases: create, list, open, drop; kept apart; declared capabilities.
import { describe, expect, it } from "vitest";
import { type ContractContext, expectStoreError } from "./context.js";
import { makeDocument, testId } from "./fixtures.js";

export function databasesContract(ctx: ContractContext): void {
  const { fresh } = ctx;
  describe("databases", () => {
    it("creates, lists, opens and drops named databases", async () => {
      const name = `db_${testId().toLowerCase()}`.slice(0, 40);
      expect(await ctx.engine.databaseExists(name)).toBe(false);
      await expectStoreError(ctx.engine.openDatabase(name), "NOT_FOUND");
      expect(await ctx.engine.databaseExists(name)).toBe(false);
      const store = await ctx.engine.openDatabase(name, { create: true });
      expect(store.name).toBe(name);
      expect(store.location).not.toBe("");
      expect(await ctx.engine.databaseExists(name)).toBe(true);
      expect(await ctx.engine.listDatabases()).toContain(name);
      const again = await ctx.engine.openDatabase(name);
      expect((await again.counts()).documents).toBe(0);
      expect(await ctx.engine.dropDatabase(name)).toBe(true);
      expect(await ctx.engine.databaseExists(name)).toBe(false);
      expect(await ctx.engine.listDatabases()).not.toContain(name);
      expect(await ctx.engine.dropDatabase(name)).toBe(false);
    });

    it("keeps databases apart", async () => {
      const a = await fresh();
      const b = await fresh();
      const doc = makeDocument(["only in a"]);
      await a.writeDocuments([doc]);
      expect((await a.counts()).documents).toBe(1);
      expect((await b.counts()).documents).toBe(0);
      expect(await b.getDocument(doc.document.id)).toBeUndefined();
    });

    it("declares its capabilities", () => {
      expect(typeof ctx.engine.capabilities.approximateVectorSearch).toBe("boolean");
      expect(typeof ctx.engine.capabilities.concurrentWriters).toBe("boolean");
      expect(ctx.engine.capabilities.maxDimensions).toBeGreaterThanOrEqual(2000);
    });
  });
}
