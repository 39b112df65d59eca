import { appendFileSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { type CallToolResult, ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { afterEach, describe, expect, it } from "vitest";
import { copyFixture } from "../../../test/support/collection-fixtures.js";
import { runCli } from "../../cli/test/run-cli.js";
import { assertBuilt, CLI, serverEnv, tempDataDir } from "./support/server-process.js";

interface Passage {
  path: string;
  line_start?: number;
  line_end?: number;
  heading?: string;
  language?: string;
  symbol?: string;
  symbol_kind?: string;
  text: string;
  stale?: boolean;
}

const DESCRIPTION = "社内APIの認証・トークン・エラー処理のドキュメント。トークンの有効期限やレート制限を調べるときに使う";

/** A data folder with collection api_docs (Japanese Markdown) imported by the CLI. */
async function prepare(): Promise<{ dataDir: string; folder: string; remove(): void; cli(...args: string[]): Promise<string> }> {
  const data = tempDataDir();
  const folder = copyFixture("ja-docs");
  const cli = async (...args: string[]) => {
    const result = await runCli(["--data-dir", data.dir, ...args]);
    expect(result.code, result.stderr).toBe(0);
    return result.stdout;
  };
  await cli("collection", "add", "-n", "api_docs", "-d", DESCRIPTION, "-s", folder);
  await cli("import", "-n", "api_docs", "--json");
  return { dataDir: data.dir, folder, remove: data.remove, cli };
}

async function connect(dataDir: string, extra: string[] = []) {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [assertBuilt(CLI), "serve", "--data-dir", dataDir, ...extra],
    env: serverEnv(),
    stderr: "pipe",
  });
  const client = new Client({ name: "docdb-collections-test", version: "0.0.0" });
  let changes = 0;
  const waiters: (() => void)[] = [];
  client.setNotificationHandler(ToolListChangedNotificationSchema, async () => {
    changes++;
    for (const wake of waiters.splice(0)) wake();
  });
  await client.connect(transport);
  return {
    client,
    /** Resolves on the next tools/list_changed notification. */
    nextChange: (timeoutMs = 15_000) =>
      new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error("no notifications/tools/list_changed arrived")), timeoutMs);
        waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      }),
    changes: () => changes,
  };
}

async function search(client: Client, tool: string, args: Record<string, unknown>): Promise<Passage[]> {
  const result = (await client.callTool({ name: tool, arguments: args })) as CallToolResult;
  expect(result.isError ?? false, JSON.stringify(result.content)).toBe(false);
  return (result.structuredContent as { results: Passage[] }).results;
}

async function toolNames(client: Client): Promise<string[]> {
  return (await client.listTools()).tools.map((t) => t.name);
}

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

describe("collection tools over MCP (docdb serve, stdio)", () => {
  it("offers search_<name> per enabled collection and follows collection changes without a restart", async () => {
    const setup = await prepare();
    cleanups.push(setup.remove);
    const { client, nextChange } = await connect(setup.dataDir);
    cleanups.push(() => client.close());

    const { tools } = await client.listTools();
    const tool = tools.find((t) => t.name === "search_api_docs");
    expect(tool?.description).toBe(DESCRIPTION);
    expect(Object.keys(tool?.inputSchema.properties ?? {}).sort()).toEqual([
      "include_text",
      "language",
      "max_chars",
      "path",
      "query",
      "symbol_kind",
      "top_k",
    ]);
    expect(tool?.inputSchema.required).toEqual(["query"]);
    expect(tools.map((t) => t.name)).toContain("list_collections");

    const passages = await search(client, "search_api_docs", { query: "アクセストークンの有効期限", top_k: 3 });
    expect(passages[0]).toMatchObject({ path: "guide/auth.md", line_start: 5 });
    expect(passages[0]?.line_end).toBeGreaterThanOrEqual(8);
    expect(passages[0]?.text).toContain("有効期限は24時間");

    const scoped = await search(client, "search_api_docs", { query: "再試行", path: "guide/errors" });
    expect(scoped.length).toBeGreaterThan(0);
    expect(new Set(scoped.map((p) => p.path))).toEqual(new Set(["guide/errors.md"]));

    const listed = (await client.callTool({ name: "list_collections", arguments: {} })) as CallToolResult;
    expect((listed.structuredContent as { collections: unknown[] }).collections).toEqual([
      expect.objectContaining({ name: "api_docs", enabled: true, tool: "search_api_docs", documents: 4 }),
    ]);

    // Another process disables the collection: the tool goes, and the client is told.
    let changed = nextChange();
    await setup.cli("collection", "disable", "-n", "api_docs");
    await changed;
    expect(await toolNames(client)).not.toContain("search_api_docs");

    changed = nextChange();
    await setup.cli("collection", "add", "-n", "billing", "-d", "Billing service source code", "-s", copyFixture("ts-py-project"));
    await changed;
    const names = await toolNames(client);
    expect(names).toContain("search_billing");
    expect(names).not.toContain("search_api_docs");

    // Code passages say what they hold, and the tool filters on language and kind.
    await setup.cli("import", "-n", "billing", "--chunk-size", "200", "--chunk-overlap", "20");
    const [rotate] = await search(client, "search_billing", { query: "TokenStore.rotate", top_k: 1 });
    expect(rotate).toMatchObject({ path: "src/tokens.ts", language: "typescript", symbol: "TokenStore.rotate", symbol_kind: "method" });
    const functions = await search(client, "search_billing", {
      query: "invoice config token",
      language: "python",
      symbol_kind: ["function"],
    });
    expect(functions.map((p) => [p.path, p.symbol])).toEqual(expect.arrayContaining([["app/billing.py", "settle"]]));
    expect(functions.every((p) => p.language === "python" && p.symbol_kind === "function")).toBe(true);
    const rendered = (await client.callTool({ name: "search_billing", arguments: { query: "loadConfig", top_k: 1 } })) as CallToolResult;
    expect((rendered.content as { text: string }[])[0]?.text).toMatch(/src\/config\.ts:\d+-\d+ {2}loadConfig \(function\)/);

    const unknown = client.callTool({ name: "search_api_docs", arguments: { query: "x" } });
    await expect(unknown).rejects.toMatchObject({ data: { code: "INVALID_REQUEST" } });
  });

  it("serve --watch re-imports an edited file, and the tool finds the new text", async () => {
    const setup = await prepare();
    cleanups.push(setup.remove);
    const { client } = await connect(setup.dataDir, ["--watch", "--debounce", "200"]);
    cleanups.push(() => client.close());
    expect(await search(client, "search_api_docs", { query: "Webhook署名" })).toEqual([]);

    appendFileSync(join(setup.folder, "guide/auth.md"), "\n## Webhook\n\nWebhook署名はHMAC-SHA256で検証してください。\n");
    const deadline = Date.now() + 20_000;
    let found: Passage[] = [];
    while (Date.now() < deadline) {
      found = await search(client, "search_api_docs", { query: "Webhook署名" });
      if (found.length > 0 && !found[0]?.stale) break;
      await new Promise((r) => setTimeout(r, 200));
    }
    expect(found[0]).toMatchObject({ path: "guide/auth.md" });
    expect(found[0]?.text).toContain("HMAC-SHA256");
    expect(found[0]?.stale).toBeUndefined();
  });
});
