import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { describe, expect, it } from "vitest";
import { agentFlowSuite, type Connected, TOOL_NAMES } from "./support/agent-flow.js";
import { assertBuilt, BIN, CLI, serverEnv, tempDataDir } from "./support/server-process.js";

/** Spawns a server command over stdio and connects the SDK client; any non-protocol byte on stdout fails the test. */
async function connectStdio(args: string[]): Promise<Connected & { stderr: () => string; stdoutErrors: Error[] }> {
  const data = tempDataDir();
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [...args, "--data-dir", data.dir],
    env: serverEnv(),
    stderr: "pipe",
  });
  let stderr = "";
  transport.stderr?.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const stdoutErrors: Error[] = [];
  const client = new Client({ name: "docdb-test", version: "0.0.0" });
  await client.connect(transport);
  // Set after connect: the client chains its own handler first.
  transport.onerror = (error) => stdoutErrors.push(error);
  return {
    client,
    dataDir: data.dir,
    stderr: () => stderr,
    stdoutErrors,
    async close() {
      await client.close();
      data.remove();
    },
  };
}

describe("docdb-mcp over stdio", () => {
  let connected: Awaited<ReturnType<typeof connectStdio>> | undefined;
  agentFlowSuite(async () => {
    connected = await connectStdio([assertBuilt(BIN)]);
    return connected;
  });

  it("writes nothing but protocol messages on stdout, and its status line on stderr", () => {
    expect(connected?.stdoutErrors).toEqual([]);
    expect(connected?.stderr()).toMatch(/docdb MCP server on stdio/);
  });
});

describe("docdb serve (the CLI command) over stdio", () => {
  it("serves the same tools and answers a call", async () => {
    const c = await connectStdio([assertBuilt(CLI), "serve"]);
    try {
      const { tools } = await c.client.listTools();
      expect(tools.map((t) => t.name).sort()).toEqual([...TOOL_NAMES].sort());
      const result = await c.client.callTool({ name: "insert_document", arguments: { text: "サーバーのテスト文書です。" } });
      expect(result.isError ?? false).toBe(false);
      expect(c.stdoutErrors).toEqual([]);
    } finally {
      await c.close();
    }
  });
});
