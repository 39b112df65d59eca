#!/usr/bin/env node
// Time from spawning the server to its first tools/list answer, the wait an agent sees
// when it starts docdb. Usage: node apps/mcp-server/bench/startup.mjs [--runs N]
// (or `pnpm bench:mcp`). Needs `pnpm build` first. Prints min / p50 / p90 / max per variant.
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";

const { values } = parseArgs({ options: { runs: { type: "string", default: "15" } } });
const runs = Number(values.runs);
const BIN = fileURLToPath(new URL("../dist/bin.js", import.meta.url));
const CLI = fileURLToPath(new URL("../../cli/dist/index.js", import.meta.url));
for (const file of [BIN, CLI]) {
  if (!existsSync(file)) {
    console.error(`${file} is missing: run \`pnpm build\` first`);
    process.exit(1);
  }
}
const env = { ...process.env, DOCDB_EMBEDDING: process.env.DOCDB_EMBEDDING ?? "none", DOCDB_LOG_LEVEL: "warn" };
const INITIALIZE = {
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "bench", version: "0" } },
};

/** One stdio run: spawn, initialize, tools/list; milliseconds until the list arrives. */
function stdioRun(args, dataDir) {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, [...args, "--data-dir", dataDir], { env, stdio: ["pipe", "pipe", "ignore"] });
    child.once("error", reject);
    createInterface({ input: child.stdout }).on("line", (line) => {
      const message = JSON.parse(line);
      if (message.id === 1) {
        child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" })}\n`);
        child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/list" })}\n`);
      } else if (message.id === 2) {
        const ms = performance.now() - started;
        if (!Array.isArray(message.result?.tools)) reject(new Error(`unexpected answer: ${line.slice(0, 200)}`));
        child.once("exit", () => resolve(ms));
        child.stdin.end();
      }
    });
    child.stdin.write(`${JSON.stringify(INITIALIZE)}\n`);
  });
}

/** One HTTP run: spawn with --http --port 0, wait for the listening line, initialize, tools/list. */
function httpRun(args, dataDir) {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, [...args, "--http", "--port", "0", "--data-dir", dataDir], {
      env,
      stdio: ["ignore", "ignore", "pipe"],
    });
    child.once("error", reject);
    createInterface({ input: child.stderr }).on("line", async (line) => {
      const url = /listening on (\S+)/.exec(line)?.[1];
      if (!url) return;
      try {
        const headers = { "content-type": "application/json", accept: "application/json, text/event-stream" };
        const init = await fetch(url, { method: "POST", headers, body: JSON.stringify(INITIALIZE) });
        const session = init.headers.get("mcp-session-id");
        await init.text();
        const sessionHeaders = { ...headers, "mcp-session-id": session, "mcp-protocol-version": "2025-06-18" };
        await (
          await fetch(url, {
            method: "POST",
            headers: sessionHeaders,
            body: JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }),
          })
        ).text();
        const list = await fetch(url, {
          method: "POST",
          headers: sessionHeaders,
          body: JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/list" }),
        });
        const body = await list.text();
        const ms = performance.now() - started;
        if (!body.includes('"tools"')) throw new Error(`unexpected answer: ${body.slice(0, 200)}`);
        child.once("exit", () => resolve(ms));
        child.kill("SIGTERM");
      } catch (error) {
        child.kill("SIGKILL");
        reject(error);
      }
    });
  });
}

function percentile(sorted, p) {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

const variants = [
  { name: "docdb-mcp (stdio)", run: (dir) => stdioRun([BIN], dir) },
  { name: "docdb serve (stdio)", run: (dir) => stdioRun([CLI, "serve"], dir) },
  { name: "docdb-mcp --http", run: (dir) => httpRun([BIN], dir) },
];

const dataDir = mkdtempSync(join(tmpdir(), "docdb-bench-"));
try {
  console.log(
    `process start → first tools/list answer, ${runs} runs each (after 1 warm-up), node ${process.version}, DOCDB_EMBEDDING=${env.DOCDB_EMBEDDING}`,
  );
  for (const variant of variants) {
    await variant.run(dataDir);
    const times = [];
    for (let i = 0; i < runs; i++) times.push(await variant.run(dataDir));
    times.sort((a, b) => a - b);
    const f = (ms) => `${ms.toFixed(0)} ms`.padStart(7);
    console.log(
      `${variant.name.padEnd(22)} min ${f(times[0])}  p50 ${f(percentile(times, 50))}  p90 ${f(percentile(times, 90))}  max ${f(times.at(-1))}`,
    );
  }
} finally {
  rmSync(dataDir, { recursive: true, force: true });
}
