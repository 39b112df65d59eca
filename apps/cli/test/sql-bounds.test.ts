// docdb sql with hostile queries (issue 23): a result far over the byte cap comes back cut or
// refused within 2 s with bounded memory; a query opening with a "-- comment" line runs.
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startNode } from "../../../test/support/node-process.js";
import { CAN_MEASURE_RSS, watchPeakRss } from "../../../test/support/peak-rss.js";
import { CLI, runCli } from "./run-cli.js";

let dataDir: string;
const docdb = (...args: string[]) => runCli(["--data-dir", dataDir, ...args]);

beforeAll(async () => {
  if (!existsSync(CLI)) throw new Error(`build the CLI first (pnpm build): ${CLI} is missing`);
  dataDir = mkdtempSync(join(tmpdir(), "docdb-cli-sql-bounds-"));
  const inserted = await docdb("insert", "--text", "Kyoto was the capital for a thousand years.", "--title", "Kyoto");
  expect(inserted.code, inserted.stderr).toBe(0);
});
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

/** Runs the CLI, timing it and watching the peak memory of it and its SQL reader process. */
async function measured(...args: string[]) {
  const started = Date.now();
  const run = startNode(CLI, ["--data-dir", dataDir, ...args], {
    env: { ...process.env, DOCDB_EMBEDDING: "none", OPENAI_API_KEY: "", DOCDB_LOG_LEVEL: "warn" },
  });
  const watch = watchPeakRss(run.child.pid as number);
  const result = await run.done;
  return { ...result, ms: Date.now() - started, peakMb: watch.stop() };
}

/** 3,000 rows of a 1,000,000-character string (SQLite has no repeat()). */
const HUGE =
  "WITH RECURSIVE g(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM g WHERE i < 3000) SELECT i, printf('%.*c', 1000000, 'x') AS x FROM g";

describe("docdb sql, bounded (built binary)", () => {
  it("cuts a 3 GB result at the 8 MiB byte cap: the rows that fit, truncated_by bytes, in 2 s, memory bounded", async () => {
    const baseline = await measured("sql", "SELECT 1 AS one", "--json");
    expect(baseline.code, baseline.stderr).toBe(0);
    const huge = await measured("sql", HUGE, "--max-rows", "2000", "--json");
    expect(huge.code, huge.stderr).toBe(0);
    const result = JSON.parse(huge.stdout);
    expect(result).toMatchObject({ row_count: 8, truncated: true, truncated_by: "bytes", limits: { max_rows: 2000, max_bytes: 8388608 } });
    expect(result.rows[7]).toEqual([8, "x".repeat(1_000_000)]);
    expect(huge.ms).toBeLessThan(2000 + baseline.ms);
    if (CAN_MEASURE_RSS) expect(huge.peakMb - baseline.peakMb).toBeLessThan(200);

    const table = await docdb("sql", HUGE, "--max-bytes", "3000000");
    expect(table.code, table.stderr).toBe(0);
    expect(table.stderr).toMatch(/2 rows shown; the query had more and was cut at the 3000000-byte cap \(--max-bytes raises it\)/);
  });

  it("refuses a first row larger than the cap as INVALID_REQUEST naming the limit", async () => {
    const one = await measured("sql", "SELECT printf('%.*c', 20000000, 'x') AS x");
    expect(one.code).toBe(2);
    expect(one.stderr).toMatch(/^INVALID_REQUEST: the first row alone is 20000003 bytes, over the 8388608-byte result cap \(max_bytes\)/);
    expect(one.ms).toBeLessThan(5000);
    const bad = await docdb("sql", "SELECT 1", "--max-bytes", "10");
    expect(bad.stderr).toMatch(/INVALID_REQUEST: max_bytes must be an integer from 1024 to 67108864/);
  });

  it("runs a query that opens with a -- comment line, wherever the options are", async () => {
    for (const args of [
      ["sql", "-- count them\nSELECT count(*) AS n FROM documents_v", "--json"],
      ["sql", "--json", "-- count them\nSELECT count(*) AS n FROM documents_v"],
      ["sql", "--max-rows", "5", "--json", "--", "-- count them\nSELECT count(*) AS n FROM documents_v"],
    ]) {
      const result = await docdb(...args);
      expect(result.code, `${JSON.stringify(args)}: ${result.stderr}`).toBe(0);
      expect(JSON.parse(result.stdout).rows).toEqual([[1]]);
    }
    const onlyComment = await docdb("sql", "-- nothing here\n");
    expect(onlyComment.stderr).toMatch(/^INVALID_REQUEST: only read-only queries are allowed/);
  });
});
