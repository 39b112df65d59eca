// Fetching web pages for insert: the address guard (loopback, link-local, private, IPv4-mapped
// forms), redirects bounded, oversized bodies and slow servers refused, against a real local server.

import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type DocDB, fetchUrl, isPrivateAddress, openDocDB, silentLogger } from "../src/index.js";

let server: Server;
let base: string;
const stalled: import("node:http").ServerResponse[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://x");
    if (url.pathname === "/note.txt") {
      res.writeHead(200, { "content-type": "text/plain; charset=utf-8" });
      res.end(`Fetched text, version ${url.searchParams.get("v") ?? "1"}: the quokka lives on Rottnest Island.`);
    } else if (url.pathname === "/loop") {
      res.writeHead(302, { location: `/loop?n=${Number(url.searchParams.get("n") ?? 0) + 1}` });
      res.end();
    } else if (url.pathname === "/hop") {
      res.writeHead(301, { location: "/note.txt" });
      res.end();
    } else if (url.pathname === "/big-declared") {
      res.writeHead(200, { "content-type": "text/plain", "content-length": String(10_000) });
      res.end("x".repeat(10_000));
    } else if (url.pathname === "/big-chunked") {
      res.writeHead(200, { "content-type": "text/plain" });
      for (let i = 0; i < 10; i++) res.write("y".repeat(1000));
      res.end();
    } else if (url.pathname === "/slow") {
      res.writeHead(200, { "content-type": "text/plain" });
      res.write("the first bytes, then nothing");
      stalled.push(res); // never ended: the client's deadline must end it
    } else if (url.pathname === "/missing") {
      res.writeHead(404);
      res.end();
    } else {
      res.writeHead(500);
      res.end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  for (const res of stalled) res.destroy();
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

async function failure(run: () => Promise<unknown>): Promise<{ code?: string; message: string }> {
  try {
    await run();
  } catch (error) {
    return error as { code?: string; message: string };
  }
  throw new Error("expected a failure");
}

describe("isPrivateAddress", () => {
  it("refuses loopback, link-local, private, carrier-grade NAT, unspecified and IPv4-mapped forms; passes public addresses", () => {
    for (const address of [
      "127.0.0.1",
      "127.255.0.9",
      "10.1.2.3",
      "172.16.0.1",
      "172.31.255.255",
      "192.168.1.1",
      "169.254.169.254",
      "100.64.0.1",
      "0.0.0.0",
      "::",
      "::1",
      "fc00::1",
      "fd12:3456::1",
      "fe80::1",
      "::ffff:127.0.0.1",
      "::ffff:7f00:1",
      "::ffff:10.0.0.1",
      "::ffff:a9fe:a9fe",
      "64:ff9b::7f00:1",
      "not an address",
    ]) {
      expect(isPrivateAddress(address), address).toBe(true);
    }
    for (const address of ["8.8.8.8", "1.1.1.1", "172.32.0.1", "100.128.0.1", "2606:4700:4700::1111", "::ffff:8.8.8.8"]) {
      expect(isPrivateAddress(address), address).toBe(false);
    }
  });
});

describe("fetchUrl", () => {
  it("refuses 127.0.0.1, localhost (resolved) and the IPv4-mapped loopback unless private addresses are allowed", async () => {
    const port = new URL(base).port;
    for (const url of [`${base}/note.txt`, `http://localhost:${port}/note.txt`, `http://[::ffff:127.0.0.1]:${port}/note.txt`]) {
      const error = await failure(() => fetchUrl(url));
      expect(error.code, url).toBe("INVALID_REQUEST");
      expect(error.message, url).toMatch(/loopback, link-local or private address/);
    }
    // A redirect to a private address is checked too: the public hop is refused at its target.
    const fetched = await fetchUrl(`${base}/hop`, { allowPrivate: true });
    expect(fetched.finalUrl).toBe(`${base}/note.txt`);
    expect(fetched.bytes.toString()).toMatch(/quokka/);
    expect(fetched.mediaType).toMatch(/text\/plain/);
  });

  it("stops a redirect loop at the limit, refuses oversized bodies, other schemes and error statuses, and times out a slow server", async () => {
    const loop = await failure(() => fetchUrl(`${base}/loop`, { allowPrivate: true, maxRedirects: 3 }));
    expect(loop.message).toMatch(/more than 3 redirects/);
    for (const path of ["/big-declared", "/big-chunked"]) {
      const big = await failure(() => fetchUrl(`${base}${path}`, { allowPrivate: true, maxBytes: 5000 }));
      expect(big.message, path).toMatch(/larger than 5000 bytes/);
    }
    expect((await failure(() => fetchUrl("file:///etc/passwd"))).message).toMatch(/only http and https/);
    expect((await failure(() => fetchUrl(`${base}/missing`, { allowPrivate: true }))).message).toMatch(/answered 404/);
    const slow = await failure(() => fetchUrl(`${base}/slow`, { allowPrivate: true, timeoutMs: 300 }));
    expect(slow.message).toMatch(/took longer than 300 ms/);
  });
});

describe("Database.insertUrl", () => {
  let dataDir: string;
  let docdb: DocDB;
  beforeAll(() => {
    dataDir = mkdtempSync(join(tmpdir(), "docdb-fetch-"));
    docdb = openDocDB({ dataDir, embedding: null, logger: silentLogger() });
  });
  afterAll(async () => {
    await docdb.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("stores the page with the URL as source and key, and inserting it again updates that document", async () => {
    const db = await docdb.database("vectors", { create: true });
    const refused = await failure(() => db.insertUrl(`${base}/note.txt`));
    expect(refused.message).toMatch(/private address/);
    const url = `${base}/note.txt`;
    const first = await db.insertUrl(url, { allow_private: true });
    const doc = await db.getDocument(first.doc_id);
    expect(doc).toMatchObject({ source: url, key: url, metadata: { url } });
    expect(doc.text).toMatch(/version 1/);
    const again = await db.insertUrl(url, { allow_private: true, metadata: { v: 2 } });
    expect(again).toMatchObject({ doc_id: first.doc_id, replaced: true });
    expect((await db.listDocuments()).length).toBe(1);
  });
});
