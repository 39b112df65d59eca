// Scoped access tokens and the audit trail of a location: kept in its reserved server database
// ("_docdb": a `_docdb.db` file beside the others on SQLite, a schema every server process sees on PostgreSQL).
import type { AccessLevel, AuditRecord, Store, TokenLimits, TokenRecord } from "@docdb/store";
import { nodeCrypto } from "./builtins.js";
import { DocDBError, fromStoreError } from "./errors.js";

/** The reserved database holding tokens and the audit trail; never listed, never opened by name. */
export const SERVER_DB_NAME = "_docdb";
export const TOKEN_NAME_PATTERN = /^[A-Za-z0-9_.@-]{1,64}$/;
const TOKEN_PREFIX = "docdb_";

/** Who made a change and from where: recorded with every write. */
export interface Actor {
  /** A token name, a JWT subject, "admin" (the server's --token) or the local user. */
  name: string;
  /** A remote address, "cli" or "stdio". */
  origin: string;
}

export interface TokenInput {
  name: string;
  /** Database names, or "*" (the default) for all. */
  databases?: "*" | string[];
  access?: AccessLevel;
  /** How long it lives, in ms; absent = no expiry. */
  expiresInMs?: number;
  limits?: TokenLimits;
}

/** A token as `token list` shows it: never the token or its hash. */
export interface TokenInfo {
  name: string;
  databases: "*" | string[];
  access: AccessLevel;
  limits: TokenLimits;
  expires_at: string | null;
  created_at: string;
  revoked_at: string | null;
  state: "live" | "expired" | "revoked";
}

export type TokenCheck = { ok: true; token: TokenRecord } | { ok: false; reason: "unknown" | "expired" | "revoked"; name?: string };

export interface AuditInput {
  action: string;
  database: string;
  detail: string;
}

export function hashToken(token: string): string {
  return nodeCrypto().createHash("sha256").update(token, "utf8").digest("hex");
}

function stateOf(record: TokenRecord, now: number): TokenInfo["state"] {
  if (record.revokedAt) return "revoked";
  if (record.expiresAt && Date.parse(record.expiresAt) <= now) return "expired";
  return "live";
}

/** Tokens and audit entries of one location, over its server database. */
export class Access {
  private store: Promise<Store> | undefined;

  constructor(private readonly openStore: () => Promise<Store>) {}

  private async server(): Promise<Store> {
    this.store ??= this.openStore().catch((error: unknown) => {
      this.store = undefined;
      throw fromStoreError(error);
    });
    return this.store;
  }

  private async run<T>(work: (store: Store) => Promise<T>): Promise<T> {
    const store = await this.server();
    try {
      return await work(store);
    } catch (error) {
      throw fromStoreError(error);
    }
  }

  /** Makes a token; the token itself is in the answer only (a hash is stored). */
  async createToken(input: TokenInput, actor: Actor): Promise<{ token: string; info: TokenInfo }> {
    if (typeof input.name !== "string" || !TOKEN_NAME_PATTERN.test(input.name)) {
      throw new DocDBError(
        "INVALID_REQUEST",
        `invalid token name ${JSON.stringify(String(input.name).slice(0, 80))}: use 1-64 letters, digits, ".", "@", "_" or "-"`,
      );
    }
    const token = TOKEN_PREFIX + nodeCrypto().randomBytes(32).toString("base64url");
    const now = new Date();
    const record: TokenRecord = {
      name: input.name,
      hash: hashToken(token),
      databases: input.databases ?? "*",
      access: input.access ?? "write",
      limits: input.limits ?? {},
      ...(input.expiresInMs !== undefined ? { expiresAt: new Date(now.getTime() + input.expiresInMs).toISOString() } : {}),
      createdAt: now.toISOString(),
    };
    await this.run(async (store) => {
      if ((await store.listTokens()).some((t) => t.name === input.name)) {
        throw new DocDBError("CONFLICT", `a token named "${input.name}" already exists: revoke it first or choose another name`);
      }
      await store.createToken(record);
    });
    const scope = record.databases === "*" ? "all databases" : record.databases.join(",");
    await this.record(actor, { action: "token_create", database: "", detail: `${record.name}: ${record.access} on ${scope}` });
    return { token, info: this.info(record, now.getTime()) };
  }

  async listTokens(): Promise<TokenInfo[]> {
    const now = Date.now();
    return (await this.run((store) => store.listTokens())).map((record) => this.info(record, now));
  }

  /** Revokes a live token; NOT_FOUND when there is none of that name. */
  async revokeToken(name: string, actor: Actor): Promise<void> {
    const done = await this.run((store) => store.revokeToken(name, new Date().toISOString()));
    if (!done) throw new DocDBError("NOT_FOUND", `no live token named "${String(name).slice(0, 80)}": see \`docdb token list\``);
    await this.record(actor, { action: "token_revoke", database: "", detail: name });
  }

  /** What a presented token is: a live record, or why it is refused. */
  async check(token: string): Promise<TokenCheck> {
    if (!token.startsWith(TOKEN_PREFIX)) return { ok: false, reason: "unknown" };
    const hash = hashToken(token);
    const record = await this.run((store) => store.tokenByHash(hash));
    if (!record || !nodeCrypto().timingSafeEqual(Buffer.from(record.hash), Buffer.from(hash))) return { ok: false, reason: "unknown" };
    const state = stateOf(record, Date.now());
    return state === "live" ? { ok: true, token: record } : { ok: false, reason: state, name: record.name };
  }

  /** Appends one write to the audit trail. */
  async record(actor: Actor, entry: AuditInput): Promise<void> {
    await this.run((store) => store.appendAudit({ at: new Date().toISOString(), actor: actor.name, origin: actor.origin, ...entry }));
  }

  /** Audit entries, newest first (at most `limit`, default 1,000). */
  async audit(query: { since?: string; database?: string; limit?: number } = {}): Promise<AuditRecord[]> {
    return this.run((store) => store.listAudit({ since: query.since, database: query.database, limit: query.limit ?? 1000 }));
  }

  private info(record: TokenRecord, now: number): TokenInfo {
    return {
      name: record.name,
      databases: record.databases,
      access: record.access,
      limits: record.limits,
      expires_at: record.expiresAt ?? null,
      created_at: record.createdAt,
      revoked_at: record.revokedAt ?? null,
      state: stateOf(record, now),
    };
  }
}
