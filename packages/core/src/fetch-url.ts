// Fetching a web page or PDF by URL for `insert`: a deadline, a size cap, bounded redirects (each
// one checked again), and a guard against server-side request forgery that resolves the host,
// refuses loopback, link-local and private addresses unless allowed, and connects to the very
// address it checked (no second DNS answer in between).
import type { IncomingMessage } from "node:http";
import { isIP, type LookupFunction } from "node:net";
import { DocDBError, echo } from "./errors.js";

export interface FetchOptions {
  /** The whole fetch, redirects and body included; default 30 s. */
  timeoutMs?: number;
  /** Largest body; default 50 MiB. */
  maxBytes?: number;
  /** Redirects followed; default 5. */
  maxRedirects?: number;
  /** Allow loopback, link-local and private addresses (a person's own machine); default false. */
  allowPrivate?: boolean;
}

export interface Fetched {
  /** The address asked for. */
  url: string;
  /** Where the body came from, after redirects. */
  finalUrl: string;
  bytes: Buffer;
  /** The Content-Type header, when there was one. */
  mediaType: string | undefined;
}

export const FETCH_DEFAULTS = { timeoutMs: 30_000, maxBytes: 50 * 1024 * 1024, maxRedirects: 5 } as const;

const V4_BLOCKED: [string, number][] = [
  ["0.0.0.0", 8], // "this network", 0.0.0.0
  ["10.0.0.0", 8],
  ["100.64.0.0", 10], // carrier-grade NAT
  ["127.0.0.0", 8],
  ["169.254.0.0", 16], // link-local (cloud metadata services)
  ["172.16.0.0", 12],
  ["192.0.0.0", 24],
  ["192.168.0.0", 16],
  ["198.18.0.0", 15],
  ["224.0.0.0", 4], // multicast
  ["240.0.0.0", 4], // reserved, broadcast
];
const V6_BLOCKED: [string, number][] = [
  ["::", 128],
  ["::1", 128],
  ["::", 96], // IPv4-compatible (deprecated)
  ["64:ff9b::", 96], // NAT64: an IPv4 address inside
  ["fc00::", 7], // unique local
  ["fe80::", 10], // link-local
  ["fec0::", 10], // site-local (deprecated)
  ["ff00::", 8], // multicast
];

function v4Number(address: string): number {
  return address.split(".").reduce((n, part) => n * 256 + Number(part), 0);
}

/** An IPv6 address as a 128-bit number (an embedded dotted IPv4 tail included). */
function v6Number(address: string): bigint {
  let text = address.split("%")[0] as string;
  const dotted = text.match(/(\d+\.\d+\.\d+\.\d+)$/);
  if (dotted) {
    const n = v4Number(dotted[1] as string);
    text = `${text.slice(0, -dotted[1]!.length)}${(n >>> 16).toString(16)}:${(n & 0xffff).toString(16)}`;
  }
  const [head, tail] = text.includes("::") ? text.split("::") : [text, undefined];
  const left = head ? head.split(":") : [];
  const right = tail ? tail.split(":") : [];
  const groups = tail === undefined ? left : [...left, ...Array(8 - left.length - right.length).fill("0"), ...right];
  return groups.reduce((n, g) => (n << 16n) | BigInt(Number.parseInt(g || "0", 16)), 0n);
}

/** True when `address` (IPv4 or IPv6, IPv4-mapped forms included) is loopback, link-local, private or otherwise not public. */
export function isPrivateAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) {
    const n = v4Number(address);
    return V4_BLOCKED.some(([base, bits]) => bits === 0 || n >>> (32 - bits) === v4Number(base) >>> (32 - bits));
  }
  if (family !== 6) return true;
  const n = v6Number(address);
  // ::ffff:a.b.c.d and its hex forms are IPv4 addresses.
  if (n >> 32n === 0xffffn) {
    const v4 = Number(n & 0xffffffffn);
    return isPrivateAddress([v4 >>> 24, (v4 >>> 16) & 255, (v4 >>> 8) & 255, v4 & 255].join("."));
  }
  return V6_BLOCKED.some(([base, bits]) => n >> BigInt(128 - bits) === v6Number(base) >> BigInt(128 - bits));
}

function refused(url: URL, address: string): DocDBError {
  return new DocDBError(
    "INVALID_REQUEST",
    `refusing to fetch ${echo(url.href)}: ${url.hostname} is ${address === url.hostname.replace(/^\[|\]$/g, "") ? "" : `at ${address}, `}a loopback, link-local or private address`,
  );
}

/** A `lookup` for http(s).request that resolves every address, refuses the host when any is private, and hands back the checked ones. */
function guardedLookup(
  dnsLookup: typeof import("node:dns").lookup,
  url: URL,
  allowPrivate: boolean,
  onRefused: (error: DocDBError) => void,
): LookupFunction {
  return (hostname, options, callback) => {
    dnsLookup(hostname, { all: true, family: options.family ?? 0 }, (error, addresses) => {
      if (error) return callback(error, "", 4);
      const list = addresses as { address: string; family: number }[];
      const bad = allowPrivate ? undefined : list.find((a) => isPrivateAddress(a.address));
      if (bad || list.length === 0) {
        const problem = bad ? refused(url, bad.address) : new DocDBError("INVALID_REQUEST", `${hostname} has no address`);
        onRefused(problem);
        return callback(problem, "", 4);
      }
      if (options.all) return (callback as (e: null, a: { address: string; family: number }[]) => void)(null, list);
      const first = list[0] as { address: string; family: number };
      callback(null, first.address, first.family);
    });
  };
}

