// Every package as a user gets it: packed with `pnpm pack`, installed with npm into a fresh
// project outside this repository (no workspace, no links), then used there — the core README
// example run and type-checked, every public entry imported and type-checked with
// `skipLibCheck: false`, and the installed `docdb` / `docdb-mcp` bins run. One npm install
// (better-sqlite3 compiles from source here: a minute or two), shared by the tests below.
import { execFile, execFileSync, spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join, relative } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL("..", import.meta.url));
const TSC = join(ROOT, "node_modules/typescript/bin/tsc");

interface Manifest {
  name: string;
  version: string;
  private?: boolean;
  bin?: Record<string, string>;
  scripts?: Record<string, string>;
  dependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
}
const readJson = <T>(file: string) => JSON.parse(readFileSync(file, "utf8")) as T;

/** The workspace's packages (pnpm-workspace.yaml: packages/*, apps/*), each with its folder. */
const PACKAGES = ["packages", "apps"].flatMap((group) =>
  readdirSync(join(ROOT, group))
    .map((name) => join(ROOT, group, name))
    .filter((dir) => existsSync(join(dir, "package.json")))
    .map((dir) => ({ dir, manifest: readJson<Manifest>(join(dir, "package.json")) }))
    .filter(({ manifest }) => !manifest.private),
);

/** Every public entry point a consumer may import (the contract suite needs vitest, an optional peer). */
const ENTRIES = [
  "@docdb/analyzer",
  "@docdb/chunker",
  "@docdb/core",
  "@docdb/embed",
  "@docdb/eval",
  "@docdb/icu-words",
  "@docdb/store",
  "@docdb/store-postgres",
  "@docdb/store-sqlite",
  "@docdb/mcp-server",
  "@docdb/mcp-server/flags",
  "@docdb/mcp-server/serve",
  "@docdb/mcp-server/ui",
];

/** The environment of a user's shell: nothing from the pnpm/vitest run or a docdb setting of this machine. */
function userEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env = Object.fromEntries(
    Object.entries(process.env).filter(([key]) => !/^(npm_|pnpm_|DOCDB_|INIT_CWD$|NODE_OPTIONS$|VITEST)/i.test(key)),
  );
  return { ...env, ...extra };
}

/** All files below `dir`, relative to it. */
function listFiles(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => relative(dir, join(entry.parentPath, entry.name)))
    .sort();
}

/**
 * better-sqlite3's install (prebuild-install) downloads a prebuilt addon, which this network
 * cannot reach, and then compiles one (minutes on a busy 2-core machine). A user's machine gets
 * the download; here prebuild-install finds the same archive in a local folder, made from the
 * addon this repository's install already built (same Node, same machine). When there is no such
 * addon, or npm picks another version, the install compiles as before.
 */
function betterSqlitePrebuild(dir: string): Record<string, string> {
  const packageDir = dirname(createRequire(join(ROOT, "packages/store-sqlite/package.json")).resolve("better-sqlite3/package.json"));
  const addon = "build/Release/better_sqlite3.node";
  if (!existsSync(join(packageDir, addon))) return {};
  const { version } = readJson<Manifest>(join(packageDir, "package.json"));
  const folder = join(dir, "prebuilds");
  mkdirSync(folder, { recursive: true });
  const archive = `better-sqlite3-v${version}-node-v${process.versions.modules}-${process.platform}-${process.arch}.tar.gz`;
  execFileSync("tar", ["-czf", join(folder, archive), "-C", packageDir, addon]);
  return { npm_config_better_sqlite3_local_prebuilds: folder };
}

let base: string;
let project: string;
let home: string;
const installed = (name: string) => join(project, "node_modules", name);

beforeAll(async () => {
  base = mkdtempSync(join(tmpdir(), "docdb-packages-"));
  const packs = join(base, "packs");
  project = join(base, "consumer");
  home = join(base, "home");
  for (const dir of [packs, project, home]) mkdirSync(dir);
  for (const { dir, manifest } of PACKAGES) {
    // A package without a build (the ICU addon compiles at install) has no dist/ to check.
    if (manifest.scripts?.build && !existsSync(join(dir, "dist"))) throw new Error(`${manifest.name} is not built: run pnpm build first`);
  }
  await run("pnpm", ["-r", "pack", "--pack-destination", packs], { cwd: ROOT, env: userEnv() });
  writeFileSync(join(project, "package.json"), `${JSON.stringify({ name: "consumer", private: true, type: "module" }, null, 2)}\n`);
  // @types/node as a TypeScript user has it (the version this repo builds with, likely in npm's cache).
  const typesNode = readJson<Manifest>(join(ROOT, "node_modules/@types/node/package.json")).version;
  const tarballs = readdirSync(packs).map((file) => join(packs, file));
  await run(
    "npm",
    ["install", "--prefer-offline", "--no-audit", "--no-fund", "--loglevel=error", `@types/node@${typesNode}`, ...tarballs],
    {
      cwd: project,
      // onnxruntime-node's install script would download CUDA binaries docdb never uses.
      env: userEnv({ ONNXRUNTIME_NODE_INSTALL: "skip", ONNXRUNTIME_NODE_INSTALL_CUDA: "skip", ...betterSqlitePrebuild(base) }),
      maxBuffer: 1 << 26,
    },
  );
}, 600_000);

