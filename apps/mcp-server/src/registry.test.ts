import { DocDBError } from "@docdb/core";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it } from "vitest";
import { z } from "zod/v4";
import { describeTool, ToolRegistry } from "./registry.js";
import { createServer } from "./server.js";
import { defineTool } from "./tool.js";

/** The kind of tool issue 5 adds per collection. */
function searchTool(collection: string, fail?: Error) {
  return defineTool({
    name: `search_${collection}`,
    description: `Search the ${collection} collection`,
    input: z.strictObject({ text: z.string() }),
    output: z.object({ hits: z.array(z.string()) }),
    annotations: { readOnlyHint: true },
    run: ({ text }) => {
      if (fail) throw fail;
      return { hits: [`${collection}:${text}`] };
    },
    render: ({ hits }) => hits.join("\n"),
  });
}

async function connect(registry: ToolRegistry) {
  const server = createServer(registry);
  const client = new Client({ name: "test", version: "0" });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const changes: number[] = [];
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
    changes.push(Date.now());
  });
  await server.connect(serverSide);
  await client.connect(clientSide);
  return { server, client, changes };
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 20));

describe("ToolRegistry with connected servers", () => {
  it("adds and removes tools at runtime and tells every connected client, once per change", async () => {
    const registry = new ToolRegistry();
    registry.add(searchTool("base"));
    const a = await connect(registry);
    const b = await connect(registry);
    expect((await a.client.listTools()).tools.map((t) => t.name)).toEqual(["search_base"]);

    // Two additions in one tick are one announcement.
    registry.add(searchTool("manuals"));
    registry.add(searchTool("specs"));
    await settle();
    expect(a.changes).toHaveLength(1);
    expect(b.changes).toHaveLength(1);
    expect((await b.client.listTools()).tools.map((t) => t.name)).toEqual(["search_base", "search_manuals", "search_specs"]);
    expect(await a.client.callTool({ name: "search_manuals", arguments: { text: "x" } })).toMatchObject({
      structuredContent: { hits: ["manuals:x"] },
    });

    expect(registry.remove("search_manuals")).toBe(true);
    expect(registry.remove("search_manuals")).toBe(false);
    await settle();
    expect(a.changes).toHaveLength(2);
    await expect(a.client.callTool({ name: "search_manuals", arguments: { text: "x" } })).rejects.toMatchObject({
      code: -32602,
      data: { code: "INVALID_REQUEST" },
    });

    // A closed server stops listening; the others still hear.
    await a.client.close();
    registry.add(searchTool("late"));
    await settle();
    expect(a.changes).toHaveLength(2);
    expect(b.changes).toHaveLength(3);
    await b.client.close();
  });

  it("refuses duplicate and malformed names unless replacing", () => {
    const registry = new ToolRegistry();
    registry.add(searchTool("one"));
    expect(() => registry.add(searchTool("one"))).toThrow(/already registered/);
    registry.add(searchTool("one"), { replace: true });
    expect(() => registry.add(searchTool("has space"))).toThrow(/invalid tool name/);
    expect(registry.names()).toEqual(["search_one"]);
  });

  it("turns failures into isError results with the code, valid against the advertised output schema", async () => {
    const registry = new ToolRegistry();
    registry.add(searchTool("missing", new DocDBError("NOT_FOUND", "collection missing is gone")));
    registry.add(searchTool("broken", new TypeError("x is undefined")));
    const { client } = await connect(registry);
    await client.listTools(); // the SDK client validates results against outputSchema from here on
    expect(await client.callTool({ name: "search_missing", arguments: { text: "q" } })).toEqual({
      content: [{ type: "text", text: "NOT_FOUND: collection missing is gone" }],
      structuredContent: { error: { code: "NOT_FOUND", message: "collection missing is gone" } },
      isError: true,
    });
    expect(await client.callTool({ name: "search_broken", arguments: { text: "q" } })).toMatchObject({
      isError: true,
      structuredContent: { error: { code: "INTERNAL", message: expect.stringContaining("x is undefined") } },
    });
    await client.close();
  });

  it("announces nothing to a client that has not initialized yet", async () => {
    const registry = new ToolRegistry();
    const server = createServer(registry);
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    const seen: unknown[] = [];
    clientSide.onmessage = (message) => seen.push(message);
    await clientSide.start();
    await server.connect(serverSide);
    registry.add(searchTool("early"));
    await settle();
    expect(seen).toEqual([]);
    await server.close();
  });
});

describe("ToolRegistry.addDeferred (tools listed from build-time descriptors)", () => {
  it("lists the descriptor without loading the tool, loads it once on the first call, and checks arguments", async () => {
    const registry = new ToolRegistry();
    let loads = 0;
    const tool = searchTool("notes");
    registry.addDeferred(describeTool(tool), async () => {
      loads++;
      return tool;
    });
    const { client } = await connect(registry);
    expect((await client.listTools()).tools).toEqual([describeTool(tool)]);
    expect(loads).toBe(0);

    const [one, two] = await Promise.all([
      client.callTool({ name: "search_notes", arguments: { text: "a" } }),
      client.callTool({ name: "search_notes", arguments: { text: "b" } }),
    ]);
    expect(one).toMatchObject({ structuredContent: { hits: ["notes:a"] } });
    expect(two).toMatchObject({ structuredContent: { hits: ["notes:b"] } });
    expect(loads).toBe(1);

    await expect(client.callTool({ name: "search_notes", arguments: { text: 3 } })).rejects.toMatchObject({
      data: { code: "INVALID_REQUEST" },
      message: expect.stringContaining('invalid arguments for tool "search_notes": text:'),
    });
  });

  it("a tool that fails to load fails that call as a tool error, and loads again on the next call", async () => {
    const registry = new ToolRegistry();
    const tool = searchTool("flaky");
    let attempts = 0;
    registry.addDeferred(describeTool(tool), async () => {
      attempts++;
      if (attempts === 1) throw new Error("module missing");
      return tool;
    });
    const { client } = await connect(registry);
    const failed = await client.callTool({ name: "search_flaky", arguments: { text: "x" } });
    expect(failed.isError).toBe(true);
    expect(failed.structuredContent).toMatchObject({ error: { code: "INTERNAL", message: expect.stringContaining("module missing") } });
    expect(await client.callTool({ name: "search_flaky", arguments: { text: "x" } })).toMatchObject({
      structuredContent: { hits: ["flaky:x"] },
    });
    expect(attempts).toBe(2);
  });

  it("refuses a loaded tool of another name, and a name already taken", async () => {
    const registry = new ToolRegistry();
    registry.addDeferred(describeTool(searchTool("a")), async () => searchTool("b"));
    expect(() => registry.addDeferred(describeTool(searchTool("a")), async () => searchTool("a"))).toThrow(/already registered/);
    const { client } = await connect(registry);
    const wrong = await client.callTool({ name: "search_a", arguments: { text: "x" } });
    expect(wrong.isError).toBe(true);
    expect(JSON.stringify(wrong.structuredContent)).toContain('tool \\"search_a\\" loaded as \\"search_b\\"');
  });
});