/**
 * Fetches `address` (http or https): follows at most `maxRedirects` redirects, each to an http(s)
 * address checked again; refuses loopback, link-local and private addresses unless `allowPrivate`;
 * fails past `timeoutMs` or when the body exceeds `maxBytes`, and on an HTTP error status.
 */
export async function fetchUrl(address: string, options: FetchOptions = {}): Promise<Fetched> {
  const timeoutMs = options.timeoutMs ?? FETCH_DEFAULTS.timeoutMs;
  const maxBytes = options.maxBytes ?? FETCH_DEFAULTS.maxBytes;
  const maxRedirects = options.maxRedirects ?? FETCH_DEFAULTS.maxRedirects;
  const allowPrivate = options.allowPrivate ?? false;
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), timeoutMs);
  try {
    let url = parseHttpUrl(address);
    for (let redirects = 0; ; redirects++) {
      const response = await request(url, { allowPrivate, maxBytes, signal: controller.signal, timeoutMs });
      if ("location" in response) {
        if (redirects >= maxRedirects) {
          throw new DocDBError("INVALID_REQUEST", `fetching ${echo(address)}: more than ${maxRedirects} redirects (the limit)`);
        }
        url = parseHttpUrl(new URL(response.location, url).href);
        continue;
      }
      return { url: address, finalUrl: url.href, bytes: response.bytes, mediaType: response.mediaType };
    }
  } finally {
    clearTimeout(timer);
  }
}

function parseHttpUrl(address: string): URL {
  let url: URL;
  try {
    url = new URL(address);
  } catch {
    throw new DocDBError("INVALID_REQUEST", `${echo(address)} is not a URL`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new DocDBError("INVALID_REQUEST", `only http and https addresses are fetched, not ${echo(url.protocol)}`);
  }
  if (url.username || url.password) throw new DocDBError("INVALID_REQUEST", "URLs with a user name or password are not fetched");
  return url;
}

type Response = { location: string } | { bytes: Buffer; mediaType: string | undefined };

async function request(
  url: URL,
  options: { allowPrivate: boolean; maxBytes: number; signal: AbortSignal; timeoutMs: number },
): Promise<Response> {
  const host = url.hostname.replace(/^\[|\]$/g, "");
  // An address written as an IP is never looked up: it is checked here.
  if (isIP(host) && !options.allowPrivate && isPrivateAddress(host)) throw refused(url, host);
  const { request: send } = url.protocol === "https:" ? await import("node:https") : await import("node:http");
  const { lookup: dnsLookup } = await import("node:dns");
  return new Promise<Response>((resolve, reject) => {
    let guardError: DocDBError | undefined;
    const fail = (error: unknown) => {
      if (guardError) return reject(guardError);
      if (options.signal.aborted) {
        return reject(new DocDBError("INVALID_REQUEST", `fetching ${echo(url.href)} took longer than ${options.timeoutMs} ms (the limit)`));
      }
      if (DocDBError.isInstance(error)) return reject(error);
      reject(new DocDBError("INVALID_REQUEST", `cannot fetch ${echo(url.href)}: ${(error as Error).message}`, { cause: error }));
    };
    const req = send(
      url,
      {
        method: "GET",
        signal: options.signal,
        lookup: guardedLookup(dnsLookup, url, options.allowPrivate, (e) => {
          guardError = e;
        }),
        headers: { "user-agent": "docdb", accept: "text/html,application/xhtml+xml,application/pdf;q=0.9,*/*;q=0.5" },
      },
      (res: IncomingMessage) => {
        const status = res.statusCode ?? 0;
        if ([301, 302, 303, 307, 308].includes(status) && res.headers.location) {
          res.resume();
          return resolve({ location: res.headers.location });
        }
        if (status < 200 || status >= 300) {
          res.resume();
          return reject(
            new DocDBError(
              "INVALID_REQUEST",
              `fetching ${echo(url.href)}: the server answered ${status} ${res.statusMessage ?? ""}`.trim(),
            ),
          );
        }
        const declared = Number(res.headers["content-length"]);
        const tooLarge = () =>
          new DocDBError("INVALID_REQUEST", `fetching ${echo(url.href)}: the body is larger than ${options.maxBytes} bytes (the limit)`);
        if (Number.isFinite(declared) && declared > options.maxBytes) {
          reject(tooLarge());
          res.destroy();
          return;
        }
        const parts: Buffer[] = [];
        let size = 0;
        res.on("data", (chunk: Buffer) => {
          size += chunk.length;
          if (size > options.maxBytes) {
            // Rejected before the sockets close, so the refusal (not "closed") is what the caller sees.
            reject(tooLarge());
            res.destroy();
            req.destroy();
            return;
          }
          parts.push(chunk);
        });
        res.on("end", () => resolve({ bytes: Buffer.concat(parts), mediaType: res.headers["content-type"] }));
        res.on("error", fail);
        res.on("aborted", () => fail(new Error("the connection was closed")));
      },
    );
    req.on("error", fail);
    req.end();
  });
}
