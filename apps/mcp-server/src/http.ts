import { randomUUID } from "node:crypto";
import { createServer as createHttpServer, type IncomingMessage, type Server as NodeHttpServer, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { DocDBError, type Logger, type Access as TokenStore } from "@docdb/core";
import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { ErrorCode, isInitializeRequest } from "@modelcontextprotocol/sdk/types.js";
import type { AuditSink } from "./auth/audit.js";
import type { Caller } from "./auth/caller.js";
import { RateLimiter } from "./auth/limits.js";
import { type OAuthOptions, OAuthVerifier, resourceMetadata, resourceMetadataUrl } from "./auth/oauth.js";
import { Authenticator, wwwAuthenticate } from "./auth/resolve.js";
import { readJsonBody } from "./http-body.js";
import {
  DEFAULT_HTTP_HOST,
  DEFAULT_HTTP_PORT,
  DEFAULT_MAX_BODY_BYTES,
  DEFAULT_MAX_SESSIONS,
  DEFAULT_SESSION_IDLE_MS,
} from "./http-defaults.js";
import { checkOriginAndHost, defaultOrigins, isLoopbackHost, sameToken } from "./http-guard.js";
import { checkJsonRpc } from "./jsonrpc-gate.js";
import type { ToolRegistry } from "./registry.js";
import type { DocdbResources } from "./resources.js";
import { createServer, SERVER_NAME, SERVER_VERSION, visibleTool } from "./server.js";
import { createUiHandler, isUiPath, type UiHandlerOptions } from "./ui/handler.js";

export { DEFAULT_HTTP_HOST, DEFAULT_HTTP_PORT, DEFAULT_MAX_BODY_BYTES, DEFAULT_MAX_SESSIONS, DEFAULT_SESSION_IDLE_MS };

export interface HttpOptions {
  registry: ToolRegistry;
  logger: Logger;
  /** Documents and agent memory (knowledge://) as resources, the search prompt and argument completion. */
  resources?: DocdbResources;
  /** How long a client has to answer a sampling request (merge_knowledge), in ms. */
  samplingTimeoutMs?: number;
  /** Default 127.0.0.1. Any other than loopback needs a token. */
  host?: string;
  /** Default 7411; 0 picks a free port. */
  port?: number;
  /** When set, every request must send `Authorization: Bearer <token>`. */
  token?: string;
  /** Browser origins allowed besides the server's own loopback URLs. */
  allowedOrigins?: readonly string[];
  /** Largest request body. Default 4 MiB. */
  maxBodyBytes?: number;
  /**
   * Open MCP sessions at most. A live session is never closed to make room: at the limit, an
   * initialize is refused (429 with Retry-After) until one is closed or expires. Default 100.
   */
  maxSessions?: number;
  /** A session unused this long is closed. Default 30 minutes. */
  sessionIdleMs?: number;
  /**
   * Serve the web page and its API under /ui (docs/ui.md). `authenticate` defaults to the
   * server's token; the Origin/Host checks are this server's.
   */
  ui?: Pick<UiHandlerOptions, "docdb"> & Partial<Pick<UiHandlerOptions, "authenticate" | "assets">>;
  /** Scoped tokens (`docdb token create`), looked up by hash on every request. */
  tokens?: TokenStore;
  /** OAuth 2.1 access tokens (JWTs) of this issuer for this audience. */
  oauth?: OAuthOptions;
  /** Where successful writes are recorded. */
  audit?: AuditSink;
  /** The database of tool calls without db_name. Default "vectors". */
  defaultDb?: string;
}

export interface HttpHandle {
  /** The MCP endpoint, e.g. http://127.0.0.1:7411/mcp */
  readonly url: string;
  readonly port: number;
  close(): Promise<void>;
}

interface Session {
  server: Server;
  transport: StreamableHTTPServerTransport;
  /** When a request last named it (ms since the epoch). */
  lastUsed: number;
  /** Who opened it; only the same caller may use it. */
  caller: Caller;
}

function sendJson(response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  response.writeHead(status, { "content-type": "application/json; charset=utf-8", ...headers });
  response.end(JSON.stringify(body));
}

/** HTTP failures use the JSON-RPC error shape MCP clients read, with docdb's code in data.code. */
function sendError(
  response: ServerResponse,
  status: number,
  code: string,
  message: string,
  options: { rpcCode?: number; headers?: Record<string, string> } = {},
): void {
  sendJson(
    response,
    status,
    { jsonrpc: "2.0", id: null, error: { code: options.rpcCode ?? -32000, message, data: { code } } },
    options.headers,
  );
}

/** True when a message (or a batch) asks to initialize, well-formed or not. */
function hasInitialize(body: unknown): boolean {
  const messages = Array.isArray(body) ? body : [body];
  return messages.some((m) => typeof m === "object" && m !== null && (m as { method?: unknown }).method === "initialize");
}

/**
 * Serves MCP over Streamable HTTP on /mcp (one SDK server and transport per session), the
 * tool manifest on GET /tools and a health check on GET /healthz. Token, Origin/Host and
 * body size are checked here, before anything reaches the SDK.
 */
export async function serveHttp(options: HttpOptions): Promise<HttpHandle> {
  const { registry, logger, token } = options;
  const host = options.host ?? DEFAULT_HTTP_HOST;
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const maxSessions = options.maxSessions ?? DEFAULT_MAX_SESSIONS;
  const loopbackOnly = isLoopbackHost(host);
  if (!loopbackOnly && !token && !options.oauth) {
    throw new DocDBError(
      "INVALID_REQUEST",
      `refusing to listen on ${host} without a token: anyone who can reach it could read and delete your documents. ` +
        "Pass --token (or set DOCDB_HTTP_TOKEN), or listen on 127.0.0.1",
    );
  }
  const sessions = new Map<string, Session>();
  const defaultDb = options.defaultDb ?? "vectors";
  const oauth = options.oauth ? new OAuthVerifier(options.oauth) : undefined;
  const metadataUrl = options.oauth ? resourceMetadataUrl(options.oauth.audience) : undefined;
  const authenticator = new Authenticator({ serverToken: token, tokens: options.tokens, oauth, sameToken });
  const limiter = new RateLimiter();
  let allowedOrigins: string[] = [];

  const sessionIdleMs = options.sessionIdleMs ?? DEFAULT_SESSION_IDLE_MS;
  // The page checks its own token per API call: its files load without one (a browser cannot send it).
  const ui = options.ui
    ? createUiHandler({
        ...options.ui,
        logger,
        authenticate:
          options.ui.authenticate ??
          (async (request) => {
            const auth = await authenticator.resolve(request);
            return auth.ok ? auth.caller : undefined;
          }),
        guard: (request) => checkOriginAndHost(request, { allowedOrigins, loopbackOnly }),
        maxBodyBytes,
        throttle: (caller) => limiter.take(caller),
      })
    : undefined;

  /** Closes the sessions nobody has used for sessionIdleMs; the map is in order of last use. */
  function expireIdle(now = Date.now()): void {
    for (const [id, session] of sessions) {
      if (now - session.lastUsed < sessionIdleMs) break;
      logger.info({ session: id, idle_ms: now - session.lastUsed }, "closing an idle MCP session");
      sessions.delete(id);
      session.transport.close().catch(() => undefined);
    }
  }
  const sweeper = setInterval(expireIdle, Math.max(250, Math.min(sessionIdleMs / 4, 60_000)));
  sweeper.unref();

  async function startSession(request: IncomingMessage, response: ServerResponse, body: unknown, caller: Caller): Promise<void> {
    expireIdle();
    if (sessions.size >= maxSessions) {
      // Never another caller's live session: the new one waits until one closes or goes idle.
      const oldest = sessions.values().next().value as Session;
      const retryAfter = Math.max(1, Math.ceil((oldest.lastUsed + sessionIdleMs - Date.now()) / 1000));
      return sendError(
        response,
        429,
        "CONFLICT",
        `this server already holds its limit of ${maxSessions} open MCP sessions: close one (DELETE /mcp with its mcp-session-id) ` +
          `or retry after ${retryAfter} s, when the idlest expires (sessions unused for ${Math.round(sessionIdleMs / 1000)} s are closed)`,
        { headers: { "retry-after": String(retryAfter) } },
      );
    }
    const server = createServer(registry, {
      resources: options.resources,
      caller,
      origin: request.socket.remoteAddress ?? "http",
      audit: options.audit,
      defaultDb,
      samplingTimeoutMs: options.samplingTimeoutMs,
    });
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => {
        sessions.set(id, { server, transport, lastUsed: Date.now(), caller });
      },
    });
    transport.onclose = () => {
      if (transport.sessionId) sessions.delete(transport.sessionId);
    };
    transport.onerror = (error) => logger.debug({ err: error.message.slice(0, 500) }, "MCP transport error");
    await server.connect(transport);
    await transport.handleRequest(request, response, body);
    // An initialize the transport refused (a wrong Accept header, say) made no session: let its server go.
    if (transport.sessionId === undefined || !sessions.has(transport.sessionId)) await server.close();
  }

  async function handleMcp(request: IncomingMessage, response: ServerResponse, caller: Caller): Promise<void> {
    const header = request.headers["mcp-session-id"];
    const sessionId = typeof header === "string" ? header : undefined;
    const found = sessionId !== undefined ? sessions.get(sessionId) : undefined;
    // Another caller's session is, for this one, no session at all.
    const session = found && found.caller.name === caller.name && found.caller.via === caller.via ? found : undefined;
    if (sessionId !== undefined && !session) {
      return sendError(response, 404, "NOT_FOUND", "unknown or expired MCP session: start a new one with initialize", { rpcCode: -32001 });
    }
    if (session && sessionId !== undefined) {
      // Most recently used last, so the idle sweep meets the idlest sessions first.
      session.lastUsed = Date.now();
      sessions.delete(sessionId);
      sessions.set(sessionId, session);
    }
    if (request.method === "POST") {
      const body = await readJsonBody(request, Math.min(maxBodyBytes, caller.limits?.maxBodyBytes ?? maxBodyBytes));
      if (!body.ok) {
        return sendError(response, body.status, "INVALID_REQUEST", body.message, {
          rpcCode: body.status === 400 ? ErrorCode.ParseError : -32000,
        });
      }
      // Batches, bad ids, bad params: answered per JSON-RPC before the SDK sees them.
      const refused = checkJsonRpc(body.value);
      if (refused) return sendJson(response, 400, refused);
      if (session) {
        if (hasInitialize(body.value)) {
          return sendError(
            response,
            400,
            "INVALID_REQUEST",
            "this session is already initialized: send initialize without the mcp-session-id header to start a new session",
            { rpcCode: ErrorCode.InvalidRequest },
          );
        }
        return session.transport.handleRequest(request, response, body.value);
      }
      if (!isInitializeRequest(body.value)) {
        return sendError(response, 400, "INVALID_REQUEST", "no mcp-session-id header: send initialize first to start a session");
      }
      return startSession(request, response, body.value, caller);
    }
    if (request.method === "GET" || request.method === "DELETE") {
      if (!session) return sendError(response, 400, "INVALID_REQUEST", "this request needs the mcp-session-id header from initialize");
      return session.transport.handleRequest(request, response);
    }
    return sendError(response, 405, "INVALID_REQUEST", `${request.method} is not supported on /mcp: use POST, GET or DELETE`, {
      headers: { allow: "GET, POST, DELETE" },
    });
  }

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    if (ui && isUiPath(new URL(request.url ?? "/", "http://localhost").pathname)) return ui(request, response);
    const path = new URL(request.url ?? "/", "http://localhost").pathname;
    if (options.oauth && request.method === "GET" && path.startsWith("/.well-known/oauth-protected-resource")) {
      return sendJson(response, 200, resourceMetadata(options.oauth));
    }
    const auth = await authenticator.resolve(request);
    if (!auth.ok) {
      return sendError(response, auth.status, auth.status === 403 ? "FORBIDDEN" : "UNAUTHORIZED", auth.message, {
        headers: { "www-authenticate": wwwAuthenticate(auth, metadataUrl) },
      });
    }
    const { caller } = auth;
    const refused = checkOriginAndHost(request, { allowedOrigins, loopbackOnly });
    if (refused) return sendError(response, 403, "FORBIDDEN", refused);
    const wait = limiter.take(caller);
    if (wait !== undefined) {
      request.resume();
      return sendError(
        response,
        429,
        "CONFLICT",
        `"${caller.name}" may send ${caller.limits?.requestsPerMinute} requests a minute: retry after ${wait} s`,
        { headers: { "retry-after": String(wait) } },
      );
    }
    if (path === "/mcp") return handleMcp(request, response, caller);
    if (request.method === "GET" && path === "/tools") {
      return sendJson(response, 200, { tools: registry.list().filter((tool) => visibleTool(tool.name, caller, defaultDb)) });
    }
    if (request.method === "GET" && path === "/healthz") {
      return sendJson(response, 200, {
        status: "ok",
        name: SERVER_NAME,
        version: SERVER_VERSION,
        tools: registry.names().length,
        sessions: sessions.size,
      });
    }
    return sendError(
      response,
      404,
      "NOT_FOUND",
      `no such endpoint ${request.method} ${path.slice(0, 200)}: use /mcp, GET /tools or GET /healthz`,
    );
  }

  const httpServer: NodeHttpServer = createHttpServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      logger.error({ err: error }, "HTTP request failed");
      if (!response.headersSent) sendError(response, 500, "INTERNAL", "the server failed to handle this request; see its log");
      else response.end();
    });
  });
  httpServer.on("clientError", (_error, socket) => socket.destroy());

  await new Promise<void>((resolve, reject) => {
    httpServer.once("error", (error: NodeJS.ErrnoException) =>
      reject(
        new DocDBError(
          error.code === "EADDRINUSE" ? "CONFLICT" : "INTERNAL",
          error.code === "EADDRINUSE"
            ? `port ${options.port ?? DEFAULT_HTTP_PORT} on ${host} is in use: stop the other server or pass --port`
            : `cannot listen on ${host}:${options.port ?? DEFAULT_HTTP_PORT}: ${error.message}`,
          { cause: error },
        ),
      ),
    );
    httpServer.listen(options.port ?? DEFAULT_HTTP_PORT, host, () => resolve());
  });
  const port = (httpServer.address() as AddressInfo).port;
  allowedOrigins = [...defaultOrigins(port), ...(options.allowedOrigins ?? [])];
  const shownHost = host.includes(":") ? `[${host}]` : host;

  return {
    url: `http://${shownHost}:${port}/mcp`,
    port,
    async close() {
      clearInterval(sweeper);
      await Promise.all([...sessions.values()].map((s) => s.transport.close().catch(() => undefined)));
      sessions.clear();
      await new Promise<void>((resolve) => {
        httpServer.close(() => resolve());
        httpServer.closeAllConnections();
      });
    },
  };
}
