import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
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

type Status = {
  state: string;
  vectors: number;
  indexed: number;
  behind: number;
  settings: Record<string, unknown>;
  damaged?: { found_at: string; reason: string; set_aside: string | null; rebuilt: boolean };
};
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

  // Runs after the rebuild above (threshold 1: vector queries take the index).
  it("a damaged index file: find answers exactly and warns, the file is set aside, status reports it rebuilt", async () => {
    const file = join(dataDir, "notes.db.hnsw");
    const bytes = readFileSync(file);
    // Five places overwritten, same size.
    for (const at of [0.13, 0.31, 0.5, 0.77, 0.92]) {
      const i = Math.floor(bytes.length * at);
      for (let j = i; j < i + 4; j++) bytes[j] = (bytes[j] as number) ^ 0x5a;
    }
    writeFileSync(file, bytes);
    const args = ["find", "rotating access tokens", "--db", "notes", "--mode", "vector", "-k", "5", "--json"];
    const found = await docdb(args);
    expect(found.code, found.stderr).toBe(0);
    expect(found.stderr).toMatch(/does not match the checksum in its description \(damaged\): set aside as .*notes\.db\.hnsw\.corrupt-/);
    expect(JSON.parse(found.stdout)).toEqual(json<Found>(await docdb([...args, "--exact"])));
    const status = json<Status>(await docdb(["index", "status", "--db", "notes", "--json"]));
    expect(status).toMatchObject({ state: "ready", indexed: 40, damaged: { reason: expect.stringMatching(/checksum/), rebuilt: true } });
    expect(existsSync(status.damaged?.set_aside as string)).toBe(true);
    const text = await docdb(["index", "status", "--db", "notes"]);
    expect(text.stdout).toMatch(/^damaged: the index file does not match the checksum .*; set aside as .*; built again, written /m);
  });

  it("a directory in place of the index file: find answers (no EISDIR), the directory is set aside and the index rebuilt", async () => {
    const file = join(dataDir, "notes.db.hnsw");
    rmSync(file);
    mkdirSync(file);
    const before = json<Status>(await docdb(["index", "status", "--db", "notes", "--json"]));
    expect(before).toMatchObject({ state: "missing", damaged: { reason: "is a directory, not an index file", set_aside: null } });
    const args = ["find", "bridge", "--db", "notes", "--mode", "vector", "-k", "3", "--json"];
    const found = await docdb(args);
    expect(found.code, found.stderr).toBe(0);
    expect(found.stderr).not.toMatch(/EISDIR|INTERNAL/);
    expect(JSON.parse(found.stdout)).toEqual(json<Found>(await docdb([...args, "--exact"])));
    expect(statSync(file).isFile()).toBe(true);
    const after = json<Status>(await docdb(["index", "status", "--db", "notes", "--json"]));
    expect(after).toMatchObject({ state: "ready", damaged: { reason: "is a directory, not an index file", rebuilt: true } });
    expect(statSync(after.damaged?.set_aside as string).isDirectory()).toBe(true);
  });
});
