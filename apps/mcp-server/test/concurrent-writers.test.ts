import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { generateCorpus } from "../../../scripts/generate-corpus.mjs";
import { type StartedProcess, startNode } from "../../../test/support/node-process.js";
import { assertBuilt, BIN, CLI, serverEnv } from "./support/server-process.js";

// Two writers on one SQLite database, as real processes: the second never fails, it waits.
// Each scenario's final counts are compared with the same work done one after the other.

const FILES = 2000;
let root: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), "docdb-writers-"));
  assertBuilt(CLI);
  assertBuilt(BIN);
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

function cli(dataDir: string, args: string[]): StartedProcess {
  return startNode(CLI, ["--data-dir", dataDir, ...args], { env: serverEnv() });
}

/** Without an embedding model the CLI warns that chunks wait for one; anything else on stderr is a failure. */
function onlyModelWarnings(stderr: string): string[] {
  return stderr.split("\n").filter((line) => line !== "" && !/^warning: .*(embedding|embed --pending)/.test(line));
}

async function ok(dataDir: string, args: string[]): Promise<string> {
  const result = await cli(dataDir, args).done;
  expect(onlyModelWarnings(result.stderr), `docdb ${args.join(" ")}`).toEqual([]);
  expect(result.code, `docdb ${args.join(" ")}: ${result.stderr}`).toBe(0);
  return result.stdout;
}

async function counts(dataDir: string): Promise<{ documents: number; chunks: number; files: number }> {
  const status = JSON.parse(await ok(dataDir, ["status", "--json"])) as {
    databases: { documents: number; chunks: number }[];
    collections: { documents: number }[];
  };
  const db = status.databases[0] as { documents: number; chunks: number };
  return { documents: db.documents, chunks: db.chunks, files: status.collections[0]?.documents ?? 0 };
}

async function addCollection(dataDir: string, corpus: string): Promise<void> {
  await ok(dataDir, ["collection", "add", "-n", "corpus", "-d", "generated test corpus", "-s", corpus]);
}

/** The real server over stdio with the SDK client. */
async function connect(dataDir: string): Promise<Client> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN, "--data-dir", dataDir],
    env: serverEnv(),
    stderr: "pipe",
  });
  const client = new Client({ name: "docdb-writers-test", version: "0.0.0" });
  await client.connect(transport);
  return client;
}

const note = (i: number) => `並行書き込みのメモ ${i}: the writer must wait, never fail.`;

describe("two writers on one database", () => {
  it("a CLI import of thousands of files while another process keeps inserting: no failures, same counts as one after the other", async () => {
    const corpus = join(root, "corpus");
    generateCorpus(corpus, { files: FILES, seed: 11 });
    const shared = join(root, "shared");
    await addCollection(shared, corpus);

    const importing = cli(shared, ["import", "-n", "corpus", "--json"]);
    let importDone = false;
    void importing.done.then(() => {
      importDone = true;
    });
    const inserts: { code: number | null; stderr: string }[] = [];
    while (!importDone) inserts.push(await cli(shared, ["insert", "--text", note(inserts.length)]).done);
    const imported = await importing.done;
    expect(onlyModelWarnings(imported.stderr)).toEqual([]);
    expect(imported.code).toBe(0);
    // The inserts really overlapped the import, and every one of them succeeded.
    expect(inserts.length).toBeGreaterThanOrEqual(2);
    expect(inserts.filter((r) => r.code !== 0 || onlyModelWarnings(r.stderr).length > 0)).toEqual([]);

    const alone = join(root, "alone");
    await addCollection(alone, corpus);
    await ok(alone, ["import", "-n", "corpus", "--json"]);
    for (let i = 0; i < inserts.length; i++) await ok(alone, ["insert", "--text", note(i)]);
    expect(await counts(shared)).toEqual(await counts(alone));
    expect((await counts(shared)).documents).toBe((await counts(alone)).files + inserts.length);
  }, 600_000);

  it("an MCP insert_document loop while `import --mode replace` rebuilds the collection: no failures, same counts", async () => {
    const corpus = join(root, "corpus");
    generateCorpus(corpus, { files: FILES, seed: 12 });
    const shared = join(root, "shared");
    await addCollection(shared, corpus);
    await ok(shared, ["import", "-n", "corpus", "--json"]);

    const client = await connect(shared);
    try {
      const replacing = cli(shared, ["import", "-n", "corpus", "--mode", "replace", "--json"]);
      let replaceDone = false;
      void replacing.done.then(() => {
        replaceDone = true;
      });
      const failures: unknown[] = [];
      let inserted = 0;
      while (!replaceDone) {
        const result = await client.callTool({ name: "insert_document", arguments: { text: note(inserted) } });
        if (result.isError) failures.push(result.structuredContent ?? result.content);
        inserted++;
      }
      const replaced = await replacing.done;
      expect(onlyModelWarnings(replaced.stderr)).toEqual([]);
      expect(replaced.code).toBe(0);
      expect(inserted).toBeGreaterThanOrEqual(2);
      expect(failures).toEqual([]);

      const alone = join(root, "alone");
      await addCollection(alone, corpus);
      await ok(alone, ["import", "-n", "corpus", "--json"]);
      await ok(alone, ["import", "-n", "corpus", "--mode", "replace", "--json"]);
      const sequential = await connect(alone);
      try {
        for (let i = 0; i < inserted; i++) {
          const result = await sequential.callTool({ name: "insert_document", arguments: { text: note(i) } });
          expect(result.isError).toBeFalsy();
        }
      } finally {
        await sequential.close();
      }
      expect(await counts(shared)).toEqual(await counts(alone));
    } finally {
      await client.close();
    }
  }, 600_000);
});
