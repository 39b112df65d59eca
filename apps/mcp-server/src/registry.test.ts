import { DocDBError } from "@docdb/core";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it } from "vitest";
import { z } from "zod/v4";
import { ToolRegistry } from "./registry.js";
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
