// Scoped tokens and the audit trail: records round-trip, names are unique, revocation sticks,
// audit entries come back newest first and filter by time and database.
import { describe, expect, it } from "vitest";
import type { TokenRecord } from "../access-types.js";
import { type ContractContext, expectStoreError } from "./context.js";

function token(name: string, hash: string, extra: Partial<TokenRecord> = {}): TokenRecord {
  return { name, hash, databases: "*", access: "read", limits: {}, createdAt: "2026-01-01T00:00:00.000Z", ...extra };
}

export function accessContract(ctx: ContractContext): void {
  describe("access tokens and audit", () => {
    it("stores tokens by hash, keeps names unique and revokes them", async () => {
      const store = await ctx.fresh();
      expect(await store.listTokens()).toEqual([]);
      const scoped = token("agent-ä", "a".repeat(64), {
        databases: ["alpha", "beta"],
        access: "write",
        limits: { requestsPerMinute: 60, maxBodyBytes: 1000 },
        expiresAt: "2027-01-01T00:00:00.000Z",
      });
      await store.createToken(scoped);
      await store.createToken(token("reader", "b".repeat(64)));
      expect(await store.tokenByHash("a".repeat(64))).toEqual(scoped);
      expect(await store.tokenByHash("c".repeat(64))).toBeUndefined();
      await expectStoreError(store.createToken(token("reader", "d".repeat(64))), "CONFLICT");
      await expectStoreError(store.createToken(token("other", "a".repeat(64))), "CONFLICT");
      expect((await store.listTokens()).map((t) => t.name)).toEqual(["agent-ä", "reader"]);
      expect(await store.revokeToken("reader", "2026-02-01T00:00:00.000Z")).toBe(true);
      expect(await store.revokeToken("reader", "2026-03-01T00:00:00.000Z")).toBe(false);
      expect(await store.revokeToken("nobody", "2026-03-01T00:00:00.000Z")).toBe(false);
      expect((await store.tokenByHash("b".repeat(64)))?.revokedAt).toBe("2026-02-01T00:00:00.000Z");
    });

    it("keeps an audit trail, newest first, filtered by time and database", async () => {
      const store = await ctx.fresh();
      const base = { actor: "agent", origin: "127.0.0.1", detail: "doc 01H" };
      await store.appendAudit({ ...base, at: "2026-01-01T00:00:00.000Z", action: "insert", database: "alpha" });
      await store.appendAudit({ ...base, at: "2026-01-02T00:00:00.000Z", action: "delete", database: "beta" });
      await store.appendAudit({
        ...base,
        at: "2026-01-03T00:00:00.000Z",
        action: "drop_database",
        database: "alpha",
        detail: "x".repeat(5000),
      });
      const all = await store.listAudit({ limit: 10 });
      expect(all.map((e) => e.action)).toEqual(["drop_database", "delete", "insert"]);
      expect(all[0]?.id).toBeGreaterThan(all[1]?.id ?? Infinity);
      expect(all[0]?.detail.length).toBe(1000);
      expect(all[2]).toMatchObject({ ...base, action: "insert", database: "alpha" });
      expect((await store.listAudit({ limit: 10, database: "alpha" })).map((e) => e.action)).toEqual(["drop_database", "insert"]);
      expect((await store.listAudit({ limit: 10, since: "2026-01-02T00:00:00.000Z" })).length).toBe(2);
      expect((await store.listAudit({ limit: 1 })).length).toBe(1);
    });
  });
}
