// Who is calling the HTTP server and what they may do: the one shape that scoped tokens (issue 28)
// and OAuth access tokens both resolve to, and that every tool, resource and page checks.

/** read: find, get, list, status. write: also insert, delete, import, memory writes. admin: also drop, SQL, tokens. */
export type Access = "read" | "write" | "admin";

export interface CallerLimits {
  /** Requests per minute this caller may make; over it the server answers 429 with Retry-After. */
  requestsPerMinute?: number;
  /** Largest request body in bytes for this caller. */
  maxBodyBytes?: number;
}

export interface Caller {
  /** Token name, JWT subject, or "admin" for the server's own --token; recorded in the audit trail. */
  name: string;
  /** How the caller proved who it is. */
  via: "server-token" | "scoped-token" | "oauth" | "none";
  access: Access;
  /** The databases this caller may see, or "*" for all. */
  databases: "*" | string[];
  limits?: CallerLimits;
}

/** The caller when the server has no token at all (loopback only). */
export const OPEN_CALLER: Caller = { name: "local", via: "none", access: "admin", databases: "*" };

/** The caller holding the server's single `--token`: everything, as before scoped tokens. */
export const SERVER_TOKEN_CALLER: Caller = { name: "admin", via: "server-token", access: "admin", databases: "*" };

const RANK: Record<Access, number> = { read: 0, write: 1, admin: 2 };

/** True when `caller` has at least `needed` access. */
export function allows(caller: Caller, needed: Access): boolean {
  return RANK[caller.access] >= RANK[needed];
}

/** True when `caller` may see database `name`. */
export function seesDatabase(caller: Caller, name: string): boolean {
  return caller.databases === "*" || caller.databases.includes(name);
}
