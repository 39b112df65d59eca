// The contract's access records: scoped tokens (only a hash of each is stored) and the audit trail
// of writes. Core keeps both in one reserved database per location (see core's access.ts).

/** read: find, get, list, status. write: also insert, delete, import, memory writes. admin: also drop, SQL, tokens. */
export type AccessLevel = "read" | "write" | "admin";

export interface TokenLimits {
  /** Requests per minute; over it an HTTP server answers 429 with Retry-After. */
  requestsPerMinute?: number;
  /** Largest request body in bytes; over it an HTTP server answers 413. */
  maxBodyBytes?: number;
}

export interface TokenRecord {
  /** Unique, chosen by the person who made it; recorded in the audit trail. */
  name: string;
  /** Hex SHA-256 of the token; the token itself is never stored. */
  hash: string;
  /** The databases the token may see, or "*" for all. */
  databases: "*" | string[];
  access: AccessLevel;
  limits: TokenLimits;
  /** ISO time; absent = never expires. */
  expiresAt?: string;
  createdAt: string;
  /** ISO time of revocation; absent while the token is live. */
  revokedAt?: string;
}

/** One write, as the audit trail records it. */
export interface AuditEntry {
  /** ISO time. */
  at: string;
  /** Who: a token name, a JWT subject, "admin" (the server's --token) or the local user. */
  actor: string;
  /** From where: a remote address, "cli" or "stdio". */
  origin: string;
  /** What kind of write: insert, delete, import, merge, drop_database, create_database, token_create … */
  action: string;
  /** The database written, or "" for a change to the location itself (tokens). */
  database: string;
  /** A short description: ids, keys, counts (at most 1,000 characters are kept). */
  detail: string;
}

export interface AuditRecord extends AuditEntry {
  /** Increasing with every entry. */
  id: number;
}

export interface AuditQuery {
  /** ISO time: only entries at or after it. */
  since?: string;
  database?: string;
  /** Newest entries first, at most this many. */
  limit: number;
}
