import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CLI, runCli } from "./run-cli.js";

const LINES = Array.from({ length: 40 }, (_, i) =>
  i >= 15 && i < 22
    ? `Line ${i + 1}: the quokka colony sleeps by day; quokka pups follow their mothers.`
    : `Line ${i + 1}: tides and ferries.`,
);
const TEXT = LINES.join("\n");

describe("docdb find and get for agents (built CLI)", () => {
  let dataDir: string;
  let docId: string;
  const docdb = (...args: string[]) => runCli(["--data-dir", dataDir, ...args]);
  beforeAll(async () => {
    if (!existsSync(CLI)) throw new Error(`build the CLI first (pnpm build): ${CLI} is missing`);
    dataDir = mkdtempSync(join(tmpdir(), "docdb-answers-"));
    // Small chunks (from a config file), so the topic spans several neighbouring chunks.
    writeFileSync(join(dataDir, "docdb.config.json"), JSON.stringify({ chunkSize: 200, chunkOverlap: 40 }));
    const inserted = await runCli(["--data-dir", dataDir, "insert", "-", "--json"], { input: TEXT, cwd: dataDir });
    expect(inserted.code, inserted.stderr).toBe(0);
    docId = (JSON.parse(inserted.stdout) as { doc_id: string; chunk_count: number }).doc_id;
  });
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it("find merges neighbouring chunks, --max-chars cuts with a note, --no-text gives references", async () => {
    const found = await docdb("find", "quokka", "--mode", "keyword", "--json");
    const results = JSON.parse(found.stdout) as { chunk_ids: string[]; text: string; start: number; end: number }[];
    expect(results).toHaveLength(1);
    expect(results[0]?.chunk_ids.length).toBeGreaterThan(1);
    expect(results[0]?.text).toBe(TEXT.slice(results[0]?.start, results[0]?.end));

    const cut = await docdb("find", "quokka", "--mode", "keyword", "--max-chars", "150", "--json");
    const [passage] = JSON.parse(cut.stdout) as { text: string; truncated?: boolean }[];
    expect(passage?.truncated).toBe(true);
    expect(passage?.text.length).toBeLessThanOrEqual(150);
    expect(cut.stderr).toMatch(/^note: the answer is limited to 150 characters.*docdb get ID --range START:END/m);

    const refs = JSON.parse((await docdb("find", "quokka", "--mode", "keyword", "--no-text", "--json")).stdout) as Record<
      string,
      unknown
    >[];
    expect(refs[0]).not.toHaveProperty("text");
    const human = await docdb("find", "quokka", "--mode", "keyword");
    expect(human.stdout).toMatch(/^1\. score 1\.000 +doc \S+ +\[\d+-\d+\] \(\d+ chunks\)/);
  });

  it("get --range and --lines return just that part", async () => {
    const range = JSON.parse((await docdb("get", docId, "--range", "10:60", "--json")).stdout) as {
      text: string;
      range: unknown;
      length: number;
    };
    expect(range.text).toBe(TEXT.slice(10, 60));
    expect(range.length).toBe(TEXT.length);
    const lines = await docdb("get", docId, "--lines", "16-17");
    expect(lines.stdout).toContain(`${LINES[15]}\n${LINES[16]}\n`);
    expect(lines.stdout).not.toContain(LINES[17]);
    expect(lines.stdout).toMatch(/showing: +characters \d+-\d+ of \d+, lines 16-17 of 40/);
    const bad = await docdb("get", docId, "--range", "abc");
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/^INVALID_REQUEST: --range takes FROM:TO/);
  });
});
