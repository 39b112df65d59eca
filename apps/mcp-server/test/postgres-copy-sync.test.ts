import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Store, StoreEngine } from "@docdb/store";
import { createPostgresEngine } from "@docdb/store-postgres";
import { createSqliteEngine } from "@docdb/store-sqlite";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { type PgliteServer, startPgliteServer } from "../../../packages/store-postgres/test/support/pglite-server.js";
import { type FakeOpenAI, startFakeOpenAI } from "../../../test/support/fake-openai.js";
import { storeContentHash } from "../../../test/support/store-hash.js";
import { runCli } from "../../cli/test/run-cli.js";
import { assertBuilt, CLI } from "./support/server-process.js";

// `docdb copy` SQLite → PostgreSQL (PGlite over TCP) into an existing target: the second copy
// brings over what changed, the target then equals the source table by table, a third copies nothing.
vi.setConfig({ testTimeout: 300_000 });

let pg: PgliteServer;
let openai: FakeOpenAI;
let root: string;
beforeAll(async () => {
  assertBuilt(CLI);
  root = mkdtempSync(join(tmpdir(), "docdb-pg-copy-sync-"));
  [pg, openai] = await Promise.all([startPgliteServer(), startFakeOpenAI({ dimensions: 64 })]);
}, 120_000);
afterAll(async () => {
  await pg?.stop();
  await openai?.close();
  rmSync(root, { recursive: true, force: true });
});

const withOpenAI = {
  DOCDB_EMBEDDING: "openai",
  OPENAI_API_KEY: "sk-test",
  OPENAI_BASE_URL: "",
  DOCDB_EMBEDDING_MODEL: "text-embedding-3-small",
  DOCDB_EMBEDDING_DIMENSIONS: "64",
};

async function hashOf(engine: StoreEngine, name: string): Promise<string> {
  try {
    const store: Store = await engine.openDatabase(name);
    return await storeContentHash(store);
  } finally {
    await engine.close();
  }
}

describe("docdb copy SQLite → PostgreSQL into an existing target", () => {
  it("syncs re-embedded, replaced, deleted and re-imported documents; the tables then hash alike; a rerun copies nothing", async () => {
    const dataDir = join(root, "data");
    const folder = join(root, "notes");
    mkdirSync(folder, { recursive: true });
    writeFileSync(join(folder, "a.md"), "# Alpha\n\nThe first note about zebras.\n");
    writeFileSync(join(folder, "b.md"), "# Beta\n\nThe second note about yaks.\n");
    const docdb = async (args: string[], env: Record<string, string> = {}) => {
      const result = await runCli(["--data-dir", dataDir, ...args], { env });
      expect(result.code, `docdb ${args.join(" ")}: ${result.stderr}${result.stdout}`).toBe(0);
      return JSON.parse(result.stdout || "null");
    };
    const openaiEnv = { ...withOpenAI, OPENAI_BASE_URL: openai.url };

    await docdb(["insert", "--text", "京都には多くの寺院があります。", "--key", "kyoto", "--meta", '{"lang":"ja","b":1,"a":2}', "--json"]);
    await docdb(["insert", "--text", "The first version of a replaced note.", "--key", "replaced", "--json"]);
    const gone = await docdb(["insert", "--text", "A note deleted later.", "--key", "gone", "--json"]);
    await docdb(["collection", "add", "-n", "notes", "-d", "notes", "-s", folder, "--json"]);
    await docdb(["import", "-n", "notes", "--json"]);
    const target = `${pg.url}#synced`;
    expect(await docdb(["copy", "vectors", target, "--json"])).toMatchObject({ copied: 5, vectors: 0 });

    expect(await docdb(["embed", "--pending", "--json"], openaiEnv)).toMatchObject({ embedded: 5 });
    await docdb(["insert", "--text", "The second version, with new words.", "--key", "replaced", "--json"], openaiEnv);
    await docdb(["delete", gone.doc_id, "--json"]);
    writeFileSync(join(folder, "b.md"), "# Beta\n\nThe second note, now about yaks and llamas.\n");
    await docdb(["import", "-n", "notes", "--json"], openaiEnv);

    expect(await docdb(["copy", "vectors", target, "--json"])).toMatchObject({ copied: 1, updated: 3, deleted: 2, up_to_date: false });
    const onSqlite = await hashOf(createSqliteEngine({ dataDir }), "vectors");
    const onPostgres = await hashOf(createPostgresEngine({ url: pg.url }), "synced");
    expect(onPostgres).toBe(onSqlite);

    expect(await docdb(["copy", "vectors", target, "--json"])).toMatchObject({
      up_to_date: true,
      skipped: 4,
      copied: 0,
      updated: 0,
      deleted: 0,
    });
  });
});
