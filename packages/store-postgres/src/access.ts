// Scoped tokens and the audit trail in a PostgreSQL schema (migration 0009): the contract's access
// methods as SQL over the `access_tokens` and `audit_log` tables.
import {
  AUDIT_DETAIL_MAX,
  type AuditEntry,
  type AuditQuery,
  type AuditRecord,
  type AuditRow,
  auditFromRow,
  StoreError,
  type TokenRecord,
  type TokenRow,
  tokenFromRow,
  tokenToRow,
} from "@docdb/store";
import type { StoreContext } from "./connection.js";

/** A write in a transaction of its own (a plain read is run again after a dropped connection; a write must not be). */
async function write(ctx: StoreContext, sql: string, params: unknown[]): Promise<unknown[]> {
  return ctx.db.transaction(async (client) => (await client.query(sql, params)).rows);
}

export async function createToken(ctx: StoreContext, record: TokenRecord): Promise<void> {
  const r = tokenToRow(record);
  const rows = await write(
    ctx,
    `INSERT INTO ${ctx.s}.access_tokens (name, hash, databases, access, limits, expires_at, created_at, revoked_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8) ON CONFLICT DO NOTHING RETURNING name`,
    [r.name, r.hash, r.databases, r.access, r.limits, r.expires_at, r.created_at, r.revoked_at],
  );
  if (rows.length === 0) throw new StoreError("CONFLICT", `a token named ${JSON.stringify(record.name)} already exists`);
}

export async function listTokens(ctx: StoreContext): Promise<TokenRecord[]> {
  return (await ctx.read<TokenRow & Record<string, unknown>>(`SELECT * FROM ${ctx.s}.access_tokens ORDER BY name COLLATE "C"`)).map(
    tokenFromRow,
  );
}

export async function tokenByHash(ctx: StoreContext, hash: string): Promise<TokenRecord | undefined> {
  const rows = await ctx.read<TokenRow & Record<string, unknown>>(`SELECT * FROM ${ctx.s}.access_tokens WHERE hash = $1`, [hash]);
  return rows[0] ? tokenFromRow(rows[0]) : undefined;
}

export async function revokeToken(ctx: StoreContext, name: string, at: string): Promise<boolean> {
  const rows = await write(ctx, `UPDATE ${ctx.s}.access_tokens SET revoked_at = $1 WHERE name = $2 AND revoked_at IS NULL RETURNING name`, [
    at,
    name,
  ]);
  return rows.length > 0;
}

export async function appendAudit(ctx: StoreContext, entry: AuditEntry): Promise<void> {
  await write(ctx, `INSERT INTO ${ctx.s}.audit_log (at, actor, origin, action, database, detail) VALUES ($1, $2, $3, $4, $5, $6)`, [
    entry.at,
    entry.actor,
    entry.origin,
    entry.action,
    entry.database,
    entry.detail.slice(0, AUDIT_DETAIL_MAX),
  ]);
}

export async function listAudit(ctx: StoreContext, query: AuditQuery): Promise<AuditRecord[]> {
  const rows = await ctx.read<AuditRow & Record<string, unknown>>(
    `SELECT * FROM ${ctx.s}.audit_log WHERE ($1::text IS NULL OR at >= $1) AND ($2::text IS NULL OR database = $2)
     ORDER BY id DESC LIMIT $3`,
    [query.since ?? null, query.database ?? null, query.limit],
  );
  return rows.map(auditFromRow);
}
