import { execFileSync, spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { assertBuilt, BIN, CLI, serverEnv, stopProcess, tempDataDir } from "./support/server-process.js";

// Issue 12: the server answers its first tools/list without loading what only later work needs.
// These Node built-ins were all loaded at start before (1-5 ms each); each now loads on first use:
// node:crypto for new ids and hashes, node:worker_threads for the analysis pool and pino's
// streams, node:child_process for the SQL reader (and commander, in the CLI), node:v8 for
// tree-sitter, node:assert for pino.
const LATER = ["crypto", "worker_threads", "child_process", "v8", "assert"];

const data = tempDataDir();
/** Records Node's list of loaded built-ins when the server writes its answer to tools/list. */
const preload = join(data.parent, "record-builtins.cjs");

beforeAll(() => {
  assertBuilt(BIN);
  assertBuilt(CLI);
  writeFileSync(
    preload,
    `const write = process.stdout.write;
process.stdout.write = function (chunk, ...rest) {
  if (String(chunk).includes('"id":"list"')) {
    const builtins = process.moduleLoadList.filter((m) => m.startsWith("NativeModule ")).map((m) => m.slice(13));
    process.stderr.write("BUILTINS " + JSON.stringify(builtins) + "\\n");
  }
  return write.call(this, chunk, ...rest);
};
`,
  );
  // The default database exists, as after an agent's first insert: the server opens it at start.
  execFileSync(process.execPath, [CLI, "db", "create", "vectors", "--data-dir", data.dir], { env: serverEnv() });
});
afterAll(() => data.remove());

/** Starts the server with the recorder, asks initialize and tools/list; the built-ins loaded by then. */
async function builtinsAtFirstList(args: string[]): Promise<{ builtins: string[]; tools: string[] }> {
  const child = spawn(process.execPath, args, {
    env: serverEnv({ NODE_OPTIONS: `--require ${preload}` }),
    stdio: ["pipe", "pipe", "pipe"],
  });
  try {
    const builtins = new Promise<string[]>((resolve) => {
      createInterface({ input: child.stderr }).on("line", (line) => {
        if (line.startsWith("BUILTINS ")) resolve(JSON.parse(line.slice("BUILTINS ".length)) as string[]);
      });
    });
    const tools = new Promise<string[]>((resolve) => {
      createInterface({ input: child.stdout }).on("line", (line) => {
        const message = JSON.parse(line) as { id?: string; result?: { tools?: { name: string }[] } };
        if (message.id === "init") {
          child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" })}\n`);
          child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", id: "list", method: "tools/list" })}\n`);
        }
        if (message.id === "list") resolve((message.result?.tools ?? []).map((tool) => tool.name));
      });
    });
    const initialize = { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "startup-test", version: "0" } };
    child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", id: "init", method: "initialize", params: initialize })}\n`);
    return { builtins: await builtins, tools: await tools };
  } finally {
    child.stdin.end();
    await stopProcess(child);
  }
}

describe("MCP server start-up", () => {
  it.each([
    ["docdb-mcp", () => [BIN, "--data-dir", data.dir]],
    ["docdb serve", () => [CLI, "--data-dir", data.dir, "serve"]],
  ])("%s answers the first tools/list without the built-ins only later work needs", async (_name, args) => {
    const { builtins, tools } = await builtinsAtFirstList(args());
    expect(tools).toContain("find_similar_documents");
    // The recorder saw the server's real list: what serving stdio needs is in it.
    expect(builtins).toEqual(expect.arrayContaining(["fs", "net", "stream"]));
    expect(builtins.filter((name) => LATER.includes(name))).toEqual([]);
  });
});
