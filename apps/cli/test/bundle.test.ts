import { isAscii } from "node:buffer";
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "./run-cli.js";

const DIST = fileURLToPath(new URL("../dist", import.meta.url));
const APP_MODULES = fileURLToPath(new URL("../node_modules", import.meta.url));

// The built `docdb` is a launcher (dist/index.js) and one bundle (dist/docdb.cjs) with the SQL
// migrations beside it; only native and heavy packages stay outside (scripts/tsup-bundle.ts).
let root: string;
let bin: string;
beforeAll(() => {
  if (!existsSync(join(DIST, "index.js"))) throw new Error(`build the CLI first (pnpm build): ${DIST} is missing`);
  // A copy of dist outside the repository, with only the external packages to resolve: no
  // workspace package and no repository migrations folder within reach.
  root = mkdtempSync(join(tmpdir(), "docdb-bundle-"));
  cpSync(DIST, join(root, "dist"), { recursive: true });
  writeFileSync(join(root, "package.json"), '{ "type": "module" }\n');
  mkdirSync(join(root, "node_modules"));
  for (const name of ["better-sqlite3", "sqlite-vec"]) symlinkSync(join(APP_MODULES, name), join(root, "node_modules", name), "dir");
  bin = join(root, "dist", "index.js");
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe("the bundled docdb", () => {
  it("runs from a copy outside the repository: migrations beside the bundle, workspace packages inside it", async () => {
    const dataDir = join(root, "data");
    const env = { DOCDB_COMPILE_CACHE: join(root, "cache") };
    const inserted = await runCli(["--data-dir", dataDir, "insert", "--text", "Rotate the signing keys every quarter.", "--json"], {
      bin,
      env,
    });
    expect(inserted.stderr).not.toMatch(/migrations not found/);
    expect(inserted.code).toBe(0);
    const found = await runCli(["--data-dir", dataDir, "find", "signing keys", "--mode", "keyword", "--json"], { bin, env });
    expect(found.code).toBe(0);
    expect(JSON.parse(found.stdout)).toHaveLength(1);
  });

  it("writes a V8 code cache, uses it, and shrugs off a damaged one", async () => {
    const cache = join(root, "cache-test");
    const env = { DOCDB_COMPILE_CACHE: cache };
    const first = await runCli(["--version"], { bin, env });
    expect(first.code).toBe(0);
    const files = readdirSync(cache).filter((name) => name.endsWith(".v8"));
    expect(files).toHaveLength(1);
    const again = await runCli(["--version"], { bin, env });
    expect(again).toMatchObject({ code: 0, stdout: first.stdout });

    writeFileSync(join(cache, files[0]!), "not a V8 code cache");
    const damaged = await runCli(["--version"], { bin, env });
    expect(damaged).toMatchObject({ code: 0, stdout: first.stdout, stderr: "" });

    const off = await runCli(["--version"], { bin, env: { DOCDB_COMPILE_CACHE: "0" } });
    expect(off).toMatchObject({ code: 0, stdout: first.stdout });
  });

  it("keeps the MCP server's cache apart from the other commands' (each holds what its first run compiled)", async () => {
    const cache = join(root, "cache-roles");
    const env = { DOCDB_COMPILE_CACHE: cache };
    expect(await runCli(["--version"], { bin, env })).toMatchObject({ code: 0 });
    const initialize = { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "bundle-test", version: "0" } };
    const served = await runCli(["--data-dir", join(root, "data-roles"), "serve"], {
      bin,
      env,
      input: `${JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: initialize })}\n`,
    });
    expect(served.code).toBe(0);
    expect(JSON.parse(served.stdout.split("\n")[0] ?? "")).toMatchObject({ id: 1, result: { serverInfo: { name: "docdb" } } });
    const files = readdirSync(cache).filter((name) => name.endsWith(".v8"));
    expect(files).toHaveLength(2);
    expect(files.filter((name) => name.startsWith("docdb.cjs-serve-"))).toHaveLength(1);
  });

  it("writing a cache removes this bundle's caches left unused for a week, and nothing else", async () => {
    const cache = join(root, "cache-prune");
    mkdirSync(cache);
    const weeksAgo = new Date(Date.now() - 10 * 24 * 3600 * 1000);
    const dayAgo = new Date(Date.now() - 24 * 3600 * 1000);
    const files = { stale: "docdb.cjs-0badcafe.v8", recent: "docdb.cjs-0000beef.v8", other: "docdb-mcp.cjs-0badcafe.v8" };
    for (const name of Object.values(files)) writeFileSync(join(cache, name), "an older build's cache");
    utimesSync(join(cache, files.stale), weeksAgo, weeksAgo);
    utimesSync(join(cache, files.other), weeksAgo, weeksAgo);
    utimesSync(join(cache, files.recent), dayAgo, dayAgo);
    expect(await runCli(["--version"], { bin, env: { DOCDB_COMPILE_CACHE: cache } })).toMatchObject({ code: 0 });
    const left = readdirSync(cache);
    expect(left).not.toContain(files.stale);
    expect(left).toEqual(expect.arrayContaining([files.recent, files.other]));
    expect(left.filter((name) => name.startsWith("docdb.cjs-"))).toHaveLength(2);
  });

  it("is pure ASCII, so the launcher reads it as a one-byte string (both programs)", () => {
    for (const file of [join(DIST, "docdb.cjs"), fileURLToPath(new URL("../../mcp-server/dist/docdb-mcp.cjs", import.meta.url))]) {
      expect(isAscii(readFileSync(file)), file).toBe(true);
    }
  });
});
