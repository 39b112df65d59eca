import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { createPostgresEngine } from "@docdb/store-postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type PgliteServer, startPgliteServer } from "../packages/store-postgres/test/support/pglite-server.js";
import { runNode } from "./support/node-process.js";

// `pnpm bench --store …` at toy sizes against PGlite (PostgreSQL + pgvector over TCP): the
// PostgreSQL sections must keep working and stay sane; timings themselves belong to BENCHMARKS.md.
const BENCH = fileURLToPath(new URL("../scripts/bench.mjs", import.meta.url));
const CORE = fileURLToPath(new URL("../packages/core/dist/index.js", import.meta.url));
const SECRET = "Sup3r-s3cret-pw";

// The store comes from --store only: a DOCDB_STORE_URL in the developer's environment is left out.
const { DOCDB_STORE_URL: _ignored, ...env } = process.env;
const run = (args: string[]) => runNode(BENCH, args, { env });

interface Timing {
  p50: number;
  p95: number;
  recall?: number;
}

function expectTiming(t: Timing): void {
  expect(t.p50).toBeGreaterThan(0);
  expect(t.p95).toBeGreaterThanOrEqual(t.p50);
}

function expectRecall(t: Timing): void {
  expect(t.recall).toBeGreaterThanOrEqual(0);
  expect(t.recall).toBeLessThanOrEqual(1);
}

let server: PgliteServer;

beforeAll(async () => {
  if (!existsSync(CORE)) throw new Error(`build first (pnpm build): ${CORE} is missing`);
  server = await startPgliteServer();
}, 120_000);

afterAll(async () => {
  await server?.stop();
});

describe("pnpm bench --store (PostgreSQL, toy sizes)", () => {
  it("runs ingest, re-embed, find and HNSW-vs-exact on the server, drops only its own databases and never prints the password", async () => {
    const url = server.url.replace("postgres:postgres@", `postgres:${SECRET}@`);
    const engine = createPostgresEngine({ url: server.url, pool: { max: 2 } });
    // Another docdb database on the same server: the run must leave it alone.
    await engine.openDatabase("keep_me", { create: true });
    try {
      const result = await run([
        "--store",
        url,
        "--sizes",
        "120",
        "--dims",
        "8,16",
        "--queries",
        "3",
        "--efs",
        "16,64",
        "--no-mcp",
        "--json",
      ]);
      expect(result.code, result.stderr).toBe(0);
      expect(result.stdout + result.stderr).not.toContain(SECRET);
      const report = JSON.parse(result.stdout);

      expect(report.store).toMatchObject({ kind: "postgres", dropped: 1 });
      expect(report.store.location).toMatch(/^postgres:\/\/postgres:\*\*\*@127\.0\.0\.1:\d+\/postgres$/);
      expect(report.store.server.label).toMatch(
        /^PGlite [\d.]+ \(PostgreSQL [\d.]+, pgvector [\d.]+, WebAssembly, single backend\) — not a tuned server$/,
      );
      expect(report.skipped.join("\n")).toMatch(/sqlite-vec/);
      expect(report.skipped.join("\n")).toMatch(/usearch/);

      // The three insert paths ran on the server too, on the same documents (their databases dropped after).
      const pathChunks = report.ingestPaths.map((p: { chunks: number }) => p.chunks);
      expect(pathChunks[0]).toBeGreaterThan(0);
      expect(pathChunks).toEqual([pathChunks[0], pathChunks[0], pathChunks[0]]);

      const chunks = report.ingest[0].chunks;
      expect(chunks).toBeGreaterThanOrEqual(120);
      expect(report.reembed).toMatchObject([{ dims: 16, chunks }]);

      expect(report.find.map((f: { dims: number }) => f.dims)).toEqual([8, 16]);
      for (const f of report.find) {
        for (const mode of ["keyword", "vector", "hybrid", "rawKnn"]) expectTiming(f[mode]);
        expect(f.vector.empty).toBe(0);
        expect(f.vectorPath).toBe("hnsw");
      }

      expect(report.ann).toHaveLength(1);
      const ann = report.ann[0];
      expect(ann).toMatchObject({ engine: "postgres", dims: 8, vectors: chunks, state: "hnsw" });
      expect(ann.index.bytes).toBeGreaterThan(0);
      expect(ann.index.rebuildSeconds).toBeGreaterThan(0);
      for (const path of ["ann", "exact", "pgvectorHnsw", "pgvectorExact"]) {
        expectTiming(ann.paths[path]);
        expectRecall(ann.paths[path]);
      }
      // The server's own exact scan agrees with docdb's exact answer, chunk for chunk.
      expect(ann.paths.pgvectorExact.recall).toBe(1);
      expect(ann.sweep.map((s: { ef: number }) => s.ef)).toEqual([16, 64]);
      for (const s of ann.sweep) {
        expectTiming(s);
        expectRecall(s);
      }

      expect(report.mcp).toEqual({ skipped: "not measured (--no-mcp)" });
      expect(await engine.listDatabases()).toEqual(["keep_me"]);
    } finally {
      await engine.dropDatabase("keep_me");
      await engine.close();
    }
  });

  it("--store pglite serves the run itself and says what served it; a --store of another kind is refused", async () => {
    const result = await run(["--store", "pglite", "--sizes", "30", "--dims", "8", "--queries", "2", "--no-ann", "--no-mcp"]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(
      /Server: PGlite [\d.]+ \(PostgreSQL [\d.]+, pgvector [\d.]+, WebAssembly, single backend\) — not a tuned server\./,
    );
    expect(result.stdout).toMatch(/raw KNN = pgvector alone/);
    expect(result.stdout).toMatch(/Databases of this run dropped afterwards: 1\./);

    const bad = await run(["--store", "mysql://u:hunter2@h/db"]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).not.toContain("hunter2");
    expect(bad.stderr).toMatch(/--store \(or DOCDB_STORE_URL\) takes postgres:\/\/user:pass@host:port\/db or pglite/);
  });
});