afterAll(() => {
  if (base) rmSync(base, { recursive: true, force: true });
});

/** A process in the consumer project, as its user would run it; fails the test on a non-zero exit. */
async function inProject(command: string, args: string[], options: { cwd?: string; env?: Record<string, string> } = {}) {
  const env = userEnv({ HOME: home, DOCDB_HOME: home, DOCDB_EMBEDDING: "none", ...options.env });
  try {
    return await run(command, args, { cwd: options.cwd ?? project, env, maxBuffer: 1 << 24 });
  } catch (error) {
    const { stdout, stderr } = error as { stdout?: string; stderr?: string };
    throw new Error(`${command} ${args.join(" ")} failed: ${(error as Error).message}\n${stdout ?? ""}\n${stderr ?? ""}`);
  }
}

describe("every package, packed and installed with npm in a project outside the repository", () => {
  it("installs each package with its workspace dependencies as versions and every file its build made", () => {
    expect(PACKAGES.map((p) => p.manifest.name).sort()).toEqual(expect.arrayContaining(["@docdb/cli", "@docdb/core", "@docdb/mcp-server"]));
    for (const { dir, manifest } of PACKAGES) {
      const target = installed(manifest.name);
      const packed = readJson<Manifest>(join(target, "package.json"));
      expect(JSON.stringify(packed), manifest.name).not.toContain("workspace:");
      for (const [name, range] of Object.entries({ ...packed.dependencies, ...packed.peerDependencies })) {
        if (name.startsWith("@docdb/")) expect(range, `${manifest.name} -> ${name}`).toBe(manifest.version);
      }
      // Whatever dist/ holds at run time (worker scripts, SQL child, migrations, tool descriptors)
      // ships, and so do the engines' migrations/ folders.
      for (const folder of ["dist", "migrations"].filter((f) => existsSync(join(dir, f)))) {
        expect(listFiles(join(target, folder)), `${manifest.name}/${folder}`).toEqual(listFiles(join(dir, folder)));
      }
      for (const bin of Object.values(manifest.bin ?? {})) expect(existsSync(join(target, bin)), `${manifest.name} bin ${bin}`).toBe(true);
    }
  });

  it("runs the @docdb/core README example as written, printing what its comments say", async () => {
    const block = /```ts\n([\s\S]*?)```/.exec(readFileSync(join(ROOT, "packages/core/README.md"), "utf8"))?.[1] as string;
    expect(block).toContain('from "@docdb/core"');
    writeFileSync(join(project, "example.mjs"), block);
    const { stdout, stderr } = await inProject(process.execPath, ["example.mjs"], { env: { DOCDB_LOG_LEVEL: "warn" } });
    expect(stderr).toBe("");
    const expected = [...block.matchAll(/console\.log\(.*\); \/\/ (.*)$/gm)].map((m) => m[1]);
    expect(expected.length).toBeGreaterThan(0);
    expect(stdout.trim().split("\n")).toEqual(expected);
  });

  it("imports every public entry point at run time", async () => {
    const script = `for (const entry of ${JSON.stringify(ENTRIES)}) { const m = await import(entry); if (Object.keys(m).length === 0) throw new Error(entry + " exports nothing"); }`;
    await inProject(process.execPath, ["--input-type=module", "-e", script]);
  });

  it("builds the ICU words addon at install, and the installed analyzer uses it", async () => {
    const script = 'const a = await import("@docdb/analyzer"); console.log(JSON.stringify(a.nativeWordsStatus()));';
    const { stdout } = await inProject(process.execPath, ["--input-type=module", "-e", script]);
    expect(JSON.parse(stdout)).toEqual({ active: true, reason: "loaded" });
  });

  it("type-checks the README example and a consumer of every public entry with skipLibCheck: false", async () => {
    const block = /```ts\n([\s\S]*?)```/.exec(readFileSync(join(ROOT, "packages/core/README.md"), "utf8"))?.[1] as string;
    writeFileSync(join(project, "example.mts"), block);
    const consumer = [
      ...ENTRIES.map((entry, i) => `import * as entry${i} from "${entry}";`),
      'import { openDocDB, type FindResult } from "@docdb/core";',
      'import { LocalEmbeddingModel, type EmbeddingModel } from "@docdb/embed";',
      'import type { StoreEngine } from "@docdb/store";',
      'import { createSqliteEngine } from "@docdb/store-sqlite";',
      "",
      "const model: EmbeddingModel = new LocalEmbeddingModel({ modelDir: './models' });",
      "const engine: StoreEngine = createSqliteEngine({ dataDir: './data' });",
      "const found: FindResult = await (await openDocDB({ embedding: model }).database('notes')).findSimilar({ query: 'q' });",
      `export const all = [engine, found, ${ENTRIES.map((_, i) => `entry${i}`).join(", ")}];`,
    ].join("\n");
    writeFileSync(join(project, "consumer.mts"), `${consumer}\n`);
    const compilerOptions = { target: "es2022", module: "nodenext", strict: true, noEmit: true, skipLibCheck: false, types: ["node"] };
    writeFileSync(join(project, "tsconfig.json"), JSON.stringify({ compilerOptions, files: ["example.mts", "consumer.mts"] }));
    const check = await run(process.execPath, [TSC, "-p", "."], { cwd: project, env: userEnv() }).catch((error: { stdout?: string }) => ({
      stdout: error.stdout ?? String(error),
      failed: true,
    }));
    expect(check.stdout).toBe("");
  });

  it("docdb from the installed bin: --version, insert a file by a path relative to where it runs, find it, SQL, code", async () => {
    const bin = join(project, "node_modules/.bin/docdb");
    const data = join(base, "data");
    const version = await inProject(bin, ["--version"]);
    expect(version.stdout.trim()).toBe(readJson<Manifest>(join(ROOT, "apps/cli/package.json")).version);
    const notes = join(project, "notes");
    mkdirSync(join(notes, "src"), { recursive: true });
    writeFileSync(join(notes, "tokyo.md"), "# Tokyo\n\nTokyo is the capital of Japan, with about 14 million people.\n");
    writeFileSync(
      join(notes, "src/greet.ts"),
      '/** Says hello to someone by name. */\nexport function greetVisitor(name: string): string {\n  return "hello " + name;\n}\n',
    );
    const env = { DOCDB_DATA_DIR: data };
    const inserted = JSON.parse((await inProject(bin, ["insert", "./tokyo.md", "--json"], { cwd: notes, env })).stdout) as {
      doc_id: string;
    };
    const found = JSON.parse((await inProject(bin, ["find", "capital of Japan", "--json"], { cwd: notes, env })).stdout) as {
      doc_id: string;
      text: string;
    }[];
    expect(found[0]?.doc_id).toBe(inserted.doc_id);
    expect(found[0]?.text).toContain("14 million");
    // The SQL reader runs as a child process from the package's own files.
    const sql = await inProject(bin, ["sql", "SELECT count(*) AS docs FROM documents_v", "--json"], { cwd: notes, env });
    expect(JSON.parse(sql.stdout)).toMatchObject({ columns: ["docs"], rows: [[1]] });
    // Code goes through the tree-sitter grammars the package depends on.
    await inProject(bin, ["collection", "add", "-n", "code", "-d", "example code", "-s", "./src"], { cwd: notes, env });
    await inProject(bin, ["import", "-n", "code"], { cwd: notes, env });
    const code = JSON.parse((await inProject(bin, ["find", "greetVisitor", "--json"], { cwd: notes, env })).stdout) as {
      language?: string;
      symbol?: string;
    }[];
    expect(code[0]).toMatchObject({ language: "typescript", symbol: "greetVisitor" });
  });

  it("docdb install writes an MCP config whose command starts the installed server; the CLI's docdb-mcp bin runs it too", async () => {
    const data = join(base, "mcp-data");
    await inProject(join(project, "node_modules/.bin/docdb"), ["install", "claude-code", "--data-dir", data]);
    const config = readJson<{ mcpServers: { docdb: { command: string; args: string[]; env?: Record<string, string> } } }>(
      join(project, ".mcp.json"),
    ).mcpServers.docdb;
    expect(config.args.join(" ")).toContain(join(project, "node_modules"));
    expect(await listTools(config.command, config.args, config.env)).toContain("find_similar_documents");
    const cliManifest = readJson<Manifest>(join(installed("@docdb/cli"), "package.json"));
    expect(cliManifest.bin, "@docdb/cli's bins").toHaveProperty("docdb-mcp");
    const cliBin = join(installed("@docdb/cli"), cliManifest.bin?.["docdb-mcp"] as string);
    expect(await listTools(process.execPath, [cliBin, "--data-dir", data])).toContain("find_similar_documents");
  });
});

