// Access rows as both engines store them (JSON text for the database list and limits), turned into
// the contract's records, so that the engines' access rooms differ only in their SQL.
import type { AccessLevel, AuditRecord, TokenRecord } from "./access-types.js";

export interface TokenRow {
  name: string;
  hash: string;
  databases: string;
  access: string;
  limits: string;
  expires_at: string | null;
  created_at: string;
  revoked_at: string | null;
}

export interface AuditRow {
  id: number | string;
  at: string;
  actor: string;
  origin: string;
  action: string;
  database: string;
  detail: string;
}

/** The longest audit detail kept. */
export const AUDIT_DETAIL_MAX = 1000;

export function tokenToRow(record: TokenRecord): TokenRow {
  return {
    name: record.name,
    hash: record.hash,
    databases: JSON.stringify(record.databases),
    access: record.access,
    limits: JSON.stringify(record.limits ?? {}),
    expires_at: record.expiresAt ?? null,
    created_at: record.createdAt,
    revoked_at: record.revokedAt ?? null,
  };
}

export function tokenFromRow(row: TokenRow): TokenRecord {
  return {
    name: row.name,
    hash: row.hash,
    databases: JSON.parse(row.databases) as "*" | string[],
    access: row.access as AccessLevel,
    limits: JSON.parse(row.limits) as TokenRecord["limits"],
    ...(row.expires_at ? { expiresAt: row.expires_at } : {}),
    createdAt: row.created_at,
    ...(row.revoked_at ? { revokedAt: row.revoked_at } : {}),
  };
}

export function auditFromRow(row: AuditRow): AuditRecord {
  return {
    id: Number(row.id),
    at: row.at,
    actor: row.actor,
    origin: row.origin,
    action: row.action,
    database: row.database,
    detail: row.detail,
  };
}
