// OAuth 2.1 for MCP over HTTP, as a resource server: access tokens are JWTs checked with `jose`
// against the issuer's JWKS (signature, iss, aud, exp/nbf; asymmetric algorithms only), and their
// scopes become a Caller. Also the protected-resource metadata (RFC 9728) the 401s point to.
import { createRemoteJWKSet, type JWTPayload, jwtVerify } from "jose";
import type { Access, Caller } from "./caller.js";

export interface OAuthOptions {
  /** The authorization server's issuer URL (the `iss` of its tokens). */
  issuer: string;
  /** This server's resource URL (the `aud` its tokens must carry), e.g. https://docdb.example.com/mcp. */
  audience: string;
  /** The issuer's JWKS; default: `jwks_uri` from its metadata (/.well-known/oauth-authorization-server or openid-configuration). */
  jwksUrl?: string;
}

/** Asymmetric only: `none` and HS* (a shared secret, or a public key misused as one) are refused. */
export const OAUTH_ALGORITHMS = ["RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512", "EdDSA"];
export const SCOPE_READ = "docdb:read";
export const SCOPE_WRITE = "docdb:write";
export const SCOPE_ADMIN = "docdb:admin";
/** `docdb:db:<name>` limits a token to the named databases (several may be given). */
export const SCOPE_DB_PREFIX = "docdb:db:";
const CLOCK_TOLERANCE_S = 30;

/** A token refused: 401 invalid_token, or 403 insufficient_scope. */
export class OAuthRefusal extends Error {
  constructor(
    message: string,
    readonly error: "invalid_token" | "insufficient_scope",
  ) {
    super(message);
  }
}

function scopesOf(payload: JWTPayload): string[] {
  const { scope, scp } = payload as { scope?: unknown; scp?: unknown };
  if (typeof scope === "string") return scope.split(/\s+/).filter(Boolean);
  if (Array.isArray(scp)) return scp.filter((s): s is string => typeof s === "string");
  if (typeof scp === "string") return scp.split(/\s+/).filter(Boolean);
  return [];
}

/** A verified token's claims as a Caller: scopes give the access level and the databases. */
export function callerFromClaims(payload: JWTPayload): Caller {
  const scopes = scopesOf(payload);
  const access: Access | undefined = scopes.includes(SCOPE_ADMIN)
    ? "admin"
    : scopes.includes(SCOPE_WRITE)
      ? "write"
      : scopes.includes(SCOPE_READ)
        ? "read"
        : undefined;
  if (!access)
    throw new OAuthRefusal(`the token carries none of the scopes ${SCOPE_READ}, ${SCOPE_WRITE}, ${SCOPE_ADMIN}`, "insufficient_scope");
  const databases = scopes.filter((s) => s.startsWith(SCOPE_DB_PREFIX)).map((s) => s.slice(SCOPE_DB_PREFIX.length));
  const who = payload.sub ?? (payload as { client_id?: string }).client_id ?? "oauth";
  return { name: String(who).slice(0, 200), via: "oauth", access, databases: databases.length > 0 ? databases : "*" };
}

async function discoverJwks(issuer: string): Promise<URL> {
  const base = issuer.replace(/\/$/, "");
  for (const path of ["/.well-known/oauth-authorization-server", "/.well-known/openid-configuration"]) {
    const response = await fetch(`${base}${path}`, { signal: AbortSignal.timeout(10_000) }).catch(() => undefined);
    if (!response?.ok) continue;
    const metadata = (await response.json().catch(() => ({}))) as { jwks_uri?: unknown };
    if (typeof metadata.jwks_uri === "string") return new URL(metadata.jwks_uri);
  }
  throw new OAuthRefusal(`cannot find the JWKS of ${issuer}: pass --oauth-jwks URL`, "invalid_token");
}

/** Checks access tokens of one issuer for one audience. */
export class OAuthVerifier {
  private keys: Promise<ReturnType<typeof createRemoteJWKSet>> | undefined;

  constructor(readonly options: OAuthOptions) {}

  private jwks(): Promise<ReturnType<typeof createRemoteJWKSet>> {
    this.keys ??= (async () =>
      createRemoteJWKSet(this.options.jwksUrl ? new URL(this.options.jwksUrl) : await discoverJwks(this.options.issuer)))();
    this.keys.catch(() => {
      this.keys = undefined;
    });
    return this.keys;
  }

  /** The token's Caller; an OAuthRefusal saying why not. */
  async verify(token: string): Promise<Caller> {
    const keys = await this.jwks();
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(token, keys, {
        issuer: this.options.issuer,
        audience: this.options.audience,
        algorithms: OAUTH_ALGORITHMS,
        clockTolerance: CLOCK_TOLERANCE_S,
        requiredClaims: ["exp"],
      }));
    } catch (error) {
      const code = (error as { code?: string }).code ?? "";
      const reason =
        code === "ERR_JWT_EXPIRED"
          ? "the access token has expired: get a new one from the authorization server"
          : code === "ERR_JWT_CLAIM_VALIDATION_FAILED"
            ? `the access token's ${(error as { claim?: string }).claim ?? "claims"} does not match this server (issuer ${this.options.issuer}, audience ${this.options.audience})`
            : code === "ERR_JOSE_ALG_NOT_ALLOWED" || code === "ERR_JOSE_NOT_SUPPORTED"
              ? `the access token's algorithm is not accepted (use one of ${OAUTH_ALGORITHMS.join(", ")})`
              : "the access token's signature or form is invalid";
      throw new OAuthRefusal(reason, "invalid_token");
    }
    return callerFromClaims(payload);
  }
}

/** Where this server's protected-resource metadata is, for `WWW-Authenticate: Bearer resource_metadata="…"`. */
export function resourceMetadataUrl(audience: string): string {
  const url = new URL(audience);
  const path = url.pathname === "/" ? "" : url.pathname.replace(/\/$/, "");
  return `${url.origin}/.well-known/oauth-protected-resource${path}`;
}

/** RFC 9728 protected-resource metadata. */
export function resourceMetadata(options: OAuthOptions): Record<string, unknown> {
  return {
    resource: options.audience,
    authorization_servers: [options.issuer],
    scopes_supported: [SCOPE_READ, SCOPE_WRITE, SCOPE_ADMIN],
    bearer_methods_supported: ["header"],
    resource_name: "docdb",
    resource_documentation: "https://github.com/docdb/docdb/blob/main/docs/security.md",
  };
}
