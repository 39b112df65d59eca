// The page under `docdb-mcp --http` (/ui): its files load without the token, its API and the
// MCP endpoint both need it, and the page's security headers are sent.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type HttpServerProcess, startHttpServer, tempDataDir } from "./support/server-process.js";

describe("the page under the HTTP server", () => {
  const data = tempDataDir();
  let server: HttpServerProcess;

  beforeAll(async () => {
    server = await startHttpServer(["--data-dir", data.dir, "--token", "mount-token"]);
  }, 60_000);
  afterAll(async () => {
    await server?.stop();
    data.remove();
  });

  it("serves /ui/ with its CSP, and the page's API behind the server's token", async () => {
    expect(server.stderr.join("\n")).toContain(`the page: ${server.base}/ui/`);
    const page = await fetch(`${server.base}/ui/`);
    expect(page.status).toBe(200);
    expect(page.headers.get("content-security-policy")).toContain("frame-ancestors 'none'");
    expect(await page.text()).toContain('<script src="/ui/app.js"');
    expect((await fetch(`${server.base}/ui/api/me`)).status).toBe(401);
    const me = await fetch(`${server.base}/ui/api/me`, { headers: { authorization: "Bearer mount-token" } });
    expect(me.status).toBe(200);
    expect(await me.json()).toMatchObject({ access: "admin" });
    const foreign = await fetch(`${server.base}/ui/api/me`, {
      headers: { authorization: "Bearer mount-token", origin: "http://evil.example" },
    });
    expect(foreign.status).toBe(403);
    // The MCP endpoint keeps its own token check.
    expect((await fetch(`${server.base}/healthz`)).status).toBe(401);
  });
});
