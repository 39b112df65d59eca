import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { type FakeOpenAI, startFakeOpenAI } from "../../../test/support/fake-openai.js";
import { type ProcessResult, runNode } from "../../../test/support/node-process.js";
import { CLI, runCli } from "./run-cli.js";

const MCP_PACKAGE = fileURLToPath(new URL("../../mcp-server/package.json", import.meta.url));
const MCP_BIN = fileURLToPath(new URL("../../mcp-server/dist/bin.js", import.meta.url));

let dataDir: string;
beforeAll(() => {
  if (!existsSync(CLI)) throw new Error(`build the CLI first (pnpm build): ${CLI} is missing`);
});
beforeEach(() => {
  dataDir = mkdtempSync(join(tmpdir(), "docdb-rough-"));
});
afterEach(() => rmSync(dataDir, { recursive: true, force: true }));

const docdb = (...args: string[]) => runCli(["--data-dir", join(dataDir, "data"), ...args]);

/** Runs the built docdb-mcp with arguments until it exits. */
function runMcp(args: string[]): Promise<ProcessResult> {
  return runNode(MCP_BIN, args, { env: { PATH: process.env.PATH ?? "", DOCDB_EMBEDDING: "none", DOCDB_LOG_LEVEL: "warn" } });
}

describe("rough edges a new user hits", () => {
  it('refuses --data-dir "" instead of writing into the current folder', async () => {
    const cwd = mkdtempSync(join(dataDir, "cwd-"));
    const result = await runCli(["--data-dir", "", "db", "create", "x"], { cwd });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^INVALID_REQUEST: --data-dir is empty/);
    expect(readdirSync(cwd)).toEqual([]);
  });

  it("refuses database names Windows reserves, names starting with a dash, and names differing only in case", async () => {
    const names = ["CON", "NUL", "COM1", "aux", "lpt9"];
    const results = await Promise.all(names.map((name) => docdb("db", "create", name)));
    results.forEach((result, i) => {
      expect(result.code, names[i]).toBe(2);
      expect(result.stderr, names[i]).toMatch(/^INVALID_REQUEST: invalid database name .*Windows reserves it/);
    });
    const dash = await docdb("insert", "--text", "x", "--db=-rf");
    expect(dash.code).toBe(2);
    expect(dash.stderr).toMatch(/^INVALID_REQUEST: invalid database name "-rf": it must not start with "-"/);

    expect((await docdb("db", "create", "vectors")).code).toBe(0);
    const twin = await docdb("db", "create", "VECTORS");
    expect(twin.code).toBe(1);
    expect(twin.stderr).toMatch(/^CONFLICT: database "vectors" exists, and names that differ only in case/);
    const insert = await docdb("insert", "--text", "x", "--db", "Vectors");
    expect(insert.stderr).toMatch(/^NOT_FOUND: database "vectors" exists, and names that differ only in case/);
    const created = await docdb("insert", "--text", "x", "--db", "Vectors", "--create");
    expect(created.stderr).toMatch(/^CONFLICT/);
    const list = await docdb("db", "ls", "--json");
    expect((JSON.parse(list.stdout) as { name: string }[]).map((d) => d.name)).toEqual(["vectors"]);
  });

  it("without a usable model an insert warns in one short line, not the model's whole help text", async () => {
    const empty = mkdtempSync(join(dataDir, "no-models-"));
    const result = await runCli(["--data-dir", dataDir, "insert", "--text", "東京は日本の首都です。"], {
      env: { DOCDB_EMBEDDING: "local", DOCDB_MODEL_DOWNLOAD: "0", DOCDB_MODEL_CACHE: empty, HF_HUB_CACHE: empty, HF_HOME: empty },
    });
    expect(result.code).toBe(0);
    const lines = result.stderr.trim().split("\n");
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^warning: stored without vectors \(local embedding model .* is not available/);
    expect(lines[0]).toContain("`docdb models` shows how to get one");
    expect(lines[0]).toContain("docdb embed --pending");
    expect(lines[0]).not.toContain("Ways out");
    expect((lines[0] as string).length).toBeLessThan(400);
  });

  it("refuses metadata numbers JSON cannot hold (1e309 is Infinity) instead of storing null", async () => {
    const result = await docdb("insert", "--text", "hello", "--meta", '{"a":1e309,"b":2}');
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^INVALID_REQUEST: metadata\.a is Infinity/);
    const nested = await docdb("insert", "--text", "hello", "--meta", '{"x":{"y":[1,-1e400]}}');
    expect(nested.stderr).toMatch(/^INVALID_REQUEST: metadata\.x\.y\[1\] is -Infinity/);
    expect((await docdb("insert", "--text", "hello", "--meta", '{"a":1e308}')).code).toBe(0);
  });

  it("stops reading at the size limit: insert /dev/zero ends at once", async () => {
    const started = Date.now();
    const result = await docdb("insert", "/dev/zero");
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^INVALID_REQUEST: \/dev\/zero has more than 100000 characters.*stopped reading/);
    expect(Date.now() - started).toBeLessThan(15_000);
    const big = join(dataDir, "big.txt");
    writeFileSync(big, "word ".repeat(30_000));
    expect((await docdb("insert", big)).stderr).toMatch(/more than 100000 characters/);
    const piped = await runCli(["--data-dir", join(dataDir, "data"), "insert", "-"], { input: "あ".repeat(100_001) });
    expect(piped.stderr).toMatch(/^INVALID_REQUEST: stdin has more than 100000 characters/);
    const fits = await runCli(["--data-dir", join(dataDir, "data"), "insert", "-"], { input: "あ".repeat(100_000) });
    expect(fits.code).toBe(0);
  });

  it("refuses a blank or spaced token, on docdb serve and docdb-mcp alike", async () => {
    const serve = await docdb("serve", "--http", "--port", "0", "--token", " ");
    expect(serve.code).toBe(2);
    expect(serve.stderr).toMatch(/^INVALID_REQUEST: --token must be a token without spaces/);
    const mcp = await runMcp(["--http", "--port", "0", "--token", " ", "--data-dir", join(dataDir, "data")]);
    expect(mcp.code).toBe(2);
    expect(mcp.stderr).toMatch(/^INVALID_REQUEST: --token must be a token without spaces/);
  });

  it("docdb-mcp and docdb serve take the same flags (one definition), --watch and --embedding included", async () => {
    const mcpHelp = (await runMcp(["--help"])).stdout;
    const serveHelp = (await runCli(["serve", "--help"])).stdout;
    const globalHelp = (await runCli(["--help"])).stdout;
    const flags = (text: string) => new Set([...text.matchAll(/--([a-z][a-z-]+)/g)].map((m) => m[1]));
    for (const flag of ["watch", "debounce", "embedding", "embedding-model", "model-dir", "data-dir", "store", "db", "http", "token"]) {
      expect(flags(mcpHelp), flag).toContain(flag);
      expect(new Set([...flags(serveHelp), ...flags(globalHelp)]), flag).toContain(flag);
    }
    const bad = await runMcp(["--embedding", "bogus"]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/^INVALID_REQUEST: --embedding="bogus" is not a provider/);
  });

  it("the docdb-mcp bin exists before a build, so pnpm install can link it without a warning", () => {
    const pkg = JSON.parse(readFileSync(MCP_PACKAGE, "utf8")) as { bin: Record<string, string> };
    const target = join(dirname(MCP_PACKAGE), pkg.bin["docdb-mcp"] as string);
    expect(target).not.toContain(`${join(dirname(MCP_PACKAGE), "dist")}`);
    expect(readFileSync(target, "utf8")).toMatch(/^#!\/usr\/bin\/env node\n[\s\S]*require\("\.\.\/dist\/bin\.js"\)/);
    // CommonJS, so Node starts it without its ES module loader; and it runs the built program.
    expect(target).toMatch(/\.cjs$/);
    expect(execFileSync(process.execPath, [target, "--version"], { encoding: "utf8" }).trim()).toMatch(/^\d+\.\d+\.\d+$/);
  });

  describe("with a provider that fails", () => {
    let openai: FakeOpenAI;
    beforeEach(async () => {
      openai = await startFakeOpenAI({ dimensions: 16 });
    });
    afterEach(async () => {
      await openai.close();
    });
    const env = () => ({
      DOCDB_EMBEDDING: "openai",
      OPENAI_API_KEY: "sk-test",
      OPENAI_BASE_URL: openai.url,
      DOCDB_EMBEDDING_DIMENSIONS: "16",
    });

    it("prints retry notices as plain lines when stderr is not a terminal", async () => {
      openai.failures.push({ status: 503, retryAfter: "0" });
      const result = await runCli(["--data-dir", join(dataDir, "data"), "insert", "--text", "hello"], { env: env() });
      expect(result.code).toBe(0);
      expect(result.stderr).toMatch(/^warning: embedding call failed; retrying \(provider openai, attempt 1, .*OpenAI API error 503/m);
      expect(result.stderr).not.toMatch(/"level"|^\{/m);
    });

    it("names a rate limit's status once, and the error code once", async () => {
      for (let i = 0; i < 5; i++) {
        openai.failures.push({ status: 429, retryAfter: "0", body: { error: { message: "Rate limit reached", type: "requests" } } });
      }
      const inserted = await runCli(["--data-dir", join(dataDir, "data"), "insert", "--text", "hello"], { env: env() });
      expect(inserted.stderr).toMatch(/^warning: stored without vectors \(OpenAI API error 429: Rate limit reached\)/m);
      expect(inserted.stderr).not.toMatch(/429: 429/);
      for (let i = 0; i < 5; i++) openai.failures.push({ status: 429, retryAfter: "0" });
      const embedded = await runCli(["--data-dir", join(dataDir, "data"), "embed", "--pending"], { env: env() });
      expect(embedded.code).toBe(1);
      expect(embedded.stderr).toMatch(
        /^EMBEDDING_UNAVAILABLE: embedding stopped after 0 of 1 pending chunks, 1 still pending: OpenAI API error 429/m,
      );
      expect(embedded.stderr).toMatch(/To fix: check that the OpenAI API \(or OPENAI_BASE_URL\) is reachable/);
      expect(embedded.stderr).not.toMatch(/EMBEDDING_UNAVAILABLE: .*EMBEDDING_UNAVAILABLE/);
    });
  });
});
