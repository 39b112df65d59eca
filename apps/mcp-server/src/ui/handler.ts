// The page under /ui: its static assets (no token needed to load them) and its JSON API under
// /ui/api (bearer token; each endpoint's declared access checked against the caller), with a strict
// Content-Security-Policy and the Origin/Host checks of the MCP endpoint.
import type { IncomingMessage, ServerResponse } from "node:http";
import { DEFAULT_DB_NAME, type DocDB, DocDBError, type Logger, toDocDBError } from "@docdb/core";
import { allows, type Caller, OPEN_CALLER, SERVER_TOKEN_CALLER, seesDatabase } from "../auth/caller.js";
import { readJsonBody } from "../http-body.js";
import { DEFAULT_MAX_BODY_BYTES } from "../http-defaults.js";
import { hasToken } from "../http-guard.js";
import { type UiAssets, uiAssets } from "./assets.js";
import { matchRoute, pathKnown, type UiReply } from "./routes.js";

/** Sent with every /ui response: scripts and styles only from the page's own files, never framed. */
export const UI_SECURITY_HEADERS: Readonly<Record<string, string>> = {
  "content-security-policy":
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; " +
    "font-src 'self'; object-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  "x-content-type-options": "nosniff",
  "x-frame-options": "DENY",
  "referrer-policy": "no-referrer",
  "cross-origin-opener-policy": "same-origin",
  "cross-origin-resource-policy": "same-origin",
};

export interface UiHandlerOptions {
  docdb: DocDB;
  logger: Logger;
  /**
   * Who is calling, from the request's credentials; undefined answers 401. The one place scoped
   * tokens and OAuth plug in (see `tokenAuthenticator` for the server's single --token).
   */
  authenticate: (request: IncomingMessage) => Caller | undefined | Promise<Caller | undefined>;
  /** Origin/Host checks (DNS rebinding): a message when the request is refused. */
  guard: (request: IncomingMessage) => string | undefined;
  /** Per-caller request limits: seconds to wait when over, undefined when the call may go on. */
  throttle?: (caller: Caller) => number | undefined;
  /** The built page (default: @docdb/ui's dist folder). */
  assets?: UiAssets;
  maxBodyBytes?: number;
}

export type UiHandler = (request: IncomingMessage, response: ServerResponse) => Promise<void>;

/** True for the paths the page's handler serves. */
export function isUiPath(path: string): boolean {
  return path === "/ui" || path.startsWith("/ui/");
}

/** The caller of a server with one token (or none, on loopback): everything, or 401. */
export function tokenAuthenticator(token: string | undefined): (request: IncomingMessage) => Caller | undefined {
  if (!token) return () => OPEN_CALLER;
  return (request) => (hasToken(request, token) ? SERVER_TOKEN_CALLER : undefined);
}

const STATUS: Record<string, number> = {
  INVALID_REQUEST: 400,
  UNAUTHORIZED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  CONFLICT: 409,
  EMBEDDING_UNAVAILABLE: 503,
  RERANKER_UNAVAILABLE: 503,
  STORE_UNAVAILABLE: 503,
};

function send(response: ServerResponse, status: number, type: string, body: string | Buffer, extra: Record<string, string> = {}): void {
  response.writeHead(status, { ...UI_SECURITY_HEADERS, "content-type": type, "cache-control": "no-store", ...extra });
  response.end(body);
}

function sendError(response: ServerResponse, status: number, code: string, message: string, extra: Record<string, string> = {}): void {
  send(response, status, "application/json; charset=utf-8", JSON.stringify({ error: { code, message } }), extra);
}

async function requestBody(
  request: IncomingMessage,
  limit: number,
): Promise<{ ok: true; value: unknown } | { ok: false; status: number; message: string }> {
  if (request.method === "GET" || request.method === "DELETE") return { ok: true, value: undefined };
  const length = request.headers["content-length"];
  if (length === "0" || (length === undefined && request.headers["transfer-encoding"] === undefined)) return { ok: true, value: {} };
  // A JSON content type makes a browser ask first (CORS preflight) before sending from another site.
  if (!/^application\/json\b/i.test(request.headers["content-type"] ?? "")) {
    request.resume();
    return { ok: false, status: 415, message: "send the body as JSON with Content-Type: application/json" };
  }
  return readJsonBody(request, limit);
}

/** Streams a task's events; true when it ended with `done`. */
async function stream(response: ServerResponse, reply: Extract<UiReply, { stream: unknown }>, logger: Logger): Promise<boolean> {
  response.writeHead(200, {
    ...UI_SECURITY_HEADERS,
    "content-type": "text/event-stream; charset=utf-8",
    "cache-control": "no-store",
    "x-accel-buffering": "no",
  });
  const emit = (event: string, data: unknown): void => {
    if (!response.writableEnded) response.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
  };
  let done = false;
  try {
    emit("done", (await reply.stream(emit)) ?? {});
    done = true;
  } catch (error) {
    const e = toDocDBError(error);
    if (e.code === "INTERNAL") logger.error({ err: error }, "a page task failed");
    emit("error", { code: e.code, message: e.message });
  }
  response.end();
  return done;
}

