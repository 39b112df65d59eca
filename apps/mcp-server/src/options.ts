import { type ConfigKey, DocDBError, echo, type LoadedConfig, settingsFromEnv } from "@docdb/core";
import { DEFAULT_HTTP_HOST, DEFAULT_HTTP_PORT } from "./http-defaults.js";
import type { ToolDescriptors } from "./tool-descriptors.js";

/** How to serve, as given by flags; unset fields fall back to the environment, then defaults. */
export interface ServeOptions {
  /** Streamable HTTP instead of stdio. */
  http?: boolean;
  host?: string;
  port?: number | string;
  token?: string;
  /** OAuth 2.1: the authorization server whose access tokens (JWTs) are accepted. */
  oauthIssuer?: string;
  /** OAuth 2.1: this server's resource URL, the `aud` tokens must carry. */
  oauthAudience?: string;
  /** OAuth 2.1: the issuer's JWKS URL (default: from its metadata). */
  oauthJwks?: string;
  allowedOrigins?: readonly string[];
  /** Database for tool calls without db_name. Default "vectors". */
  defaultDb?: string;
  /** Re-import changed files of enabled collections while serving. */
  watch?: boolean;
  /** Quiet time before a re-import, in ms. Default 2000. */
  watchDebounceMs?: number;
  /** insert_url may fetch web pages (else DOCDB_MCP_ALLOW_FETCH; default off). */
  allowFetch?: boolean;
  /** ...and reach loopback, link-local and private addresses (else DOCDB_MCP_FETCH_PRIVATE; default off). */
  allowPrivateFetch?: boolean;
  /** The tools' descriptors made at build time (a program passes its own; see tool-descriptors.ts). */
  toolDescriptors?: ToolDescriptors;
}

export interface ResolvedServeOptions {
  http: boolean;
  host: string;
  port: number;
  token: string | undefined;
  oauth: { issuer: string; audience: string; jwksUrl?: string } | undefined;
  allowedOrigins: string[];
  defaultDb: string | undefined;
  watch: boolean;
  watchDebounceMs: number | undefined;
  /** insert_url: whether it fetches at all, and whether it may reach private addresses. */
  fetch: { allow: boolean; allowPrivate: boolean };
  /** DOCDB_HTTP_MAX_SESSIONS: open MCP sessions at most (default 100). */
  maxSessions: number | undefined;
  /** DOCDB_HTTP_SESSION_IDLE_SECONDS, in ms: a session unused this long is closed (default 30 min). */
  sessionIdleMs: number | undefined;
}

function positiveWhole(value: string | undefined, where: string): number | undefined {
  if (value === undefined || value.trim() === "") return undefined;
  const number = Number(value);
  if (!Number.isInteger(number) || number < 1) {
    throw new DocDBError("INVALID_REQUEST", `${where} must be a whole number of at least 1, got "${echo(value)}"`);
  }
  return number;
}

function parsePort(value: number | string, where: string): number {
  const port = typeof value === "number" ? value : Number(value.trim() === "" ? Number.NaN : value);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new DocDBError("INVALID_REQUEST", `${where} must be a port number from 0 to 65535, got "${echo(String(value))}"`);
  }
  return port;
}

/** A token nobody could send (blank, or with spaces at its ends, which HTTP strips) is refused. */
function parseToken(value: string | undefined, where: string): string | undefined {
  if (value === undefined) return undefined;
  if (value.trim() === "" || value !== value.trim() || /[\s\u0000-\u001f]/.test(value)) {
    throw new DocDBError(
      "INVALID_REQUEST",
      `${where} must be a token without spaces or control characters (it is sent as "Authorization: Bearer <token>"), e.g. the output of \`openssl rand -hex 32\``,
    );
  }
  return value;
}

function httpUrl(value: string, where: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new DocDBError("INVALID_REQUEST", `${where} must be an http(s) URL, got ${JSON.stringify(value.slice(0, 200))}`);
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") {
    throw new DocDBError("INVALID_REQUEST", `${where} must be an http(s) URL, got ${JSON.stringify(value.slice(0, 200))}`);
  }
  return value;
}

