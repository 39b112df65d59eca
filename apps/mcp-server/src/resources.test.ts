import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type DocDB, openDocDB, silentLogger } from "@docdb/core";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ToolRegistry } from "./registry.js";
import { DocdbResources, RESOURCE_PAGE_SIZE } from "./resources.js";
import { createServer } from "./server.js";

/** A one-word topic name per number ("tab", "tac", …): no two share a term, so none is reused. */
function word(i: number): string {
  const letters = "bcdfghjklmnpqrstvwxz";
  return `t${letters[Math.floor(i / letters.length) % letters.length]}a${letters[i % letters.length]}`;
}

// Document resources and agent memory's knowledge:// in one resource list: topics first, then
// documents, paged together. Real SQLite files, the real SDK client over an in-memory transport.
describe("DocdbResources: documents and knowledge topics in one paged list", () => {
  let dir: string;
  let docdb: DocDB;
  let client: Client;
  const topicCount = RESOURCE_PAGE_SIZE + 5;
  const docCount = 150;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "docdb-resources-"));
    docdb = openDocDB({ dataDir: dir, embedding: null, logger: silentLogger() });
    const db = await docdb.database("vectors", { create: true });
    for (let i = 0; i < topicCount; i++) {
      await db.memory.storeQa({ question: `question ${word(i)}`, answer: "an answer", topic: word(i) });
    }
    for (let i = 0; i < docCount; i++) await db.insertDocument({ text: `document number ${i}` });
    const server = createServer(new ToolRegistry(silentLogger()), { resources: new DocdbResources(docdb, { defaultDb: "vectors" }) });
    client = new Client({ name: "test", version: "0" });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await server.connect(serverSide);
    await client.connect(clientSide);
  }, 120_000);

  afterAll(async () => {
    await client?.close();
    await docdb?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("pages through every topic, then every document, each once", async () => {
    const pages: string[][] = [];
    let cursor: string | undefined;
    do {
      const page = await client.listResources(cursor !== undefined ? { cursor } : {});
      expect(page.resources.length).toBeLessThanOrEqual(RESOURCE_PAGE_SIZE);
      pages.push(page.resources.map((r) => r.uri));
      cursor = page.nextCursor;
    } while (cursor !== undefined);
    const uris = pages.flat();
    expect(pages[0]).toHaveLength(RESOURCE_PAGE_SIZE);
    expect(uris).toHaveLength(topicCount + docCount);
    expect(new Set(uris).size).toBe(uris.length);
    const knowledge = uris.filter((u) => u.startsWith("knowledge://"));
    expect(knowledge).toHaveLength(topicCount);
    // Topics come first; the memory records themselves are not listed as documents.
    expect(uris.slice(0, topicCount)).toEqual(knowledge);
    expect(uris.slice(topicCount).every((u) => u.startsWith("docdb://vectors/documents/"))).toBe(true);
  });

  it("reads a topic and completes topic names", async () => {
    const read = await client.readResource({ uri: `knowledge://${word(3)}/${encodeURIComponent(`question ${word(3)}`)}` });
    expect((read.contents[0] as { text: string }).text).toContain(`**Q:** question ${word(3)}`);
    const completion = await client.complete({
      ref: { type: "ref/resource", uri: "knowledge://{topic}/{query}" },
      argument: { name: "topic", value: word(3) },
    });
    expect(completion.completion.values).toEqual([word(3)]);
  });

  it("answers malformed params and cursors with INVALID_REQUEST", async () => {
    await expect(client.listResources({ cursor: "not-a-cursor" })).rejects.toMatchObject({ data: { code: "INVALID_REQUEST" } });
    await expect(client.readResource({ uri: "knowledge://%E0%A4%A/x" })).rejects.toMatchObject({ data: { code: "INVALID_REQUEST" } });
    await expect(client.readResource({ uri: "knowledge:///x" })).rejects.toMatchObject({ data: { code: "INVALID_REQUEST" } });
  });
});
