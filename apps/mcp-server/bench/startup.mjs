#!/usr/bin/env node
// Time from spawning the server to its first tools/list answer, the wait an agent sees
// when it starts docdb, and the CLI's start-up (`docdb --version`, a keyword `docdb find`).
// Usage: node apps/mcp-server/bench/startup.mjs [--runs N] [--baseline <repo>] [--only <text>]
// (or `pnpm bench:mcp`). Needs `pnpm build` first. Prints min / p50 / p95 / max per variant.
// --baseline names another built checkout (e.g. `git worktree add /tmp/prev main`, install and
// build there): both are then measured in the same run, interleaved, so a busy machine weighs
// on both alike, and the p50 ratio is printed.
import { execFileSync, spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";

const { values } = parseArgs({
  options: {
    runs: { type: "string", default: "15" },
    baseline: { type: "string" },
    only: { type: "string" },
    "no-cache-too": { type: "boolean" },
  },
});
const runs = Number(values.runs);
const env = { ...process.env, DOCDB_EMBEDDING: process.env.DOCDB_EMBEDDING ?? "none", DOCDB_LOG_LEVEL: "warn" };
const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
/** The two programs of a built checkout. */
function build(label, root, extraEnv = {}) {
  const bins = {
    label,
    env: { ...env, ...extraEnv },
    mcp: join(root, "apps/mcp-server/dist/bin.js"),
    cli: join(root, "apps/cli/dist/index.js"),
  };
  for (const file of [bins.mcp, bins.cli]) {
    if (!existsSync(file)) {
      console.error(`${file} is missing: run \`pnpm build\` first`);
      process.exit(1);
    }
  }
  return bins;
}
const builds = values.baseline ? [build("before", values.baseline), build("after", ROOT)] : [build("this", ROOT)];
// --no-cache-too: this checkout once more with the launcher's V8 code cache turned off.
if (values["no-cache-too"]) builds.push(build("no code cache", ROOT, { DOCDB_COMPILE_CACHE: "0" }));
const INITIALIZE = {
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "bench", version: "0" } },
};

/** One stdio run: spawn, initialize, tools/list; milliseconds until the list arrives. */
function stdioRun(args, dataDir, env) {
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
function httpRun(args, dataDir, env) {
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

/** One CLI run: milliseconds until the process exits (successfully). */
function cliRun(args, env) {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, args, { env, stdio: ["ignore", "ignore", "pipe"] });
    let stderr = "";
    child.stderr.on("data", (data) => {
      stderr += data;
    });
    child.once("error", reject);
    child.once("exit", (code) => {
      const ms = performance.now() - started;
      if (code === 0) resolve(ms);
      else reject(new Error(`${args.join(" ")} exited ${code}: ${stderr.slice(0, 300)}`));
    });
  });
}

function percentile(sorted, p) {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

const variants = [
  { name: "docdb-mcp (stdio)", run: (b, dir) => stdioRun([b.mcp], dir, b.env) },
  { name: "docdb serve (stdio)", run: (b, dir) => stdioRun([b.cli, "serve"], dir, b.env) },
  { name: "docdb-mcp --http", run: (b, dir) => httpRun([b.mcp], dir, b.env) },
  { name: "docdb --version", run: (b) => cliRun([b.cli, "--version"], b.env) },
  {
    name: "docdb find (keyword)",
    run: (b, dir) => cliRun([b.cli, "--data-dir", dir, "find", "rotate tokens", "--db", "bench", "--mode", "keyword"], b.env),
  },
].filter((variant) => !values.only || variant.name.includes(values.only));

const dataDir = mkdtempSync(join(tmpdir(), "docdb-bench-"));
try {
  // A small database for `docdb find`, written by the newest build.
  const last = build("this", ROOT).cli;
  for (let i = 0; i < 5; i++) {
    const text = `Note ${i}: how to rotate tokens for service ${i}, and what to do when a key leaks.`;
    execFileSync(process.execPath, [last, "--data-dir", dataDir, "insert", "--db", "bench", "--text", text], { env, stdio: "ignore" });
  }
  console.log(
    `process start → first tools/list answer (MCP) or exit (CLI), ${runs} runs each (after 1 warm-up)` +
      `${builds.length > 1 ? ", builds interleaved" : ""}, node ${process.version}, DOCDB_EMBEDDING=${env.DOCDB_EMBEDDING}`,
  );
  const f = (ms) => `${ms.toFixed(0)} ms`.padStart(7);
  for (const variant of variants) {
    for (const b of builds) await variant.run(b, dataDir);
    const times = builds.map(() => []);
    for (let i = 0; i < runs; i++) {
      // Alternate which build goes first, so neither always runs on a warmer cache.
      const order = i % 2 === 0 ? builds.map((_, j) => j) : builds.map((_, j) => builds.length - 1 - j);
      for (const j of order) times[j].push(await variant.run(builds[j], dataDir));
    }
    const p50s = [];
    builds.forEach((b, j) => {
      const sorted = times[j].sort((x, y) => x - y);
      p50s.push(percentile(sorted, 50));
      const name = builds.length > 1 ? `${variant.name} [${b.label}]` : variant.name;
      console.log(
        `${name.padEnd(37)} min ${f(sorted[0])}  p50 ${f(percentile(sorted, 50))}  p95 ${f(percentile(sorted, 95))}  max ${f(sorted.at(-1))}`,
      );
    });
    for (let j = 1; j < builds.length; j++) {
      console.log(`${"".padEnd(37)} p50 ${builds[j].label}/${builds[0].label} ${(p50s[j] / p50s[0]).toFixed(2)}×`);
    }
  }
} finally {
  rmSync(dataDir, { recursive: true, force: true });
}
