// The MCP server as an agent meets it: process start to the first tools/list answer over
// stdio, and its resident memory while answering searches on a large database.
import { spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { createInterface } from "node:readline";
import { percentile } from "./stats.mjs";

const PROTOCOL = "2025-06-18";

/** A stdio MCP session with a spawned server: request() sends and awaits the answer. */
function startServer(bin, args, storeEnv = {}) {
  // Keyword search only: the benchmark databases were embedded by the benchmark's own model.
  const env = { ...process.env, DOCDB_EMBEDDING: "none", OPENAI_API_KEY: "", DOCDB_LOG_LEVEL: "warn" };
  for (const [key, value] of Object.entries(storeEnv)) {
    if (value === undefined) delete env[key];
    else env[key] = value;
  }
  const child = spawn(process.execPath, [bin, ...args], { env, stdio: ["pipe", "pipe", "ignore"] });
  const waiting = new Map();
  let nextId = 1;
  createInterface({ input: child.stdout }).on("line", (line) => {
    let message;
    try {
      message = JSON.parse(line);
    } catch {
      return;
    }
    const pending = waiting.get(message.id);
    if (pending) {
      waiting.delete(message.id);
      pending.resolve(message);
    }
  });
  child.once("exit", (code) => {
    for (const { method, reject } of waiting.values()) reject(new Error(`server exited (${code}) before answering ${method}`));
    waiting.clear();
  });
  const send = (message) => child.stdin.write(`${JSON.stringify(message)}\n`);
  return {
    child,
    request(method, params) {
      const id = nextId++;
      return new Promise((resolve, reject) => {
        waiting.set(id, { method, resolve, reject });
        send({ jsonrpc: "2.0", id, method, params });
      });
    },
    notify(method) {
      send({ jsonrpc: "2.0", method });
    },
    async stop() {
      child.stdin.end();
      if (child.exitCode === null) await new Promise((resolve) => child.once("exit", resolve));
    },
  };
}

async function initialize(server) {
  await server.request("initialize", { protocolVersion: PROTOCOL, capabilities: {}, clientInfo: { name: "docdb-bench", version: "0" } });
  server.notify("notifications/initialized");
}

function rssMegabytes(pid) {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kb = (key) => Number(new RegExp(`${key}:\\s+(\\d+)`).exec(status)?.[1] ?? Number.NaN);
  return { rss: kb("VmRSS") / 1024, peak: kb("VmHWM") / 1024 };
}

/**
 * Start-up (median of `runs`) and memory while serving `dbName`, or a note saying why the rows
 * are missing (no built server, or no /proc to read memory from). `store` picks where the
 * databases are: arguments and environment variables (undefined removes one) for the server;
 * default the SQLite folder `dataDir`.
 */
export async function mcpServer({ bin, dataDir, dbName, queries, runs = 5, store = { args: ["--data-dir", dataDir], env: {} } }) {
  if (!existsSync(bin)) return { skipped: `MCP server not built (${bin} is missing): run \`pnpm build\`` };
  const args = [...store.args, "--db", dbName];
  const startup = [];
  for (let i = 0; i < runs; i++) {
    const started = performance.now();
    const server = startServer(bin, args, store.env);
    await initialize(server);
    const list = await server.request("tools/list", {});
    startup.push(performance.now() - started);
    if (!Array.isArray(list.result?.tools)) throw new Error(`tools/list answered ${JSON.stringify(list).slice(0, 200)}`);
    await server.stop();
  }

  const server = startServer(bin, args, store.env);
  try {
    await initialize(server);
    for (const text of queries) {
      const answer = await server.request("tools/call", {
        name: "find_similar_documents",
        arguments: { text, mode: "keyword", top_k: 10 },
      });
      if (answer.error || answer.result?.isError) throw new Error(`search failed: ${JSON.stringify(answer).slice(0, 300)}`);
    }
    const memory = existsSync(`/proc/${server.child.pid}/status`) ? rssMegabytes(server.child.pid) : undefined;
    return { startupMs: { p50: percentile(startup, 50), max: Math.max(...startup) }, memory, searches: queries.length };
  } finally {
    await server.stop();
  }
}
