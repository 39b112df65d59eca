// Tokens and the audit trail on PostgreSQL (PGlite over TCP): two `docdb-mcp --http` processes
// over one server both accept a token made by the CLI, both refuse it once revoked, and both
// write to the one audit trail; the reserved server database is never listed.
import { spawnSync } from "node:child_process";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type PgliteServer, startPgliteServer } from "../../../packages/store-postgres/test/support/pglite-server.js";
import { CLI, type HttpServerProcess, serverEnv, startHttpServer } from "./support/server-process.js";

describe("scoped tokens shared by every server process over one PostgreSQL", () => {
  let pg: PgliteServer;
  const servers: HttpServerProcess[] = [];
  const cli = (...args: string[]) => {
    const run = spawnSync(process.execPath, [CLI, "--store", pg.url, ...args], { env: serverEnv(), encoding: "utf8" });
    if (run.status !== 0) throw new Error(`docdb ${args.join(" ")} failed: ${run.stderr}`);
    return run.stdout.trim();
  };

  beforeAll(async () => {
    pg = await startPgliteServer();
    cli("db", "create", "team");
    for (let i = 0; i < 2; i++) servers.push(await startHttpServer(["--store", pg.url, "--token", `admin-${i}-secret`]));
  }, 180_000);

  afterAll(async () => {
    for (const server of servers) await server.stop();
    await pg?.stop();
  });

  it("a token made once works on both processes, is refused by both once revoked, and both audit", async () => {
    const token = cli("token", "create", "--name", "team-writer", "--db", "team");
    for (const [i, server] of servers.entries()) {
      const client = new Client({ name: "pg-access", version: "0.0.0" });
      await client.connect(
        new StreamableHTTPClientTransport(new URL(server.url), { requestInit: { headers: { authorization: `Bearer ${token}` } } }),
      );
      const listed = await client.callTool({ name: "list_databases", arguments: {} });
      expect((listed.structuredContent as { databases: { name: string }[] }).databases.map((d) => d.name)).toEqual(["team"]);
      const inserted = await client.callTool({ name: "insert_document", arguments: { text: `from process ${i}`, db_name: "team" } });
      expect(inserted.isError, JSON.stringify(inserted.structuredContent)).toBeFalsy();
      await client.close();
    }
    cli("token", "revoke", "team-writer");
    for (const server of servers) {
      const response = await fetch(new URL("/healthz", server.base), { headers: { authorization: `Bearer ${token}` } });
      expect(response.status).toBe(401);
      expect(((await response.json()) as { error: { message: string } }).error.message).toMatch(/was revoked/);
    }
    const audit = JSON.parse(cli("audit", "--json", "--db", "team")) as { actor: string; action: string }[];
    expect(audit.filter((e) => e.actor === "team-writer" && e.action === "insert")).toHaveLength(2);
    expect(JSON.parse(cli("db", "list", "--json")).map((d: { name: string }) => d.name)).toEqual(["team"]);
  });
});
