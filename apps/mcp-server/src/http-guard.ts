import { createHash, timingSafeEqual } from "node:crypto";
import type { IncomingMessage } from "node:http";
import { isIP } from "node:net";

/** True for names that only this machine can reach. */
export function isLoopbackHost(host: string): boolean {
  const bare = host.replace(/^\[|\]$/g, "").toLowerCase();
  if (bare === "localhost" || bare === "::1") return true;
  return isIP(bare) === 4 && bare.startsWith("127.");
}

function digest(value: string): Buffer {
  return createHash("sha256").update(value).digest();
}

/** Constant-time comparison of a presented token with the expected one. */
export function sameToken(presented: string, expected: string): boolean {
  // Hashing first makes both sides the same length, as timingSafeEqual requires.
  return timingSafeEqual(digest(presented), digest(expected));
}

/** Constant-time check of `Authorization: Bearer <token>`. */
export function hasToken(request: IncomingMessage, token: string): boolean {
  const header = request.headers.authorization ?? "";
  const match = /^Bearer\s+(.+)$/i.exec(header);
  return match !== null && sameToken(match[1]?.trim() ?? "", token);
}

/** The origins a browser page may call us from: the server's own loopback names, plus any configured. */
export function defaultOrigins(port: number): string[] {
  return [`http://localhost:${port}`, `http://127.0.0.1:${port}`, `http://[::1]:${port}`];
}

/**
 * DNS rebinding defence. A page on evil.example that rebinds its name to 127.0.0.1 sends
 * `Origin: http://evil.example` and `Host: evil.example:port`, so: a present Origin must be
 * in the allow-list, and when we listen on loopback the Host must name loopback too.
 * Clients that are not browsers send no Origin and pass.
 */
export function checkOriginAndHost(
  request: IncomingMessage,
  options: { allowedOrigins: readonly string[]; loopbackOnly: boolean },
): string | undefined {
  const origin = request.headers.origin;
  if (origin !== undefined && !options.allowedOrigins.includes(origin)) {
    return `origin ${JSON.stringify(origin.slice(0, 200))} is not allowed: add it with --allow-origin (or DOCDB_HTTP_ALLOWED_ORIGINS)`;
  }
  if (options.loopbackOnly) {
    const host = request.headers.host ?? "";
    const name = host.startsWith("[") ? host.slice(0, host.indexOf("]") + 1) : host.split(":")[0];
    if (!name || !isLoopbackHost(name)) {
      return `host ${JSON.stringify(host.slice(0, 200))} is not this machine: the server listens on loopback only`;
    }
  }
  return undefined;
}
