import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { beforeAll, describe, expect, it } from "vitest";
import { runNode } from "./support/node-process.js";

// A smoke run of `pnpm bench` at toy sizes: it must keep working, whatever numbers it prints
// (timings belong to BENCHMARKS.md, not to assertions).
const BENCH = fileURLToPath(new URL("../scripts/bench.mjs", import.meta.url));
const CORE = fileURLToPath(new URL("../packages/core/dist/index.js", import.meta.url));

// SQLite runs: a DOCDB_STORE_URL in the developer's environment would send the bench to PostgreSQL.
const { DOCDB_STORE_URL: _ignored, ...env } = process.env;
const run = (args: string[]) => runNode(BENCH, args, { env });

beforeAll(() => {
  if (!existsSync(CORE)) throw new Error(`build first (pnpm build): ${CORE} is missing`);
});

describe("pnpm bench (toy sizes)", () => {
  it("ingests, re-embeds, measures every find mode against raw KNN and reports the MCP server", async () => {
    const result = await run(["--sizes", "150", "--dims", "8,16", "--queries", "3", "--json"]);
    expect(result.stderr).not.toMatch(/Error/);
    expect(result.code).toBe(0);
    const report = JSON.parse(result.stdout);
    expect(report.ingest).toHaveLength(1);
    expect(report.ingest[0].chunks).toBeGreaterThanOrEqual(150);
    // The three ingest paths got the same documents and stored the same chunks.
    expect(report.ingestPaths.map((p: { vectors: string }) => p.vectors)).toEqual([
      "precomputed, 8 dims",
      "none (keyword only)",
      "precomputed, 8 dims",
    ]);
    const chunks = report.ingestPaths.map((p: { chunks: number }) => p.chunks);
    expect(chunks[0]).toBeGreaterThan(0);
    expect(chunks).toEqual([chunks[0], chunks[0], chunks[0]]);
    expect(report.reembed).toMatchObject([{ dims: 16, chunks: report.ingest[0].chunks }]);
    expect(report.find.map((f: { dims: number }) => f.dims)).toEqual([8, 16]);
    for (const f of report.find) {
      for (const mode of ["keyword", "vector", "hybrid", "vectorFiltered", "rawKnn"]) expect(f[mode].p50).toBeGreaterThan(0);
      expect(f.vector.empty).toBe(0);
    }
    if (report.mcp.skipped) expect(report.mcp.skipped).toMatch(/not built/);
    else expect(report.mcp.startupMs.p50).toBeGreaterThan(0);
  });

  it("prints Markdown tables without --json and rejects bad options", async () => {
    const table = await run(["--sizes", "100", "--dims", "8", "--queries", "2"]);
    expect(table.code).toBe(0);
    expect(table.stdout).toMatch(/\| chunks \| dims \| keyword p50 \|/);
    const bad = await run(["--sizes", "ten"]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/--sizes takes positive whole numbers/);
    const reuse = await run(["--sizes", "100", "--reuse-index"]);
    expect(reuse.code).toBe(1);
    expect(reuse.stderr).toMatch(/--reuse-index loads the index kept in --data-dir DIR/);
  });
});
