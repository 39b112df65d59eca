// `docdb ui`: an HTTP server holding only the page and its API (no MCP endpoint), on loopback
// unless told otherwise, where any other address needs a token.
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { type DocDB, DocDBError } from "@docdb/core";
import { RateLimiter } from "../auth/limits.js";
import { Authenticator } from "../auth/resolve.js";
import { checkOriginAndHost, defaultOrigins, isLoopbackHost, sameToken } from "../http-guard.js";
import type { UiAssets } from "./assets.js";
import { createUiHandler, isUiPath, UI_SECURITY_HEADERS } from "./handler.js";

export const DEFAULT_UI_PORT = 7412;

export interface ServeUiOptions {
  docdb: DocDB;
  /** Default 127.0.0.1; any other needs a token. */
  host?: string;
  /** Default 7412; 0 picks a free port. */
  port?: number;
  token?: string;
  allowedOrigins?: readonly string[];
  assets?: UiAssets;
}

export interface UiServerHandle {
  /** The page, e.g. http://127.0.0.1:7412/ui/ */
  readonly url: string;
  readonly port: number;
  close(): Promise<void>;
}

export async function serveUi(options: ServeUiOptions): Promise<UiServerHandle> {
  const host = options.host ?? "127.0.0.1";
  const loopbackOnly = isLoopbackHost(host);
  if (!loopbackOnly && !options.token) {
    throw new DocDBError("INVALID_REQUEST", `refusing to serve the page on ${host} without a token: pass --token, or listen on 127.0.0.1`);
  }
  let allowedOrigins: string[] = [];
  const limiter = new RateLimiter();
  const authenticator = new Authenticator({ serverToken: options.token, tokens: options.docdb.access(), sameToken });
  const handler = createUiHandler({
    docdb: options.docdb,
    logger: options.docdb.logger,
    // The server's token is admin; scoped tokens (`docdb token create`) open the page with their scope.
    authenticate: async (request) => {
      const auth = await authenticator.resolve(request);
      return auth.ok ? auth.caller : undefined;
    },
    guard: (request) => checkOriginAndHost(request, { allowedOrigins, loopbackOnly }),
    throttle: (caller) => limiter.take(caller),
    assets: options.assets,
  });
  const server = createServer((request: IncomingMessage, response: ServerResponse) => {
    const path = new URL(request.url ?? "/", "http://localhost").pathname;
    if (path === "/") {
      response.writeHead(308, { ...UI_SECURITY_HEADERS, location: "/ui/" });
      return response.end();
    }
    if (!isUiPath(path)) {
      response.writeHead(404, { ...UI_SECURITY_HEADERS, "content-type": "text/plain; charset=utf-8" });
      return response.end("not found: the page is at /ui/\n");
    }
    handler(request, response).catch((error: unknown) => {
      options.docdb.logger.error({ err: error }, "page request failed");
      if (!response.headersSent) response.writeHead(500, UI_SECURITY_HEADERS);
      response.end();
    });
  });
  server.on("clientError", (_error, socket) => socket.destroy());
  await new Promise<void>((resolve, reject) => {
    server.once("error", (error: NodeJS.ErrnoException) =>
      reject(
        new DocDBError(
          error.code === "EADDRINUSE" ? "CONFLICT" : "INTERNAL",
          error.code === "EADDRINUSE"
            ? `port ${options.port ?? DEFAULT_UI_PORT} on ${host} is in use: stop the other server or pass --port`
            : `cannot listen on ${host}:${options.port ?? DEFAULT_UI_PORT}: ${error.message}`,
          { cause: error },
        ),
      ),
    );
    server.listen(options.port ?? DEFAULT_UI_PORT, host, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  allowedOrigins = [...defaultOrigins(port), ...(options.allowedOrigins ?? [])];
  const shownHost = host.includes(":") ? `[${host}]` : host;
  return {
    url: `http://${shownHost}:${port}/ui/`,
    port,
    async close() {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}
