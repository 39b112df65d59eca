// Deadlines that hold: with an embedding provider that never answers, and one that sends its
// headers and then stalls the body, insert, import and embed --pending each end by their deadline.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ProcessResult, startNode } from "../../../test/support/node-process.js";
import { type Stall, type StallingServer, startStallingServer } from "../../../test/support/stalling-server.js";
import { CLI } from "./run-cli.js";

/** Well past every deadline below (300 ms), far short of the minutes a missing deadline takes. */
const GIVE_UP_MS = 30_000;

let scratch: string;
beforeAll(() => {
  scratch = mkdtempSync(join(tmpdir(), "docdb-cli-deadlines-"));
});
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

type Provider = "openai" | "ollama";

function providerEnv(provider: Provider, url: string): Record<string, string> {
  return provider === "openai"
    ? { DOCDB_EMBEDDING: "openai", OPENAI_API_KEY: "sk-test", OPENAI_BASE_URL: `${url}/v1`, DOCDB_EMBEDDING_DIMENSIONS: "32" }
    : { DOCDB_EMBEDDING: "ollama", DOCDB_OLLAMA_URL: url, DOCDB_EMBEDDING_MODEL: "all-minilm" };
}

/** The CLI run to its end, killed (and the test failed) if it is still running after GIVE_UP_MS. */
async function docdb(args: string[], env: Record<string, string>): Promise<ProcessResult> {
  const started = startNode(CLI, args, {
    env: { ...process.env, DOCDB_LOG_LEVEL: "warn", DOCDB_EMBED_DEADLINE_MS: "300", DOCDB_EMBED_BATCH_DEADLINE_MS: "300", ...env },
    input: "",
  });
  let killed = false;
  const timer = setTimeout(() => {
    killed = true;
    started.child.kill("SIGKILL");
  }, GIVE_UP_MS);
  try {
    const result = await started.done;
    expect(killed, `docdb ${args.join(" ")} was still running after ${GIVE_UP_MS} ms`).toBe(false);
    return result;
  } finally {
    clearTimeout(timer);
  }
}

const cases: [Provider, Stall][] = [
  ["openai", "silent"],
  ["openai", "after-headers"],
  ["ollama", "silent"],
  ["ollama", "after-headers"],
];

describe.each(cases)("a %s provider that is %s", (provider, stall) => {
  let server: StallingServer;
  let dataDir: string;
  let env: Record<string, string>;
  beforeAll(async () => {
    server = await startStallingServer(stall);
    dataDir = mkdtempSync(join(scratch, "data-"));
    env = providerEnv(provider, server.url);
  });
  afterAll(() => server.close());

  it("insert stores the document pending, within the deadline, and says so", async () => {
    const result = await docdb(
      ["--data-dir", dataDir, "insert", "--text", "Tide tables for the northern harbour.", "--create", "--json"],
      env,
    );
    expect(result.code, result.stderr).toBe(0);
    const inserted = JSON.parse(result.stdout) as { embedded: boolean };
    expect(inserted.embedded).toBe(false);
    // The warning goes to stderr (stdout holds the JSON).
    expect(result.stderr).toMatch(/stored without vectors \(.*did not answer within 0\.3 s/);
    expect(server.received).toBeGreaterThan(0);
  });

  it("import stores the files with their chunks pending, within the deadline, and says so", async () => {
    const folder = join(scratch, `files-${provider}-${stall}`);
    mkdirSync(folder, { recursive: true });
    writeFileSync(join(folder, "a.md"), "# Harbour\n\nThe harbour master keeps the tide tables.\n");
    writeFileSync(join(folder, "b.md"), "# Lighthouse\n\nThe keeper logs every ship that passes.\n");
    expect((await docdb(["--data-dir", dataDir, "collection", "add", "-n", "port", "-d", "port notes", "-s", folder], env)).code).toBe(0);
    const result = await docdb(["--data-dir", dataDir, "import", "-n", "port", "--json"], env);
    expect(result.code, result.stderr).toBe(0);
    const summary = JSON.parse(result.stdout) as { added: number; embedded: number; pending: number; warnings: string[] };
    expect(summary).toMatchObject({ added: 2, embedded: 0 });
    expect(summary.pending).toBeGreaterThanOrEqual(2);
    expect(summary.warnings.join(" ")).toMatch(
      /the files are stored and keyword-searchable, but embedding stopped after 0 of \d+ pending chunks/,
    );
    expect(summary.warnings.join(" ")).toMatch(/did not answer within 0\.3 s/);
    // Nothing lost: both files are found by keywords.
    const found = await docdb(["--data-dir", dataDir, "find", "tide tables", "--mode", "keyword", "--json"], env);
    expect(found.code, found.stderr).toBe(0);
    expect(found.stdout).toContain("harbour master");
  });

  it("embed --pending stops at the deadline with a clear error naming what is still pending", async () => {
    const result = await docdb(["--data-dir", dataDir, "embed", "--pending"], env);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(
      /EMBEDDING_UNAVAILABLE: embedding stopped after 0 of (\d+) pending chunks, \1 still pending: .*did not answer within 0\.3 s/,
    );
    expect(result.stderr).toMatch(/docdb embed --pending/);
  });
});
