// Scoped tokens and the audit trail in a SQLite database (migration 0009): the contract's access
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
import type { Connection } from "./connection.js";

export async function createToken(conn: Connection, record: TokenRecord): Promise<void> {
  const row = tokenToRow(record);
  await conn.write(() => {
    const taken = conn.statement("SELECT name FROM access_tokens WHERE name = ? OR hash = ?").get(row.name, row.hash);
    if (taken) throw new StoreError("CONFLICT", `a token named ${JSON.stringify(record.name)} already exists`);
    conn
      .statement(
        `INSERT INTO access_tokens (name, hash, databases, access, limits, expires_at, created_at, revoked_at)
         VALUES (@name, @hash, @databases, @access, @limits, @expires_at, @created_at, @revoked_at)`,
      )
      .run(row);
  });
}

export function listTokens(conn: Connection): TokenRecord[] {
  return (conn.statement("SELECT * FROM access_tokens ORDER BY name").all() as TokenRow[]).map(tokenFromRow);
}

export function tokenByHash(conn: Connection, hash: string): TokenRecord | undefined {
  const row = conn.statement("SELECT * FROM access_tokens WHERE hash = ?").get(hash) as TokenRow | undefined;
  return row ? tokenFromRow(row) : undefined;
}

export function revokeToken(conn: Connection, name: string, at: string): Promise<boolean> {
  return conn.write(
    () => conn.statement("UPDATE access_tokens SET revoked_at = ? WHERE name = ? AND revoked_at IS NULL").run(at, name).changes > 0,
  );
}

export async function appendAudit(conn: Connection, entry: AuditEntry): Promise<void> {
  await conn.write(() => {
    conn
      .statement("INSERT INTO audit_log (at, actor, origin, action, database, detail) VALUES (?, ?, ?, ?, ?, ?)")
      .run(entry.at, entry.actor, entry.origin, entry.action, entry.database, entry.detail.slice(0, AUDIT_DETAIL_MAX));
  });
}

export function listAudit(conn: Connection, query: AuditQuery): AuditRecord[] {
  const rows = conn
    .statement(
      `SELECT * FROM audit_log WHERE (@since IS NULL OR at >= @since) AND (@database IS NULL OR database = @database)
       ORDER BY id DESC LIMIT @limit`,
    )
    .all({ since: query.since ?? null, database: query.database ?? null, limit: query.limit }) as AuditRow[];
  return rows.map(auditFromRow);
}