/** Serves /ui (the page) and /ui/api/* (its API); give it only paths for which isUiPath is true. */
export function createUiHandler(options: UiHandlerOptions): UiHandler {
  const { docdb, logger } = options;
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  let assets: UiAssets | undefined = options.assets;

  return async (request, response) => {
    const refused = options.guard(request);
    if (refused) return sendError(response, 403, "FORBIDDEN", refused);
    const url = new URL(request.url ?? "/", "http://localhost");
    const path = url.pathname;
    if (!path.startsWith("/ui/api/")) {
      if (request.method !== "GET" && request.method !== "HEAD") {
        return sendError(response, 405, "INVALID_REQUEST", "the page's files are read with GET", { allow: "GET, HEAD" });
      }
      if (path === "/ui") return send(response, 308, "text/plain; charset=utf-8", "", { location: "/ui/" });
      assets ??= uiAssets();
      const file = assets.file(path === "/ui/" ? "index.html" : path.slice(4));
      if (!file) return sendError(response, 404, "NOT_FOUND", `no such page file ${path.slice(0, 200)}`);
      return send(response, 200, file.type, file.body, { "cache-control": "no-cache" });
    }

    const caller = await options.authenticate(request);
    if (!caller) {
      return sendError(response, 401, "UNAUTHORIZED", "missing or wrong bearer token: send Authorization: Bearer <token>", {
        "www-authenticate": 'Bearer realm="docdb"',
      });
    }
    const wait = options.throttle?.(caller);
    if (wait !== undefined) {
      request.resume();
      return sendError(response, 429, "CONFLICT", `"${caller.name}" is over its request rate: retry after ${wait} s`, {
        "retry-after": String(wait),
      });
    }
    const apiPath = path.slice("/ui/api".length);
    const matched = matchRoute(request.method ?? "GET", apiPath);
    if (!matched) {
      if (pathKnown(apiPath))
        return sendError(response, 405, "INVALID_REQUEST", `${request.method} is not supported on ${path.slice(0, 200)}`);
      return sendError(response, 404, "NOT_FOUND", `no such endpoint ${request.method} ${path.slice(0, 200)}: see docs/ui.md`);
    }
    const { route, params } = matched;
    if (!allows(caller, route.access)) {
      return sendError(
        response,
        403,
        "FORBIDDEN",
        `this token gives ${caller.access} access; ${route.method} ${route.pattern} needs ${route.access}`,
      );
    }
    if (params.db !== undefined && !seesDatabase(caller, params.db)) {
      return sendError(response, 403, "FORBIDDEN", `this token may not use database ${JSON.stringify(params.db.slice(0, 100))}`);
    }
    const body = await requestBody(request, maxBodyBytes);
    if (!body.ok) return sendError(response, body.status, "INVALID_REQUEST", body.message);

    const aborted = new AbortController();
    response.on("close", () => {
      if (!response.writableFinished) aborted.abort();
    });
    try {
      // The default database always exists (it is made on first use, as the CLI does); others must.
      if (params.db !== undefined && params.db !== DEFAULT_DB_NAME && !(await docdb.exists(params.db))) {
        throw new DocDBError("NOT_FOUND", `no database named ${JSON.stringify(params.db.slice(0, 100))}`);
      }
      const reply = await route.handle(docdb, { params, query: url.searchParams, body: body.value, caller, signal: aborted.signal });
      const succeeded = "stream" in reply ? await stream(response, reply, logger) : (reply.status ?? 200) < 400;
      if (!("stream" in reply)) send(response, reply.status ?? 200, "application/json; charset=utf-8", JSON.stringify(reply.json));
      if (succeeded && route.audit) {
        const { db: database = "", ...named } = params;
        // The write is done: an audit trail that cannot be written is logged, never turned into a failed call.
        await docdb
          .access()
          .record(
            { name: caller.name, origin: request.socket.remoteAddress ?? "http" },
            { action: route.audit, database, detail: JSON.stringify(named).slice(0, 500) },
          )
          .catch((error: unknown) => logger.warn({ err: error }, "audit entry not recorded"));
      }
    } catch (error) {
      const e = toDocDBError(error);
      if (e.code === "INTERNAL") logger.error({ err: error }, "page API request failed");
      sendError(response, STATUS[e.code] ?? 500, e.code, e.code === "INTERNAL" ? "the server failed; see its log" : e.message);
    }
  };
}
