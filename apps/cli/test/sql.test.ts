import { createHash } from "node:crypto";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CLI, runCli } from "./run-cli.js";

let dataDir: string;
const docdb = (...args: string[]) => runCli(["--data-dir", dataDir, ...args]);

beforeAll(async () => {
  if (!existsSync(CLI)) throw new Error(`build the CLI first (pnpm build): ${CLI} is missing`);
  dataDir = mkdtempSync(join(tmpdir(), "docdb-cli-sql-"));
  for (const [text, meta, title] of [
    ["京都は千年以上にわたり日本の都でした。", '{"lang":"ja","tags":["city"]}', "京都"],
    ["Osaka grew as a city of merchants.", '{"lang":"en"}', "Osaka"],
    ["Nara has many old temples.", '{"lang":"en"}', "Nara"],
  ]) {
    const inserted = await docdb("insert", "--text", text as string, "--meta", meta as string, "--title", title as string, "--json");
    expect(inserted.code, inserted.stderr).toBe(0);
  }
});
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

describe("docdb sql (built binary)", () => {
  it("counts, newest documents and JSON metadata as JSON, with the caps stated", async () => {
    const counts = await docdb(
      "sql",
      "SELECT json_extract(metadata, '$.lang') AS lang, count(*) AS n FROM documents_v GROUP BY 1 ORDER BY 1",
      "--json",
    );
    expect(counts.code, counts.stderr).toBe(0);
    expect(JSON.parse(counts.stdout)).toEqual({
      columns: ["lang", "n"],
      rows: [
        ["en", 2],
        ["ja", 1],
      ],
      row_count: 2,
      truncated: false,
      limits: { max_rows: 100, timeout_ms: 5000, max_bytes: 8388608 },
    });
    const newest = await docdb("sql", "SELECT title FROM documents_v ORDER BY created_at DESC, id DESC", "--max-rows", "2", "--json");
    expect(JSON.parse(newest.stdout)).toMatchObject({ rows: [["Nara"], ["Osaka"]], truncated: true, limits: { max_rows: 2 } });
  });

  it("prints a table on stdout and the row count with the caps on stderr", async () => {
    const table = await docdb("sql", "SELECT title, json_extract(metadata, '$.tags[0]') AS tag FROM documents_v WHERE title = '京都'");
    expect(table.code).toBe(0);
    expect(table.stdout.split("\n")[0]).toMatch(/^title\s+tag$/);
    expect(table.stdout).toMatch(/京都\s+city/);
    expect(table.stderr).toMatch(/1 row \(caps: 100 rows, 8388608 bytes, 5000 ms\)/);
    const cut = await docdb("sql", "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT x FROM c", "--max-rows", "3");
    expect(cut.code).toBe(0);
    expect(cut.stderr).toMatch(/cut at the 3-row cap/);
  });

  it("refuses writes and stops runaway queries with exit code 2, leaving the file unchanged", async () => {
    const file = join(dataDir, "vectors.db");
    const before = createHash("sha256").update(readFileSync(file)).digest("hex");
    for (const sql of ["DELETE FROM documents", "UPDATE documents SET title = 'x'", "VACUUM", "SELECT 1; DROP TABLE documents"]) {
      const refused = await docdb("sql", sql);
      expect(refused.code, sql).toBe(2);
      expect(refused.stdout).toBe("");
      expect(refused.stderr).toMatch(/^INVALID_REQUEST: /);
    }
    const endless = await docdb(
      "sql",
      "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c",
      "--timeout-ms",
      "300",
    );
    expect(endless.code).toBe(2);
    expect(endless.stderr).toMatch(/300 ms time cap/);
    expect(createHash("sha256").update(readFileSync(file)).digest("hex")).toBe(before);
    const missing = await docdb("sql", "SELECT 1", "--db", "absent");
    expect(missing.stderr).toMatch(/^NOT_FOUND: /);
  });
});
