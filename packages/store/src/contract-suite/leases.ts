// Leases (optional: `claimLease`/`releaseLease`): one holder at a time across connections, renewal
// by the holder, release, and expiry freeing a lease whose holder went away.
import { describe, expect, it } from "vitest";
import type { Store } from "../types.js";
import { type ContractContext, expectStoreError } from "./context.js";
import { testId } from "./fixtures.js";

type Leasing = Required<Pick<Store, "claimLease" | "releaseLease">>;

function leasing(store: Store): Leasing {
  if (!store.claimLease || !store.releaseLease) throw new Error("this engine has no leases");
  return store as Store & Leasing;
}

export function leasesContract(ctx: ContractContext): void {
  describe("leases", () => {
    const withTwo = async (fn: (a: Leasing, b: Leasing) => Promise<void>): Promise<void> => {
      const name = `ls_${testId().toLowerCase()}`.slice(0, 40);
      const a = await ctx.engine.openDatabase(name, { create: true });
      if (!a.claimLease) return; // an engine without leases: nothing to hold it to
      const otherEngine = await ctx.second();
      try {
        await fn(leasing(a), leasing(await otherEngine.openDatabase(name)));
      } finally {
        await otherEngine.close();
      }
    };

    it("one holder at a time across connections; the holder renews; release frees it", async () => {
      await withTwo(async (a, b) => {
        expect(await a.claimLease("embed", "proc-a", 60_000)).toBe(true);
        expect(await b.claimLease("embed", "proc-b", 60_000)).toBe(false);
        expect(await a.claimLease("embed", "proc-a", 60_000)).toBe(true); // renewed
        expect(await b.claimLease("other", "proc-b", 60_000)).toBe(true); // leases are by name
        await b.releaseLease("embed", "proc-b"); // not its lease: nothing happens
        expect(await b.claimLease("embed", "proc-b", 60_000)).toBe(false);
        await a.releaseLease("embed", "proc-a");
        expect(await b.claimLease("embed", "proc-b", 60_000)).toBe(true);
        expect(await a.claimLease("embed", "proc-a", 60_000)).toBe(false);
      });
    });

    it("of many claims at once from two connections, exactly one wins", async () => {
      await withTwo(async (a, b) => {
        const claims = Array.from({ length: 20 }, (_, i) => (i % 2 === 0 ? a : b).claimLease("race", `holder-${i}`, 60_000));
        const won = (await Promise.all(claims)).filter(Boolean);
        expect(won.length).toBe(1);
      });
    });

    it("a lease whose holder went away expires, and another takes it", async () => {
      await withTwo(async (a, b) => {
        expect(await a.claimLease("expiring", "gone", 300)).toBe(true);
        expect(await b.claimLease("expiring", "next", 60_000)).toBe(false);
        // Polled until the engine's clock passes the lease's end (no fixed sleep).
        const deadline = Date.now() + 30_000;
        let taken = false;
        while (!taken && Date.now() < deadline) {
          taken = await b.claimLease("expiring", "next", 60_000);
          if (!taken) await new Promise((resolve) => setTimeout(resolve, 25));
        }
        expect(taken).toBe(true);
        expect(await a.claimLease("expiring", "gone", 300)).toBe(false);
      });
    });

    it("refuses a lease without a name or holder, or with a time that is not a positive whole number", async () => {
      await withTwo(async (a) => {
        await expectStoreError(a.claimLease("", "x", 1000), "INVALID_REQUEST");
        await expectStoreError(a.claimLease("n", "", 1000), "INVALID_REQUEST");
        await expectStoreError(a.claimLease("n", "x", 0), "INVALID_REQUEST");
        await expectStoreError(a.claimLease("n", "x", 1.5), "INVALID_REQUEST");
      });
    });
  });
}
