import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { type FakeOpenAI, startFakeOpenAI } from "../../../test/support/fake-openai.js";
import { CLI, runCli } from "./run-cli.js";

let dataDir: string;
beforeAll(() => {
  if (!existsSync(CLI)) throw new Error(`build the CLI first (pnpm build): ${CLI} is missing`);
});
beforeEach(() => {
  dataDir = mkdtempSync(join(tmpdir(), "docdb-cli-"));
});
afterEach(() => rmSync(dataDir, { recursive: true, force: true }));

const docdb = (...args: string[]) => runCli(["--data-dir", dataDir, ...args]);

describe("docdb CLI (built binary)", () => {
  it("insert → find (Japanese keyword) → delete → find no longer returns it", async () => {
    const file = join(dataDir, "kyoto.txt");
    writeFileSync(
      file,
      "京都は千年以上にわたり日本の都でした。金閣寺や清水寺など多くの寺院があります。\r\n紅葉の季節には多くの観光客が訪れます。",
    );
    const inserted = await docdb("insert", file, "--meta", '{"lang":"ja"}', "--title", "京都", "--json");
    expect(inserted.code).toBe(0);
    const { doc_id, chunk_count, embedded } = JSON.parse(inserted.stdout) as { doc_id: string; chunk_count: number; embedded: boolean };
    expect(chunk_count).toBe(1);
    expect(embedded).toBe(false);
    expect(inserted.stderr).toMatch(/warning: stored without vectors/);

    await docdb("insert", "--text", "大阪は商人の町として発展しました。", "--json");
    const found = await docdb("find", "清水寺がある都", "--mode", "keyword", "--json");
    expect(found.code).toBe(0);
    const results = JSON.parse(found.stdout) as {
      doc_id: string;
      text: string;
      score: number;
      start: number;
      end: number;
      metadata: unknown;
    }[];
    expect(results[0]).toMatchObject({ doc_id, metadata: { lang: "ja" }, start: 0 });
    expect(results[0]?.text).toContain("清水寺");
    expect(Object.keys(results[0]!)).toEqual(expect.arrayContaining(["chunk_id", "doc_id", "text", "score", "start", "end", "metadata"]));

    const human = await docdb("find", "清水寺", "--mode", "keyword");
    expect(human.stdout).toMatch(/^1\. score/);
    expect(human.stdout).toContain(doc_id);

    const got = await docdb("get", doc_id, "--json");
    expect(JSON.parse(got.stdout)).toMatchObject({ doc_id, title: "京都", metadata: { lang: "ja" } });

    const deleted = await docdb("delete", doc_id, "--json");
    expect(deleted.code).toBe(0);
    expect(JSON.parse(deleted.stdout)).toEqual({ deleted_chunks: 1 });

    const after = await docdb("find", "清水寺がある都", "--mode", "keyword", "--json");
    expect((JSON.parse(after.stdout) as { doc_id: string }[]).map((r) => r.doc_id)).not.toContain(doc_id);
  });

  it("delete of an unknown id exits non-zero with NOT_FOUND and nothing on stdout (with --json: the error as JSON)", async () => {
    await docdb("db", "create", "vectors");
    const result = await docdb("delete", "01J0000000000000000000000");
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^NOT_FOUND: /);
    expect(result.stdout).toBe("");
    const asJson = await docdb("delete", "01J0000000000000000000000", "--json");
    expect(asJson.code).toBe(1);
    expect(JSON.parse(asJson.stdout)).toMatchObject({ error: { code: "NOT_FOUND" } });
  });

  it("insert of empty text or 100,001 characters exits non-zero with INVALID_REQUEST", async () => {
    for (const args of [
      ["--text", ""],
      ["--text", "   \n "],
    ]) {
      const result = await docdb("insert", ...args);
      expect(result.code).toBe(2);
      expect(result.stderr).toMatch(/^INVALID_REQUEST: .*empty/);
      expect(result.stdout).toBe("");
    }
    const big = join(dataDir, "big.txt");
    writeFileSync(big, "あ".repeat(100_001));
    const tooBig = await docdb("insert", big, "--json");
    expect(tooBig.code).toBe(2);
    expect(tooBig.stderr).toBe("");
    expect(JSON.parse(tooBig.stdout).error.message).toMatch(/big\.txt has more than 100000 characters, the limit for one document/);
    // Nothing was stored by the failed attempts.
    const status = await docdb("status", "--json");
    expect(JSON.parse(status.stdout).databases.every((d: { documents: number }) => d.documents === 0)).toBe(true);
    // The ICU words addon, built at install, is what the bundled program segments words with.
    expect(JSON.parse(status.stdout).word_segmentation).toEqual({ source: "icu-words addon", reason: "loaded" });
  });

  it("refuses --db ../x and creates no file outside the data folder", async () => {
    for (const command of [
      ["insert", "--text", "hi"],
      ["find", "hi"],
      ["db", "create", "../x"],
    ]) {
      const args = command[0] === "db" ? command : [...command, "--db", "../x"];
      const result = await docdb(...args);
      expect(result.code).not.toBe(0);
      expect(result.stderr).toMatch(/^INVALID_REQUEST: invalid database name/);
    }
    expect(existsSync(join(dataDir, "..", "x.db"))).toBe(false);
  });

  it("db create/list, stdin insert, bad --meta and unknown --mode", async () => {
    const created = await docdb("db", "create", "notes", "--json");
    expect(JSON.parse(created.stdout)).toEqual({ success: true, location: join(dataDir, "notes.db"), created: true });
    const piped = await runCli(["--data-dir", dataDir, "insert", "-", "--db", "notes", "--json"], { input: "標準入力からの文書です。" });
    expect(piped.code).toBe(0);
    const list = JSON.parse((await docdb("db", "list", "--json")).stdout) as { name: string; documents: number; pending: number }[];
    expect(list).toEqual([expect.objectContaining({ name: "notes", documents: 1, pending: 1 })]);
    // Beside the database: the location's server database, holding the audit trail of these writes.
    expect(readdirSync(dataDir).filter((f) => f.endsWith(".db"))).toEqual(["_docdb.db", "notes.db"]);

    const badMeta = await docdb("insert", "--text", "x", "--meta", "{nope", "--db", "notes");
    expect(badMeta.code).not.toBe(0);
    expect(badMeta.stderr).toMatch(/^INVALID_REQUEST: --meta is not valid JSON/);
    const badMode = await docdb("find", "x", "--mode", "fuzzy", "--db", "notes");
    expect(badMode.stderr).toMatch(/^INVALID_REQUEST: --mode must be one of hybrid, vector, keyword/);
    const missingFile = await docdb("insert", join(dataDir, "nope.txt"));
    expect(missingFile.stderr).toMatch(/^NOT_FOUND: cannot read/);
  });

  it("find on a database that does not exist says how to create it", async () => {
    const result = await docdb("find", "x", "--db", "ghost");
    expect(result.code).not.toBe(0);
    expect(result.stderr).toMatch(/^NOT_FOUND: database "ghost" does not exist.*docdb db create ghost/);
  });

  it("--help lists the commands", async () => {
    const help = await runCli(["--help"]);
    expect(help.code).toBe(0);
    for (const command of ["insert", "find", "get", "delete", "db", "status"]) expect(help.stdout).toContain(command);
  });
});

describe("docdb CLI with OpenAI (local fake server)", () => {
  let server: FakeOpenAI;
  beforeAll(async () => {
    server = await startFakeOpenAI();
  });
  afterAll(async () => {
    await server.close();
  });

  it("embeds on insert and finds by vector with distances", async () => {
    const env = { DOCDB_EMBEDDING: undefined, OPENAI_API_KEY: "sk-test", OPENAI_BASE_URL: server.url };
    const inserted = await runCli(["--data-dir", dataDir, "insert", "--text", "北海道の冬はとても寒いです。", "--json"], { env });
    expect(JSON.parse(inserted.stdout)).toMatchObject({ embedded: true, chunk_count: 1 });
    expect(inserted.stderr).toBe("");
    const found = await runCli(["--data-dir", dataDir, "find", "北海道の冬", "--mode", "vector", "--json"], { env });
    const [first] = JSON.parse(found.stdout) as { distance: number; score: number }[];
    expect(first?.distance).toBeGreaterThanOrEqual(0);
    expect(first?.score).toBeCloseTo(1 - first!.distance, 6);
  });
});
