#!/usr/bin/env node
// Time from spawning the server to its first tools/list answer, the wait an agent sees
// when it starts docdb, and the CLI's start-up (`docdb --version`, a keyword `docdb find`).
// Usage: node apps/mcp-server/bench/startup.mjs [--runs N] [--baseline <repo>] [--only <text>]
// (or `pnpm bench:mcp`). Needs `pnpm build` first. Prints min / p50 / p95 / max per variant,
// and first the floor: a bare `node -e 0` started the same way.
// The servers start against a data folder whose default database exists (what an agent's
// config points at after the first insert), and once against an empty one.
// --baseline names another built checkout (e.g. `git worktree add /tmp/prev main`, install and
// build there): both are then measured in the same run, interleaved, so a busy machine weighs
// on both alike; the p50 ratio and the median of the paired differences are printed.
// NODE_EXTRA_CA_CERTS makes every Node process read that certificate file at start (+80 ms on a
// sandbox whose bundle holds ~150 certificates); the floor row shows what it costs.
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

/** Bare Node: spawn `node -e 0` and wait for it to exit. */
function bareNodeRun(env) {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, ["-e", "0"], { env, stdio: "ignore" });
    child.once("error", reject);
    child.once("exit", () => resolve(performance.now() - started));
  });
}

function percentile(sorted, p) {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

const variants = [
  { name: "node -e 0 (the floor)", run: (b) => bareNodeRun(b.env), once: true },
  { name: "docdb-mcp (stdio)", run: (b, dirs) => stdioRun([b.mcp], dirs.existing, b.env) },
  { name: "docdb-mcp (stdio, empty folder)", run: (b, dirs) => stdioRun([b.mcp], dirs.empty, b.env) },
  { name: "docdb serve (stdio)", run: (b, dirs) => stdioRun([b.cli, "serve"], dirs.existing, b.env) },
  { name: "docdb-mcp --http", run: (b, dirs) => httpRun([b.mcp], dirs.existing, b.env) },
  { name: "docdb --version", run: (b) => cliRun([b.cli, "--version"], b.env) },
  {
    name: "docdb find (keyword)",
    run: (b, dirs) => cliRun([b.cli, "--data-dir", dirs.existing, "find", "rotate tokens", "--mode", "keyword"], b.env),
  },
].filter((variant) => !values.only || variant.name.includes(values.only));

const dirs = { existing: mkdtempSync(join(tmpdir(), "docdb-bench-")), empty: mkdtempSync(join(tmpdir(), "docdb-bench-empty-")) };
try {
  // The default database with a few documents, written by the newest build.
  const last = build("this", ROOT).cli;
  for (let i = 0; i < 5; i++) {
    const text = `Note ${i}: how to rotate tokens for service ${i}, and what to do when a key leaks.`;
    execFileSync(process.execPath, [last, "--data-dir", dirs.existing, "insert", "--text", text], { env, stdio: "ignore" });
  }
  console.log(
    `process start → first tools/list answer (MCP) or exit (CLI), ${runs} runs each (after 1 warm-up)` +
      `${builds.length > 1 ? ", builds interleaved" : ""}, node ${process.version}, DOCDB_EMBEDDING=${env.DOCDB_EMBEDDING}` +
      `${process.env.NODE_EXTRA_CA_CERTS ? `, NODE_EXTRA_CA_CERTS=${process.env.NODE_EXTRA_CA_CERTS}` : ""}`,
  );
  const f = (ms) => `${ms.toFixed(0)} ms`.padStart(7);
  const median = (list) => [...list].sort((x, y) => x - y)[Math.floor(list.length / 2)];
  for (const variant of variants) {
    const measured = variant.once ? builds.slice(0, 1) : builds;
    for (const b of measured) await variant.run(b, dirs);
    const times = measured.map(() => []);
    for (let i = 0; i < runs; i++) {
      // Alternate which build goes first, so neither always runs on a warmer cache.
      const order = i % 2 === 0 ? measured.map((_, j) => j) : measured.map((_, j) => measured.length - 1 - j);
      for (const j of order) times[j].push(await variant.run(measured[j], dirs));
    }
    const p50s = [];
    measured.forEach((b, j) => {
      const sorted = [...times[j]].sort((x, y) => x - y);
      p50s.push(percentile(sorted, 50));
      const name = measured.length > 1 ? `${variant.name} [${b.label}]` : variant.name;
      console.log(
        `${name.padEnd(40)} min ${f(sorted[0])}  p50 ${f(percentile(sorted, 50))}  p95 ${f(percentile(sorted, 95))}  max ${f(sorted.at(-1))}`,
      );
    });
    for (let j = 1; j < measured.length; j++) {
      const paired = median(times[j].map((ms, i) => ms - times[0][i]));
      console.log(
        `${"".padEnd(40)} p50 ${measured[j].label}/${measured[0].label} ${(p50s[j] / p50s[0]).toFixed(2)}×, paired difference ${paired >= 0 ? "+" : ""}${paired.toFixed(0)} ms`,
      );
    }
  }
} finally {
  rmSync(dirs.existing, { recursive: true, force: true });
  rmSync(dirs.empty, { recursive: true, force: true });
}
