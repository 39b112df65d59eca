#!/usr/bin/env node
// Load test of several `docdb-mcp --http` processes over one PostgreSQL: concurrent MCP clients
// doing finds and inserts for a bounded time, on loopback only; prints error rate and p50/p95.
/**
 *   pnpm build && pnpm bench:serve [-- --clients 50 --seconds 60 --processes 2 --inserts 0.2
 *                                    --store pglite|postgres://user:pass@host:port/db --json]
 *
 * PGlite (PostgreSQL + pgvector in WebAssembly, one backend) is started for the run unless
 * `--store` names a server; the run's database (`bench_serve_<pid>_<time>`) is dropped at the end.
 * No embedding model: finds are keyword searches, so the figures are docdb + HTTP + PostgreSQL.
 */
import { spawn, spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { cpus, loadavg } from "node:os";
import { createInterface } from "node:readline";
import { fileURLToPath, pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { startPglite } from "./bench/target.mjs";

const BIN = fileURLToPath(new URL("../apps/mcp-server/dist/bin.js", import.meta.url));
const CLI = fileURLToPath(new URL("../apps/cli/dist/index.js", import.meta.url));
const requireSdk = createRequire(new URL("../apps/mcp-server/package.json", import.meta.url));
const sdk = (path) => import(pathToFileURL(requireSdk.resolve(`@modelcontextprotocol/sdk/${path}`)).href);

const { values } = parseArgs({
  options: {
    clients: { type: "string", default: "50" },
    seconds: { type: "string", default: "60" },
    processes: { type: "string", default: "2" },
    inserts: { type: "string", default: "0.2" },
    seed: { type: "string", default: "200" },
    store: { type: "string", default: "pglite" },
    json: { type: "boolean", default: false },
  },
});
const bounded = (name, min, max) => {
  const n = Number(values[name]);
  if (!Number.isFinite(n) || n < min || n > max) throw new Error(`--${name} must be a number from ${min} to ${max}, got ${values[name]}`);
  return n;
};
const CLIENTS = bounded("clients", 1, 500);
const SECONDS = bounded("seconds", 1, 600);
const PROCESSES = bounded("processes", 1, 16);
const INSERT_SHARE = bounded("inserts", 0, 1);
const SEED = bounded("seed", 0, 10_000);
const log = (line) => process.stderr.write(`${line}\n`);

for (const path of [BIN, CLI]) {
  if (!existsSync(path)) {
    log(`build first (pnpm build): ${path} is missing`);
    process.exit(1);
  }
}

const env = { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", DOCDB_EMBEDDING: "none", DOCDB_LOG_LEVEL: "warn" };
const WORDS = "alpha beta gamma delta server lease vector chunk search index postgres shared agent memory note".split(" ");
const words = (i, n) => Array.from({ length: n }, (_, j) => WORDS[(i * 7 + j * 3) % WORDS.length]).join(" ");

function startServer(url, db) {
  const child = spawn(process.execPath, [BIN, "--http", "--host", "127.0.0.1", "--port", "0", "--store", url, "--db", db], {
    env,
    stdio: ["ignore", "ignore", "pipe"],
  });
  const lines = [];
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start within 60 s:\n${lines.join("\n")}`)), 60_000);
    child.once("exit", (code) => reject(new Error(`server exited (${code}):\n${lines.join("\n")}`)));
    createInterface({ input: child.stderr }).on("line", (line) => {
      if (lines.length < 50) lines.push(line);
      const match = /listening on (http:\/\/\S+\/mcp)/.exec(line);
      if (!match) return;
      clearTimeout(timer);
      resolve({ url: match[1], child, lines });
    });
  });
}

async function connect(url) {
  const [{ Client }, { StreamableHTTPClientTransport }] = await Promise.all([sdk("client/index.js"), sdk("client/streamableHttp.js")]);
  const client = new Client({ name: "docdb-bench-serve", version: "0.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  return client;
}

const percentile = (sorted, p) => (sorted.length === 0 ? 0 : sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]);

async function main() {
  let pglite;
  let url = values.store;
  if (url === "pglite") {
    log("starting PGlite (PostgreSQL + pgvector in WebAssembly) on loopback");
    pglite = await startPglite();
    url = pglite.url;
  } else if (!/^postgres(ql)?:\/\//i.test(url)) {
    throw new Error("--store takes pglite or postgres://user:pass@host:port/db");
  }
  const db = `bench_serve_${process.pid}_${Date.now().toString(36)}`;
  const cli = (...args) => {
    const run = spawnSync(process.execPath, [CLI, "--store", url, ...args], { env, encoding: "utf8" });
    if (run.status !== 0) throw new Error(`docdb ${args[0]} ${args[1] ?? ""} failed: ${run.stderr}`);
  };
  const servers = [];
  const clients = [];
  try {
    cli("db", "create", db);
    log(`starting ${PROCESSES} docdb-mcp --http processes`);
    servers.push(...(await Promise.all(Array.from({ length: PROCESSES }, () => startServer(url, db)))));
    const seeder = await connect(servers[0].url);
    for (let i = 0; i < SEED; i++) await seeder.callTool({ name: "insert_document", arguments: { text: `Seed ${i}: ${words(i, 40)}` } });
    await seeder.close();
    log(`${CLIENTS} clients for ${SECONDS} s (${Math.round(INSERT_SHARE * 100)}% inserts)`);
    clients.push(...(await Promise.all(Array.from({ length: CLIENTS }, (_, i) => connect(servers[i % PROCESSES].url)))));
    const latency = { find: [], insert: [] };
    const errors = [];
    const end = Date.now() + SECONDS * 1000;
    let n = 0;
    const worker = async (client) => {
      while (Date.now() < end) {
        const i = n++;
        const kind = (i * 0.618034) % 1 < INSERT_SHARE ? "insert" : "find";
        const request =
          kind === "insert"
            ? { name: "insert_document", arguments: { text: `Load ${i}: ${words(i, 60)}` } }
            : { name: "find_similar_documents", arguments: { text: words(i, 3), mode: "keyword", top_k: 10 } };
        const started = performance.now();
        try {
          const result = await client.callTool(request);
          if (result.isError) errors.push(result.content?.[0]?.text ?? "error");
        } catch (error) {
          errors.push(error instanceof Error ? error.message : String(error));
        }
        latency[kind].push(performance.now() - started);
      }
    };
    await Promise.all(clients.map(worker));
    const all = [...latency.find, ...latency.insert].sort((a, b) => a - b);
    const summary = (list) => {
      const sorted = [...list].sort((a, b) => a - b);
      return { requests: sorted.length, p50_ms: +percentile(sorted, 50).toFixed(1), p95_ms: +percentile(sorted, 95).toFixed(1) };
    };
    const report = {
      clients: CLIENTS,
      seconds: SECONDS,
      processes: PROCESSES,
      store: pglite ? "PGlite" : url.replace(/(\/\/[^:/@]*:)[^@]*@/, "$1***@"),
      requests: all.length,
      per_second: +(all.length / SECONDS).toFixed(1),
      errors: errors.length,
      error_rate: all.length ? errors.length / all.length : 0,
      all: summary(all),
      find: summary(latency.find),
      insert: summary(latency.insert),
      first_errors: [...new Set(errors)].slice(0, 5),
      machine: `${cpus()[0]?.model ?? "?"} × ${cpus().length}, Node ${process.version}, load ${loadavg()
        .map((l) => l.toFixed(1))
        .join(" ")}`,
    };
    if (values.json) process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
    else {
      const line = (name, s) => `${name.padEnd(7)} ${String(s.requests).padStart(7)} requests  p50 ${s.p50_ms} ms  p95 ${s.p95_ms} ms`;
      process.stdout.write(
        [
          `${CLIENTS} clients × ${SECONDS} s over ${PROCESSES} processes on ${report.store}: ${report.requests} requests (${report.per_second}/s), ` +
            `${errors.length} errors (error rate ${(report.error_rate * 100).toFixed(2)}%)`,
          line("all", report.all),
          line("find", report.find),
          line("insert", report.insert),
          ...report.first_errors.map((e) => `error: ${e}`),
          report.machine,
          "",
        ].join("\n"),
      );
    }
    process.exitCode = errors.length > 0 ? 1 : 0;
  } finally {
    await Promise.all(clients.map((c) => c.close().catch(() => undefined)));
    for (const server of servers) {
      const exited = new Promise((resolve) => server.child.once("exit", resolve));
      server.child.kill("SIGTERM");
      await exited;
    }
    try {
      cli("db", "drop", db, "--yes");
    } catch (error) {
      log(`could not drop ${db}: ${error.message}`);
    }
    await pglite?.stop();
  }
}

main().catch((error) => {
  log(error instanceof Error ? error.message : String(error));
  process.exit(1);
});
