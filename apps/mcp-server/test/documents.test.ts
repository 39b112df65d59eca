// Documents through the built MCP server and a real MCP client: insert_file with a base64 PDF
// (pages on find results, get_document by page), its size cap, and insert_url refusing to fetch
// when the server does not allow it, and refusing 127.0.0.1 when it allows fetching but not
// private addresses.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { tinyPdf } from "../../../test/support/tiny-pdf.js";
import { assertBuilt, BIN, serverEnv, tempDataDir } from "./support/server-process.js";

type CallResult = { isError?: boolean; content: { type: string; text: string }[]; structuredContent?: Record<string, unknown> };

async function connect(args: string[] = [], env: Record<string, string> = {}) {
  const data = tempDataDir();
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [assertBuilt(BIN), "--data-dir", data.dir, ...args],
    env: serverEnv(env),
    stderr: "pipe",
  });
  const client = new Client({ name: "docdb-documents-test", version: "0.0.0" });
  await client.connect(transport);
  return {
    call: async (name: string, args: Record<string, unknown>) => (await client.callTool({ name, arguments: args })) as CallResult,
    async close() {
      await client.close();
      data.remove();
    },
  };
}

const lines = (word: string) =>
  Array.from({ length: 12 }, (_, i) => (i === 6 ? `The ${word} is described here.` : `Filler line ${i + 1} of the report.`));

let site: Server;
let base: string;
beforeAll(async () => {
  site = createServer((_req, res) => {
    res.writeHead(200, { "content-type": "text/plain" });
    res.end("a page on this machine");
  });
  await new Promise<void>((resolve) => site.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
});
afterAll(async () => {
  site.closeAllConnections();
  await new Promise((resolve) => site.close(resolve));
});

describe("insert_file", () => {
  it("extracts a base64 PDF: find shows each passage's page and get_document reads one page", async () => {
    const server = await connect();
    try {
      const pdf = tinyPdf([lines("astrolabe"), lines("sextant")], { title: "Navigation" });
      const inserted = await server.call("insert_file", { content_base64: pdf.toString("base64"), name: "navigation.pdf" });
      expect(inserted.isError ?? false, inserted.content[0]?.text).toBe(false);
      expect(inserted.structuredContent).toMatchObject({ format: "pdf" });
      const docId = inserted.structuredContent?.doc_id as string;
      const found = await server.call("find_similar_documents", { text: "sextant", mode: "keyword" });
      const results = found.structuredContent?.results as { locator?: { page: number } }[];
      expect(results[0]?.locator).toEqual({ page: 2 });
      expect(found.content[0]?.text).toMatch(/p\. 2/);
      const page = await server.call("get_document", { doc_id: docId, page: 2 });
      expect(page.structuredContent).toMatchObject({ title: "Navigation", page: { number: 2, of: 2 } });
      expect(page.structuredContent?.text).toContain("sextant");
      const none = await server.call("get_document", { doc_id: docId, page: 5 });
      expect(none.isError).toBe(true);
      expect(none.content[0]?.text).toMatch(/has 2 pages/);
    } finally {
      await server.close();
    }
  });

  it("refuses a file over its size cap and a call that names no format, saying why", async () => {
    const server = await connect();
    try {
      const big = await server.call("insert_file", { content_base64: "A".repeat(7_100_000), name: "big.pdf" });
      expect(big.isError).toBe(true);
      expect(big.content[0]?.text).toMatch(/over insert_file's limit of 5242880 bytes/);
      const anonymous = await server.call("insert_file", { content_base64: Buffer.from("hello").toString("base64") });
      expect(anonymous.isError).toBe(true);
      expect(anonymous.content[0]?.text).toMatch(/give the file's name/);
      const text = await server.call("insert_file", {
        content_base64: Buffer.from("# Plain\n\nmarkdown words").toString("base64"),
        name: "a.md",
      });
      expect(text.isError ?? false).toBe(false);
    } finally {
      await server.close();
    }
  });
});

describe("insert_url", () => {
  it("is off unless the server allows fetching", async () => {
    const server = await connect();
    try {
      const result = await server.call("insert_url", { url: `${base}/page.txt` });
      expect(result.isError).toBe(true);
      expect(result.content[0]?.text).toMatch(/fetching URLs is off on this server: .*--allow-fetch/);
    } finally {
      await server.close();
    }
  });

  it("allowed to fetch, still refuses 127.0.0.1 unless private addresses are allowed too", async () => {
    for (const [args, env] of [
      [["--allow-fetch"], {}],
      [[], { DOCDB_MCP_ALLOW_FETCH: "1" }],
    ] as const) {
      const server = await connect([...args], { ...env });
      try {
        const result = await server.call("insert_url", { url: `${base}/page.txt` });
        expect(result.isError).toBe(true);
        expect(result.content[0]?.text).toMatch(/refusing to fetch .*loopback, link-local or private address/);
      } finally {
        await server.close();
      }
    }
    const open = await connect(["--allow-fetch", "--allow-private-fetch"]);
    try {
      const result = await open.call("insert_url", { url: `${base}/page.txt` });
      expect(result.isError ?? false, result.content[0]?.text).toBe(false);
      expect(result.structuredContent).toMatchObject({ replaced: false });
    } finally {
      await open.close();
    }
  });
});
