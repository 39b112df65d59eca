// OAuth 2.1 for MCP over HTTP against a fake identity provider on loopback (a real node:http
// server serving its JWKS): a valid access token works with its scopes; expired, wrong audience,
// wrong issuer, alg none, HS256 keyed with the RSA public key, and a tampered signature get 401.

import { spawnSync } from "node:child_process";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { exportJWK, exportSPKI, generateKeyPair, type JWTPayload, SignJWT } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CLI, type HttpServerProcess, serverEnv, startHttpServer, tempDataDir } from "./support/server-process.js";

const AUDIENCE = "http://docdb.test/mcp";

describe("OAuth access tokens (JWT) on the HTTP server", () => {
  const data = tempDataDir();
  let idp: Server;
  let issuer: string;
  let server: HttpServerProcess;
  let keys: Awaited<ReturnType<typeof generateKeyPair>>;
  let jwksRequests = 0;

  const sign = (claims: JWTPayload, options: { iss?: string; aud?: string; exp?: number } = {}) =>
    new SignJWT(claims)
      .setProtectedHeader({ alg: "RS256", kid: "k1" })
      .setIssuer(options.iss ?? issuer)
      .setAudience(options.aud ?? AUDIENCE)
      .setSubject("alice@example.com")
      .setIssuedAt()
      .setExpirationTime(options.exp ?? Math.floor(Date.now() / 1000) + 600)
      .sign(keys.privateKey);

  beforeAll(async () => {
    keys = await generateKeyPair("RS256", { extractable: true });
    const jwk = { ...(await exportJWK(keys.publicKey)), kid: "k1", alg: "RS256", use: "sig" };
    idp = createServer((request, response) => {
      if (request.url === "/.well-known/oauth-authorization-server") {
        response.writeHead(200, { "content-type": "application/json" });
        return response.end(JSON.stringify({ issuer, jwks_uri: `${issuer}/jwks` }));
      }
      if (request.url === "/jwks") {
        jwksRequests++;
        response.writeHead(200, { "content-type": "application/json" });
        return response.end(JSON.stringify({ keys: [jwk] }));
      }
      response.writeHead(404).end();
    });
    await new Promise<void>((resolve) => idp.listen(0, "127.0.0.1", resolve));
    issuer = `http://127.0.0.1:${(idp.address() as AddressInfo).port}`;
    for (const db of ["alpha", "beta"]) {
      spawnSync(process.execPath, [CLI, "--data-dir", data.dir, "db", "create", db], { env: serverEnv() });
    }
    server = await startHttpServer(["--data-dir", data.dir, "--oauth-issuer", issuer, "--oauth-audience", AUDIENCE]);
  }, 60_000);

  afterAll(async () => {
    await server?.stop();
    await new Promise((resolve) => idp?.close(resolve));
    data.remove();
  });

  it("serves protected-resource metadata and points 401s at it", async () => {
    const metadata = await fetch(new URL("/.well-known/oauth-protected-resource/mcp", server.base));
    expect(metadata.status).toBe(200);
    expect(await metadata.json()).toMatchObject({
      resource: AUDIENCE,
      authorization_servers: [issuer],
      scopes_supported: ["docdb:read", "docdb:write", "docdb:admin"],
      bearer_methods_supported: ["header"],
    });
    const none = await fetch(server.url, { method: "POST", body: "{}" });
    expect(none.status).toBe(401);
    expect(none.headers.get("www-authenticate")).toContain(
      'resource_metadata="http://docdb.test/.well-known/oauth-protected-resource/mcp"',
    );
  });

  it("accepts a valid token with its scopes: read-only, database alpha only", async () => {
    const token = await sign({ scope: "docdb:read docdb:db:alpha" });
    const client = new Client({ name: "oauth-test", version: "0.0.0" });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(server.url), { requestInit: { headers: { authorization: `Bearer ${token}` } } }),
    );
    const listed = await client.callTool({ name: "list_databases", arguments: {} });
    expect((listed.structuredContent as { databases: { name: string }[] }).databases.map((d) => d.name)).toEqual(["alpha"]);
    const write = await client.callTool({ name: "insert_document", arguments: { text: "no", db_name: "alpha" } });
    expect((write.structuredContent as { error: { code: string } }).error.code).toBe("FORBIDDEN");
    expect(JSON.stringify(write.structuredContent)).toContain("alice@example.com");
    await client.close();
    expect(jwksRequests).toBeGreaterThan(0);
  });

  it("refuses expired, wrong audience, wrong issuer, alg none, HS256 key confusion and a tampered signature", async () => {
    const now = Math.floor(Date.now() / 1000);
    const good = await sign({ scope: "docdb:admin" });
    const [header, payload, signature] = good.split(".") as [string, string, string];
    const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url");
    const claims = JSON.parse(Buffer.from(payload, "base64url").toString("utf8")) as Record<string, unknown>;
    const pem = await exportSPKI(keys.publicKey);
    const confused = await new SignJWT({ scope: "docdb:admin" })
      .setProtectedHeader({ alg: "HS256", kid: "k1" })
      .setIssuer(issuer)
      .setAudience(AUDIENCE)
      .setExpirationTime(now + 600)
      .sign(new TextEncoder().encode(pem));
    const flipped = `${signature.slice(0, 10)}${signature[10] === "A" ? "B" : "A"}${signature.slice(11)}`;
    const cases: [string, string][] = [
      ["expired", await sign({ scope: "docdb:admin" }, { exp: now - 3600 })],
      ["wrong audience", await sign({ scope: "docdb:admin" }, { aud: "http://elsewhere.test/mcp" })],
      ["wrong issuer", await sign({ scope: "docdb:admin" }, { iss: "http://evil.test" })],
      ["alg none", `${b64({ alg: "none", typ: "JWT" })}.${payload}.`],
      ["HS256 keyed with the public key", confused],
      ["tampered signature", `${header}.${payload}.${flipped}`],
      ["tampered payload", `${header}.${b64({ ...claims, scope: "docdb:admin docdb:write" })}.${signature}`],
    ];
    for (const [what, token] of cases) {
      const response = await fetch(server.url, {
        method: "POST",
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json", accept: "application/json, text/event-stream" },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: {} }),
      });
      expect(response.status, what).toBe(401);
      const challenge = response.headers.get("www-authenticate") ?? "";
      expect(challenge, what).toMatch(/^Bearer /);
      expect(challenge, what).toContain('error="invalid_token"');
      expect(challenge, what).toContain("resource_metadata=");
    }
    // And the good one still gets in (the refusals are about the tokens, not the server).
    const ok = await fetch(new URL("/healthz", server.base), { headers: { authorization: `Bearer ${good}` } });
    expect(ok.status).toBe(200);
  });

  it("answers 403 insufficient_scope for a valid token without docdb scopes", async () => {
    const token = await sign({ scope: "openid profile" });
    const response = await fetch(new URL("/healthz", server.base), { headers: { authorization: `Bearer ${token}` } });
    expect(response.status).toBe(403);
    expect(response.headers.get("www-authenticate")).toContain('error="insufficient_scope"');
  });
});
