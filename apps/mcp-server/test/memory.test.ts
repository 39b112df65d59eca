import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CreateMessageRequest } from "@modelcontextprotocol/sdk/types.js";
import { describe } from "vitest";
import { tinyModelDir } from "../../../test/support/tiny-model.js";
import { memoryFlowSuite, noSamplingSuite, registerDeterministicSampling } from "./support/memory-flow.js";
import { assertBuilt, BIN, serverEnv, startHttpServer, tempDataDir } from "./support/server-process.js";

// Agent memory through the real server process and the SDK client, over stdio and Streamable
// HTTP, without an embedding model and with the generated tiny model.

type Model = "none" | "tiny";

/**
 * The tiny model has random weights: it tells paraphrases apart from other sentences only by
 * their characters, so two unrelated staging-database questions score 0.905 (the rollback
 * paraphrases 0.987). The merge threshold is raised through its environment variable, which
 * this also shows working.
 */
function env(model: Model): Record<string, string> {
  if (model === "none") return serverEnv();
  return serverEnv({
    DOCDB_EMBEDDING: "local",
    DOCDB_MODEL_DIR: tinyModelDir(),
    DOCDB_MODEL_DOWNLOAD: "0",
    DOCDB_MEMORY_MERGE_THRESHOLD: "0.95",
  });
}

function newClient(sampling: boolean, requests: CreateMessageRequest["params"][]): Client {
  const client = new Client({ name: "docdb-memory-test", version: "0" }, sampling ? { capabilities: { sampling: {} } } : {});
  if (sampling) registerDeterministicSampling(client, requests);
  return client;
}

async function overStdio(model: Model, sampling: boolean) {
  const data = tempDataDir();
  const samplingRequests: CreateMessageRequest["params"][] = [];
  const client = newClient(sampling, samplingRequests);
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [assertBuilt(BIN), "--data-dir", data.dir],
      env: env(model),
      stderr: "pipe",
    }),
  );
  return {
    client,
    samplingRequests,
    async close() {
      await client.close();
      data.remove();
    },
  };
}

async function overHttp(model: Model, sampling: boolean) {
  const data = tempDataDir();
  const server = await startHttpServer(["--data-dir", data.dir], env(model));
  const samplingRequests: CreateMessageRequest["params"][] = [];
  const client = newClient(sampling, samplingRequests);
  await client.connect(new StreamableHTTPClientTransport(new URL(server.url)));
  return {
    client,
    samplingRequests,
    async close() {
      await client.close();
      await server.stop();
      data.remove();
    },
  };
}

for (const model of ["none", "tiny"] as const) {
  const label = model === "none" ? "no model" : "tiny model";
  describe(`agent memory over stdio (${label})`, () => memoryFlowSuite(() => overStdio(model, true), { model: model === "tiny" }));
  describe(`agent memory over Streamable HTTP (${label})`, () => memoryFlowSuite(() => overHttp(model, true), { model: model === "tiny" }));
}
describe("agent memory, client without sampling, over stdio", () => noSamplingSuite(() => overStdio("none", false)));
describe("agent memory, client without sampling, over Streamable HTTP (tiny model)", () => noSamplingSuite(() => overHttp("tiny", false)));
