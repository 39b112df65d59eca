// From an HTTP request's bearer token to a Caller: the server's own --token (admin), a scoped
// token made with `docdb token create` (looked up by its hash), or an OAuth access token (a JWT).
import type { IncomingMessage } from "node:http";
import type { TokenRecord, Access as TokenStore } from "@docdb/core";
import { type Caller, OPEN_CALLER, SERVER_TOKEN_CALLER } from "./caller.js";
import { OAuthRefusal, type OAuthVerifier } from "./oauth.js";

export type Resolution =
  | { ok: true; caller: Caller }
  | { ok: false; status: 401 | 403; message: string; error?: "invalid_token" | "insufficient_scope" };

export interface AuthenticatorOptions {
  /** The server's own token: admin on everything, as before scoped tokens. */
  serverToken?: string;
  /** Where scoped tokens live (the location's server database). */
  tokens?: TokenStore;
  oauth?: OAuthVerifier;
  /** Constant-time comparison of a presented token with the server's. */
  sameToken: (presented: string, expected: string) => boolean;
}

export function callerOfToken(record: TokenRecord): Caller {
  return { name: record.name, via: "scoped-token", access: record.access, databases: record.databases, limits: record.limits };
}

function bearerOf(request: IncomingMessage): string | undefined {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(request.headers.authorization ?? "");
  return match?.[1];
}

const JWT_SHAPE = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*\.[A-Za-z0-9_-]*$/;

export class Authenticator {
  constructor(private readonly options: AuthenticatorOptions) {}

  /** True when a request without a token is refused (a server token or OAuth is configured). */
  get required(): boolean {
    return this.options.serverToken !== undefined || this.options.oauth !== undefined;
  }

  async resolve(request: IncomingMessage): Promise<Resolution> {
    const presented = bearerOf(request);
    if (presented === undefined) {
      if (!this.required) return { ok: true, caller: OPEN_CALLER };
      const message =
        request.headers.authorization === undefined
          ? "this server needs a bearer token: send Authorization: Bearer <token>"
          : "the Authorization header is not a bearer token: send Authorization: Bearer <token>";
      return { ok: false, status: 401, message };
    }
    const { serverToken, tokens, oauth, sameToken } = this.options;
    if (serverToken !== undefined && sameToken(presented, serverToken)) return { ok: true, caller: SERVER_TOKEN_CALLER };
    if (tokens && presented.startsWith("docdb_")) {
      const check = await tokens.check(presented);
      if (check.ok) return { ok: true, caller: callerOfToken(check.token) };
      if (check.reason === "expired") {
        return {
          ok: false,
          status: 401,
          error: "invalid_token",
          message: `token "${check.name}" has expired: make a new one with docdb token create`,
        };
      }
      if (check.reason === "revoked") {
        return { ok: false, status: 401, error: "invalid_token", message: `token "${check.name}" was revoked: ask for a new one` };
      }
    }
    if (oauth && JWT_SHAPE.test(presented)) {
      try {
        return { ok: true, caller: await oauth.verify(presented) };
      } catch (error) {
        if (error instanceof OAuthRefusal) {
          return { ok: false, status: error.error === "insufficient_scope" ? 403 : 401, error: error.error, message: error.message };
        }
        throw error;
      }
    }
    return {
      ok: false,
      status: 401,
      error: "invalid_token",
      message: "unknown bearer token: check it, or make one with docdb token create",
    };
  }
}

/** The `WWW-Authenticate` value of a refusal. */
export function wwwAuthenticate(refusal: { error?: string; message: string }, metadataUrl: string | undefined): string {
  const parts = ['Bearer realm="docdb"'];
  if (metadataUrl) parts.push(`resource_metadata="${metadataUrl}"`);
  if (refusal.error) parts.push(`error="${refusal.error}"`, `error_description="${refusal.message.replace(/["\\]/g, "'")}"`);
  return parts.join(", ");
}
