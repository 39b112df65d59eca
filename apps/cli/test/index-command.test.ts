import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openDocDB, silentLogger } from "@docdb/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { tinyModelDir } from "../../../test/support/tiny-model.js";
import { CLI, type CliResult, runCli } from "./run-cli.js";

// `docdb index status|rebuild` on the built CLI, with the local provider on the tiny model.
let dataDir: string;
let tiny32: string;

const TEXTS = Array.from(
  { length: 40 },
  (_, i) => `passage ${i}: ${["東京の人口", "大阪の食べ物", "river and bridge", "rotating access tokens"][i % 4]} ${i * 7}`,
);

beforeAll(async () => {
  if (!existsSync(CLI)) throw new Error(`build the CLI first (pnpm build): ${CLI} is missing`);
  tiny32 = tinyModelDir(32);
  dataDir = mkdtempSync(join(tmpdir(), "docdb-cli-index-"));
  const docdb = openDocDB({ dataDir, embedding: { provider: "local", modelDir: tiny32 }, logger: silentLogger() });
  try {
    const db = await docdb.database("notes", { create: true });
    for (const text of TEXTS) await db.insertDocument({ text });
  } finally {
    await docdb.close();
  }
});
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

const docdb = (args: string[]) =>
  runCli(["--data-dir", dataDir, ...args], { env: { DOCDB_EMBEDDING: undefined, OPENAI_API_KEY: undefined, DOCDB_MODEL_DIR: tiny32 } });

function json<T>(result: CliResult): T {
  if (result.code !== 0) throw new Error(`exit ${result.code}: ${result.stderr}`);
  return JSON.parse(result.stdout) as T;
}

type Status = { state: string; vectors: number; indexed: number; behind: number; settings: Record<string, unknown> };
type Found = { chunk_id: string; distance: number }[];

describe("docdb index", () => {
  it("shows the exact state below the threshold, rebuilds with settings, and then answers nearly like --exact", async () => {
    const before = json<Status>(await docdb(["index", "status", "--db", "notes", "--json"]));
    expect(before).toMatchObject({ state: "exact", vectors: 40, indexed: 0 });
    expect(existsSync(join(dataDir, "notes.db.hnsw"))).toBe(false);

    const rebuilt = await docdb(["index", "rebuild", "--db", "notes", "--threshold", "1", "--m", "8", "--ef-search", "32"]);
    expect(rebuilt.code).toBe(0);
    expect(rebuilt.stdout).toMatch(/^state: ready$/m);
    expect(rebuilt.stdout).toMatch(/^settings: threshold 1, M 8, ef_construction 128, ef_search 32, f16$/m);
    expect(existsSync(join(dataDir, "notes.db.hnsw"))).toBe(true);

    const after = json<Status>(await docdb(["index", "status", "--db", "notes", "--json"]));
    expect(after).toMatchObject({ state: "ready", vectors: 40, indexed: 40, behind: 0, settings: { threshold: 1, connectivity: 8 } });

    for (const query of ["東京の人口", "rotating access tokens", "bridge"]) {
      const approximate = json<Found>(await docdb(["find", query, "--db", "notes", "--mode", "vector", "-k", "5", "--json"]));
      const exact = json<Found>(await docdb(["find", query, "--db", "notes", "--mode", "vector", "-k", "5", "--exact", "--json"]));
      expect(approximate).toHaveLength(5);
      // HNSW is approximate (here M 8, ef 32, built on several threads): at most one of the
      // exact five may be traded for the next nearest.
      const ids = new Set(approximate.map((r) => r.chunk_id));
      expect(exact.filter((r) => ids.has(r.chunk_id)).length).toBeGreaterThanOrEqual(4);
    }
  });

  it("refuses bad settings with INVALID_REQUEST", async () => {
    const bad = await docdb(["index", "rebuild", "--db", "notes", "--quantization", "i8"]);
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toMatch(/^INVALID_REQUEST: --quantization must be f16 or f32/m);
    const low = await docdb(["index", "rebuild", "--db", "notes", "--m", "1"]);
    expect(low.stderr).toMatch(/^INVALID_REQUEST: vector index connectivity must be a whole number from 2/m);
  });
});