/** OAuth from flags over DOCDB_OAUTH_*: issuer and audience together, or neither. */
function resolveOAuth(options: ServeOptions, env: NodeJS.ProcessEnv): ResolvedServeOptions["oauth"] {
  const fromEnv = settingsFromEnv(env).oauth;
  const issuer = options.oauthIssuer ?? fromEnv.issuer;
  const audience = options.oauthAudience ?? fromEnv.audience;
  const jwksUrl = options.oauthJwks ?? fromEnv.jwksUrl;
  if (issuer === undefined && audience === undefined) {
    if (jwksUrl !== undefined) throw new DocDBError("INVALID_REQUEST", "--oauth-jwks needs --oauth-issuer and --oauth-audience");
    return undefined;
  }
  if (issuer === undefined || audience === undefined) {
    throw new DocDBError(
      "INVALID_REQUEST",
      "OAuth needs both --oauth-issuer (the authorization server) and --oauth-audience (this server's resource URL, e.g. https://docdb.example.com/mcp)",
    );
  }
  return {
    issuer: httpUrl(issuer, "--oauth-issuer"),
    audience: httpUrl(audience, "--oauth-audience"),
    ...(jwksUrl !== undefined ? { jwksUrl: httpUrl(jwksUrl, "--oauth-jwks") } : {}),
  };
}

/** Flags over environment (DOCDB_HTTP_HOST, _PORT, _TOKEN, _ALLOWED_ORIGINS) over defaults. */
export function resolveServeOptions(options: ServeOptions, env: NodeJS.ProcessEnv = process.env): ResolvedServeOptions {
  const envOrigins = (env.DOCDB_HTTP_ALLOWED_ORIGINS ?? "")
    .split(",")
    .map((o) => o.trim())
    .filter(Boolean);
  return {
    http: options.http ?? false,
    host: options.host || env.DOCDB_HTTP_HOST || DEFAULT_HTTP_HOST,
    port:
      options.port !== undefined
        ? parsePort(options.port, "--port")
        : env.DOCDB_HTTP_PORT
          ? parsePort(env.DOCDB_HTTP_PORT, "DOCDB_HTTP_PORT")
          : DEFAULT_HTTP_PORT,
    token:
      options.token !== undefined
        ? parseToken(options.token, "--token")
        : env.DOCDB_HTTP_TOKEN
          ? parseToken(env.DOCDB_HTTP_TOKEN, "DOCDB_HTTP_TOKEN")
          : undefined,
    oauth: resolveOAuth(options, env),
    allowedOrigins: [...(options.allowedOrigins ?? []), ...envOrigins],
    defaultDb: options.defaultDb,
    watch: options.watch ?? false,
    watchDebounceMs: options.watchDebounceMs,
    fetch: {
      allow: options.allowFetch === true || settingsFromEnv(env).mcpAllowFetch,
      allowPrivate: options.allowPrivateFetch === true || settingsFromEnv(env).mcpFetchPrivate,
    },
    maxSessions: positiveWhole(env.DOCDB_HTTP_MAX_SESSIONS, "DOCDB_HTTP_MAX_SESSIONS"),
    sessionIdleMs: ((seconds) => (seconds === undefined ? undefined : seconds * 1000))(
      positiveWhole(env.DOCDB_HTTP_SESSION_IDLE_SECONDS, "DOCDB_HTTP_SESSION_IDLE_SECONDS"),
    ),
  };
}

/** Fills what the flags left unset from docdb.config.json files, which rank above the environment. */
export function withConfigFiles(options: ServeOptions, config: LoadedConfig): ServeOptions {
  const file = (key: ConfigKey) => (config.settings[key].source === "file" ? config.settings[key].value : undefined);
  return {
    ...options,
    host: options.host ?? (file("http.host") as string | undefined),
    port: options.port ?? (file("http.port") as number | undefined),
    token: options.token ?? (file("http.token") as string | undefined),
    defaultDb: options.defaultDb ?? (file("db") as string | undefined),
  };
}
