import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { DEFAULT_DB_NAME, type DocDB } from "@docdb/core";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readToolDescriptors, TOOL_DESCRIPTORS_FILE } from "../src/tool-descriptors.js";
import { createDocdbTools } from "../src/tools/index.js";
import { assertBuilt, BIN, CLI, serverEnv, tempDataDir } from "./support/server-process.js";

// The programs answer tools/list from descriptors their build wrote beside them, and load each
// tool on its first call. These tests hold those files to the tools as the sources define them.

const BUILT = [
  fileURLToPath(new URL(`../dist/${TOOL_DESCRIPTORS_FILE}`, import.meta.url)),
  fileURLToPath(new URL(`../../cli/dist/${TOOL_DESCRIPTORS_FILE}`, import.meta.url)),
];

/** The tools as the sources define them now, for a default database. */
function liveTools(defaultDb: string) {
  return createDocdbTools({} as DocDB, { defaultDb }).list();
}

const data = tempDataDir();
afterAll(() => data.remove());

async function listOverStdio(args: string[]) {
  const client = new Client({ name: "descriptors-test", version: "0" });
  await client.connect(
    new StdioClientTransport({ command: process.execPath, args: [...args, "--data-dir", data.dir], env: serverEnv(), stderr: "pipe" }),
  );
  return client;
}

describe("the tool descriptors a build writes", () => {
  beforeAll(() => {
    assertBuilt(BIN);
    assertBuilt(CLI);
  });

  it("are the tools the sources define, for the default database, in both programs' folders", () => {
    for (const file of BUILT) {
      const descriptors = readToolDescriptors(file);
      expect(descriptors, `${file}: run pnpm build`).toBeDefined();
      expect(descriptors?.default_db).toBe(DEFAULT_DB_NAME);
      expect(descriptors?.tools).toEqual(liveTools(DEFAULT_DB_NAME));
    }
  });

  it("docdb-mcp lists them and runs a tool loaded on its first call; another default database gets its own descriptions", async () => {
    const client = await listOverStdio([BIN]);
    try {
      const { tools } = await client.listTools();
      expect(tools).toEqual(liveTools(DEFAULT_DB_NAME));
      await expect(client.callTool({ name: "insert_document", arguments: { text: 42 } })).rejects.toMatchObject({
        data: { code: "INVALID_REQUEST" },
      });
      const inserted = await client.callTool({ name: "insert_document", arguments: { text: "遅延読み込みのツールで保存した文書。" } });
      expect(inserted.isError ?? false).toBe(false);
      expect(inserted.structuredContent).toMatchObject({ chunk_count: 1 });
    } finally {
      await client.close();
    }

    // The descriptors name "vectors" as the default; --db notes makes the server build its tools at start.
    const other = await listOverStdio([BIN, "--db", "notes"]);
    try {
      const { tools } = await other.listTools();
      expect(tools).toEqual(liveTools("notes"));
      expect(tools).not.toEqual(liveTools(DEFAULT_DB_NAME));
    } finally {
      await other.close();
    }
  });

  it("are what the program lists (a copy whose descriptor says otherwise lists that)", async () => {
    const root = mkdtempSync(join(tmpdir(), "docdb-descriptors-"));
    try {
      cpSync(fileURLToPath(new URL("../dist", import.meta.url)), join(root, "dist"), { recursive: true });
      mkdirSync(join(root, "node_modules"));
      for (const name of ["better-sqlite3", "sqlite-vec"]) {
        symlinkSync(fileURLToPath(new URL(`../node_modules/${name}`, import.meta.url)), join(root, "node_modules", name), "dir");
      }
      const file = join(root, "dist", TOOL_DESCRIPTORS_FILE);
      const descriptors = JSON.parse(readFileSync(file, "utf8"));
      descriptors.tools[0].description = "Described by the build's file";
      writeFileSync(file, JSON.stringify(descriptors));
      const client = await listOverStdio([join(root, "dist", "bin.js")]);
      try {
        const { tools } = await client.listTools();
        expect(tools[0]).toMatchObject({ name: "create_database", description: "Described by the build's file" });
        expect(tools.slice(1)).toEqual(liveTools(DEFAULT_DB_NAME).slice(1));
      } finally {
        await client.close();
      }
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  it("docdb serve lists them too", async () => {
    const client = await listOverStdio([CLI, "serve"]);
    try {
      expect((await client.listTools()).tools).toEqual(liveTools(DEFAULT_DB_NAME));
    } finally {
      await client.close();
    }
  });
});

describe("readToolDescriptors", () => {
  it("gives nothing for a missing, unreadable or foreign file, so the server builds its tools instead", () => {
    expect(readToolDescriptors(join(data.parent, "missing.json"))).toBeUndefined();
    const file = join(data.parent, "descriptors.json");
    for (const text of [
      "{ not json",
      "[]",
      '{"format":2,"default_db":"vectors","tools":[]}',
      '{"format":1,"default_db":"vectors","tools":[{"name":1}]}',
    ]) {
      writeFileSync(file, text);
      expect(readToolDescriptors(file), text).toBeUndefined();
    }
    writeFileSync(file, JSON.stringify({ format: 1, default_db: "vectors", tools: liveTools("vectors") }));
    expect(readToolDescriptors(file)?.tools).toHaveLength(liveTools("vectors").length);
    expect(JSON.parse(readFileSync(file, "utf8")).tools[0].name).toBe("create_database");
  });
});
