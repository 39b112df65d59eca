// Leases: a `meta` row per lease naming its holder and when it runs out, on the server's clock,
// taken or renewed by one atomic upsert, so processes on several machines agree who holds it.
import { StoreError } from "@docdb/store";
import type { StoreContext } from "./connection.js";

const LEASE_PREFIX = "lease:";

function checkArguments(name: string, holder: string, ttlMs?: number): void {
  if (name === "" || holder === "") throw new StoreError("INVALID_REQUEST", "a lease needs a name and a holder");
  if (ttlMs !== undefined && (!Number.isInteger(ttlMs) || ttlMs < 1)) {
    throw new StoreError("INVALID_REQUEST", `a lease's time must be a positive whole number of ms, not ${ttlMs}`);
  }
}

export async function claimLease(ctx: StoreContext, name: string, holder: string, ttlMs: number): Promise<boolean> {
  checkArguments(name, holder, ttlMs);
  // The conflicting row is locked by the upsert: of two processes claiming at once, the second
  // sees the first's new holder and (its time not run out) takes nothing.
  const now = "(extract(epoch FROM clock_timestamp()) * 1000)::bigint";
  return ctx.db.transaction(async (client) => {
    const result = await client.query(
      `INSERT INTO ${ctx.s}.meta AS m (key, value)
         VALUES ($1, json_build_object('holder', $2::text, 'until', ${now} + $3::bigint)::text)
       ON CONFLICT (key) DO UPDATE SET value = excluded.value
         WHERE (m.value::json ->> 'holder') = $2::text OR (m.value::json ->> 'until')::bigint <= ${now}
       RETURNING key`,
      [LEASE_PREFIX + name, holder, ttlMs],
    );
    return (result.rowCount ?? 0) > 0;
  });
}

export async function releaseLease(ctx: StoreContext, name: string, holder: string): Promise<void> {
  checkArguments(name, holder);
  await ctx.db.transaction((client) =>
    client.query(`DELETE FROM ${ctx.s}.meta WHERE key = $1 AND (value::json ->> 'holder') = $2::text`, [LEASE_PREFIX + name, holder]),
  );
}
