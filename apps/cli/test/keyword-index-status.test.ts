// `docdb index status` shows the keyword index beside a SQLite database: none below 20,000 chunks;
// above, a keyword find (the built CLI) builds it in the background and writes it before exiting.
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openDocDB, silentLogger } from "@docdb/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CLI, runCli } from "./run-cli.js";

const WORDS = "river bridge harbour lantern meadow orchard quarry saddle thimble velvet".split(" ");
let dataDir: string;

beforeAll(async () => {
  if (!existsSync(CLI)) throw new Error(`build the CLI first (pnpm build): ${CLI} is missing`);
  dataDir = mkdtempSync(join(tmpdir(), "docdb-cli-kwindex-"));
  const docdb = openDocDB({ dataDir, embedding: null, logger: silentLogger() });
  try {
    const small = await docdb.database("small", { create: true });
    await small.insertDocument({ text: "a river and a bridge" });
    const big = await docdb.database("big", { create: true });
    const texts = Array.from({ length: 20_100 }, (_, i) => ({ text: `${WORDS[i % 10]} ${WORDS[(i * 7) % 10]} passage ${i}` }));
    for (let i = 0; i < texts.length; i += 2000) await big.insertDocuments(texts.slice(i, i + 2000));
  } finally {
    await docdb.close();
  }
}, 300_000);
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

const docdb = (args: string[]) => runCli(["--data-dir", dataDir, ...args], { env: { DOCDB_EMBEDDING: "none" } });

type KeywordStatus = { state: string; chunks: number; threshold: number; rows: number; bytes: number; backlog: number };

async function keywordStatus(db: string): Promise<KeywordStatus> {
  const result = await docdb(["index", "status", "--db", db, "--json"]);
  if (result.code !== 0) throw new Error(`exit ${result.code}: ${result.stderr}`);
  return (JSON.parse(result.stdout) as { keyword: KeywordStatus }).keyword;
}

describe("docdb index status: the keyword index", () => {
  it("is none below the threshold (FTS5 answers alone)", async () => {
    expect(await keywordStatus("small")).toMatchObject({ state: "none", chunks: 1, threshold: 20000, rows: 0, bytes: 0 });
    const text = await docdb(["index", "status", "--db", "small"]);
    expect(text.stdout).toMatch(/^keyword index: none \(1 chunks, fewer than the threshold 20000\): FTS5 answers keyword finds alone$/m);
  });

  it("is built by the first keyword find above it, written to <name>.db.keywords, and then ready", { timeout: 300_000 }, async () => {
    expect((await keywordStatus("big")).state).toBe("missing");
    const found = await docdb(["find", "lantern meadow", "--db", "big", "--mode", "keyword", "--json"]);
    expect(found.code).toBe(0);
    expect(existsSync(join(dataDir, "big.db.keywords"))).toBe(true);
    const status = await keywordStatus("big");
    expect(status).toMatchObject({ state: "ready", chunks: 20100, rows: 20100, backlog: 0 });
    expect(status.bytes).toBeGreaterThan(0);
    const text = await docdb(["index", "status", "--db", "big"]);
    expect(text.stdout).toMatch(/^keyword index: ready: in step with the database$/m);
    expect(text.stdout).toMatch(/^keyword rows: 20100 {3}backlog: 0 log entries {3}file: .*big\.db\.keywords \(/m);
  });
});
