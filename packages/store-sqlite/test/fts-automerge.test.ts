// FTS5 merges its segments eight at a time (migration 0013): new databases and upgraded ones,
// with keyword finds answering the same before and after the upgrade.
import { copyFileSync, mkdirSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { buildKeywordQuery } from "@docdb/analyzer";
import { makeDocument } from "@docdb/store/contract-suite";
import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { createSqliteEngine } from "../src/index.js";
import { storeFolder } from "./helpers/store-folder.js";

const migrationsDir = fileURLToPath(new URL("../migrations", import.meta.url));
const folder = storeFolder("docdb-automerge-");

/** FTS5's automerge option as the file holds it (undefined: FTS5's default, 4). */
function automerge(path: string): unknown {
  const raw = new Database(path, { readonly: true });
  try {
    return raw.prepare("SELECT v FROM chunks_fts_config WHERE k = 'automerge'").pluck().get();
  } finally {
    raw.close();
  }
}

const WORDS = ["harbour", "lantern", "whale", "voyage", "anchor", "storm", "compass", "tide"];

describe("FTS5's merge width", () => {
  it("is eight on a new database and on one made before migration 0013, whose keyword finds stay the same", async () => {
    const before = join(folder.dir, "migrations-before-0013");
    mkdirSync(before);
    for (const f of readdirSync(migrationsDir)) if (f < "0013") copyFileSync(join(migrationsDir, f), join(before, f));
    const old = folder.track(
      await createSqliteEngine({ dataDir: folder.dir, migrationsDir: before }).openDatabase("old", { create: true }),
    );
    // Many small commits: each leaves a segment for FTS5 to merge.
    for (let i = 0; i < 40; i++) {
      const text = `${WORDS[i % 8]} ${WORDS[(i * 3) % 8]} near the ${WORDS[(i * 5) % 8]} number ${i}`;
      await old.writeDocuments([makeDocument([text], { title: `log ${i}` })]);
    }
    const query = buildKeywordQuery("whale storm");
    const answers = async (store: typeof old) => (await store.keywordSearch(query, { limit: 10 })).map((h) => [h.chunkId, h.score]);
    const found = await answers(old);
    expect(found.length).toBeGreaterThan(3);
    await folder.closeAll();
    expect(automerge(join(folder.dir, "old.db"))).toBeUndefined();

    const upgraded = folder.track(await createSqliteEngine({ dataDir: folder.dir }).openDatabase("old"));
    expect(automerge(join(folder.dir, "old.db"))).toBe(8);
    expect(await answers(upgraded)).toEqual(found);

    folder.track(await createSqliteEngine({ dataDir: folder.dir }).openDatabase("fresh", { create: true }));
    expect(automerge(join(folder.dir, "fresh.db"))).toBe(8);
  });
});