/** Starts an MCP server over stdio the way a client does: initialize, then tools/list; its tool names. */
async function listTools(command: string, args: string[], env: Record<string, string> = {}): Promise<string[]> {
  const child = spawn(command, args, {
    cwd: tmpdir(),
    env: userEnv({ HOME: home, DOCDB_EMBEDDING: "none", ...env }),
    stdio: ["pipe", "pipe", "pipe"],
  });
  let stderr = "";
  child.stderr.setEncoding("utf8").on("data", (d: string) => {
    stderr += d;
  });
  try {
    return await new Promise<string[]>((resolve, reject) => {
      child.on("error", reject);
      child.on("exit", (code) => reject(new Error(`${command} ${args.join(" ")} exited with ${code} before listing tools: ${stderr}`)));
      createInterface({ input: child.stdout }).on("line", (line) => {
        const message = JSON.parse(line) as { id?: string; result?: { tools?: { name: string }[] } };
        if (message.id === "init") {
          child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" })}\n`);
          child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", id: "list", method: "tools/list" })}\n`);
        }
        if (message.id === "list") resolve((message.result?.tools ?? []).map((tool) => tool.name));
      });
      const params = { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "packages-test", version: "0" } };
      child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", id: "init", method: "initialize", params })}\n`);
    });
  } finally {
    child.kill();
  }
}
