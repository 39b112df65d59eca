import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "../../cli/test/run-cli.js";
import { ok } from "./support/agent-flow.js";
import { assertBuilt, BIN, CLI, serverEnv, tempDataDir } from "./support/server-process.js";

interface Passage {
  chunk_id: string;
  chunk_ids: string[];
  doc_id: string;
  text?: string;
  truncated?: boolean;
  score: number;
  start: number;
  end: number;
  line_start?: number;
  line_end?: number;
}
interface Found {
  results: Passage[];
  budget: { max_chars: number; chars: number; cut: number; omitted: number };
  note?: string;
}

/** Filler paragraphs with one topic in the middle: the topic's chunks are neighbours. */
function longDocument(): string {
  const filler = (i: number) =>
    `Paragraph ${i} describes the harbour, the tides and the ferries that cross the bay every morning and evening.`;
  const topic = (i: number) =>
    `Zephyrite section ${i}: zephyrite crystals grow in cold caves; zephyrite is mined by hand and polished for lenses.`;
  const paragraphs: string[] = [];
  for (let i = 0; i < 60; i++) paragraphs.push(i >= 25 && i < 35 ? topic(i) : filler(i));
  return paragraphs.join("\n\n");
}

// An agent's economical reading: one merged passage within a budget, then just the range it needs;
// documents as MCP resources; completion of database and collection names. Real server, real SDK client.
describe("economical answers over MCP", () => {
  const data = tempDataDir();
  const text = longDocument();
  let client: Client;
  let docId: string;

  beforeAll(async () => {
    assertBuilt(CLI);
    // A collection made by the real CLI, for completion.
    const folder = join(data.parent, "notes");
    mkdirSync(folder, { recursive: true });
    writeFileSync(join(folder, "a.md"), "# Notes\n\nharbour ferries\n");
    const env = { DOCDB_EMBEDDING: "none" };
    const added = await runCli(["--data-dir", data.dir, "collection", "add", "-n", "harbour_notes", "-d", "Notes", "-s", folder], { env });
    expect(added.code, added.stderr).toBe(0);

    client = new Client({ name: "docdb-test", version: "0" });
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [assertBuilt(BIN), "--data-dir", data.dir],
        env: serverEnv(),
        stderr: "pipe",
      }),
    );
    docId = (await ok<{ doc_id: string; chunk_count: number }>(client, "insert_document", { text, title: "Harbour" })).doc_id;
    await ok(client, "create_database", { db_name: "minerals" });
    await ok(client, "insert_document", { text: "A short note about zephyrite prices.", db_name: "minerals" });
  });
  afterAll(async () => {
    await client?.close();
    data.remove();
  });

  it("merges neighbouring hits of one document into one passage, re-sliced without repeats", async () => {
    const found = await ok<Found>(client, "find_similar_documents", { text: "zephyrite", mode: "keyword", top_k: 10 });
    const ofDoc = found.results.filter((r) => r.doc_id === docId);
    expect(ofDoc).toHaveLength(1);
    const passage = ofDoc[0] as Passage;
    expect(passage.chunk_ids.length).toBeGreaterThan(1);
    expect(passage.chunk_ids).toContain(passage.chunk_id);
    expect(passage.text).toBe(text.slice(passage.start, passage.end));
    expect(passage.text?.match(/Zephyrite section 25:/g)).toHaveLength(1);
    expect(passage.score).toBe(1);
    expect(found.budget.chars).toBeLessThanOrEqual(6000);
    expect(found.budget.max_chars).toBe(6000);
    // The chunks it lists are the document's, in document order.
    const doc = await ok<{ chunks: { chunk_id: string; start: number }[] }>(client, "get_document", { doc_id: docId });
    const order = doc.chunks.map((c) => c.chunk_id);
    expect(passage.chunk_ids).toEqual(order.filter((id) => passage.chunk_ids.includes(id)));
    expect(passage.start).toBe(doc.chunks.find((c) => c.chunk_id === passage.chunk_ids[0])?.start);
  });

  it("keeps the answer within max_chars and says what it cut; references only without text", async () => {
    const small = await ok<Found>(client, "find_similar_documents", { text: "zephyrite", mode: "keyword", max_chars: 300 });
    const total = small.results.reduce((n, r) => n + (r.text?.length ?? 0), 0);
    expect(total).toBeLessThanOrEqual(300);
    expect(small.budget.chars).toBe(total);
    expect(small.budget.cut + small.budget.omitted).toBeGreaterThan(0);
    expect(small.results.some((r) => r.truncated)).toBe(true);
    expect(small.note).toMatch(/300 characters/);

    const refs = await ok<Found>(client, "find_similar_documents", { text: "zephyrite", mode: "keyword", include_text: false });
    expect(refs.results.length).toBeGreaterThan(0);
    for (const r of refs.results) {
      expect(r.text).toBeUndefined();
      expect(r.end).toBeGreaterThan(r.start);
    }
    expect(refs.budget.chars).toBe(0);
  });

  it("get_document returns just a character range or a line range", async () => {
    const [ref] = (await ok<Found>(client, "find_similar_documents", { text: "zephyrite", mode: "keyword", include_text: false, top_k: 1 }))
      .results as Passage[];
    const part = await ok<{ text: string; length: number; range: { start: number; end: number; line_start: number; line_end: number } }>(
      client,
      "get_document",
      { doc_id: ref?.doc_id, start: ref?.start, end: ref?.end },
    );
    const doc = text.length >= (ref?.end ?? 0) && ref?.doc_id === docId ? text : "A short note about zephyrite prices.";
    expect(part.text).toBe(doc.slice(ref?.start, ref?.end));
    expect(part.range).toMatchObject({ start: ref?.start, end: ref?.end });

    const lines = await ok<{ text: string; range: { line_start: number; line_end: number } }>(client, "get_document", {
      doc_id: docId,
      line_start: 3,
      line_end: 5,
    });
    expect(lines.text).toBe(`${text.split("\n").slice(2, 5).join("\n")}\n`);
    expect(lines.range).toMatchObject({ line_start: 3, line_end: 5 });

    const bad = await client.callTool({ name: "get_document", arguments: { doc_id: docId, start: 5, line_start: 2 } });
    expect(bad.isError).toBe(true);
    expect(JSON.stringify(bad.structuredContent)).toMatch(/not both/);
  });

  it("lists documents as resources (paged) and reads one", async () => {
    // More than one page: 100 per page.
    await ok(client, "create_database", { db_name: "many" });
    for (let i = 0; i < 101; i++) await ok(client, "insert_document", { text: `filler document ${i}`, db_name: "many" });
    const first = await client.listResources();
    expect(first.resources).toHaveLength(100);
    expect(first.nextCursor).toBeTypeOf("string");
    const uris = first.resources.map((r) => r.uri);
    let cursor = first.nextCursor;
    while (cursor) {
      const page = await client.listResources({ cursor });
      uris.push(...page.resources.map((r) => r.uri));
      cursor = page.nextCursor;
    }
    expect(uris).toHaveLength(103);
    expect(new Set(uris).size).toBe(103);
    const uri = `docdb://vectors/documents/${docId}`;
    expect(uris).toContain(uri);

    const read = await client.readResource({ uri });
    expect(read.contents).toEqual([{ uri, mimeType: "text/plain", text }]);
    const templates = await client.listResourceTemplates();
    expect(templates.resourceTemplates.map((t) => t.uriTemplate)).toContain("docdb://{db}/documents/{id}");
    await expect(client.readResource({ uri: "docdb://vectors/documents/NOPE" })).rejects.toMatchObject({ data: { code: "NOT_FOUND" } });
  });

  it("completes database names, document ids and collection names", async () => {
    const dbs = await client.complete({
      ref: { type: "ref/resource", uri: "docdb://{db}/documents/{id}" },
      argument: { name: "db", value: "m" },
    });
    expect(dbs.completion.values).toEqual(["many", "minerals"]);
    const ids = await client.complete({
      ref: { type: "ref/resource", uri: "docdb://{db}/documents/{id}" },
      argument: { name: "id", value: docId.slice(0, 20) },
      context: { arguments: { db: "vectors" } },
    });
    expect(ids.completion.values).toEqual([docId]);
    const collections = await client.complete({
      ref: { type: "ref/prompt", name: "search_docdb" },
      argument: { name: "collection", value: "har" },
      context: { arguments: { db_name: "vectors" } },
    });
    expect(collections.completion.values).toEqual(["harbour_notes"]);
    const dbName = await client.complete({
      ref: { type: "ref/prompt", name: "search_docdb" },
      argument: { name: "db_name", value: "VEC" },
    });
    expect(dbName.completion.values).toEqual(["vectors"]);
  });
});
