import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { CLI, cliAt } from "./run-cli.js";

// `docdb qa …` through the built CLI, as a process, without an embedding model.
let dataDir: string;
beforeAll(() => {
  if (!existsSync(CLI)) throw new Error(`build the CLI first (pnpm build): ${CLI} is missing`);
});
beforeEach(() => {
  dataDir = mkdtempSync(join(tmpdir(), "docdb-cli-qa-"));
});
afterEach(() => {
  rmSync(dataDir, { recursive: true, force: true });
});

const { docdb, json } = cliAt(() => dataDir);

interface Added {
  qa_id: string;
  topic: string;
  topic_created: boolean;
  similar: { qa_id: string }[];
}

describe("docdb qa", () => {
  it("add (topic reused) → topics → merge --dry-run → knowledge → find and list; memory stays out of find and status", async () => {
    const a = await json<Added>(
      "qa",
      "add",
      "-t",
      "Deploy",
      "-q",
      "How do I roll back a failed deploy?",
      "-a",
      "deploy rollback --to previous",
    );
    expect(a).toMatchObject({ topic: "Deploy", topic_created: true, similar: [] });
    const b = await json<Added>("qa", "add", "-t", " deploy!", "-q", "How can I roll back a deploy that failed?", "-a", "deploy rollback");
    expect(b).toMatchObject({ topic: "Deploy", topic_created: false });
    expect(b.similar.map((s) => s.qa_id)).toEqual([a.qa_id]);
    await json("qa", "add", "-t", "Staging database", "-q", "Which port does the staging database listen on?", "-a", "5433");

    const human = await docdb("qa", "topics");
    expect(human.stdout).toContain("Deploy: 2 QA (2 unmerged), 0 knowledge");
    expect(await json<{ name: string }[]>("qa", "topics")).toMatchObject([{ name: "Deploy", qa_count: 2 }, { name: "Staging database" }]);

    const groups = await json<{ groups: { topic: string; qas: { qa_id: string }[] }[] }>("qa", "merge", "--dry-run");
    expect(groups.groups).toHaveLength(1);
    expect(groups.groups[0]?.qas.map((q) => q.qa_id).sort()).toEqual([a.qa_id, b.qa_id].sort());
    const text = await docdb("qa", "merge", "--dry-run");
    expect(text.stdout).toContain(a.qa_id);
    // Without --dry-run the CLI says it has no LLM and what to do instead.
    const real = await docdb("qa", "merge");
    expect(real.code).toBe(2);
    expect(real.stderr).toMatch(/^INVALID_REQUEST: merging needs an LLM/);

    const k = await json<{ knowledge_id: string; merged_qa_ids: string[] }>(
      "qa",
      "knowledge",
      "-t",
      "deploy",
      "--text",
      "Roll back a failed deploy with `deploy rollback --to previous`.",
      "--qa",
      a.qa_id,
      b.qa_id,
    );
    expect(k.merged_qa_ids.sort()).toEqual([a.qa_id, b.qa_id].sort());

    const found = await json<{ results: { kind: string; id: string }[]; topic: { name: string } }>(
      "qa",
      "find",
      "roll back a failed deploy",
      "--context",
      "deploying to production",
    );
    expect(found.topic.name).toBe("Deploy");
    expect(found.results.map((r) => r.id)).toEqual([k.knowledge_id]);
    const none = await json<{ results: unknown[]; topic: null; note: string }>("qa", "find", "anything", "-c", "zzqx");
    expect(none).toMatchObject({ results: [], topic: null });
    expect(none.note).toMatch(/no topic matches/);

    expect(await json<unknown[]>("qa", "list", "-t", "Deploy")).toEqual([]);
    const all = await json<{ qa_id: string; merged: boolean; merged_into: string }[]>("qa", "list", "-t", "Deploy", "--all");
    expect(all.map((r) => [r.merged, r.merged_into])).toEqual([
      [true, k.knowledge_id],
      [true, k.knowledge_id],
    ]);

    // The same records through read-only SQL (the views ship beside the bundle as migration 0006).
    const sql = await json<{ rows: unknown[][] }>(
      "sql",
      "SELECT t.name, t.unmerged_count, t.knowledge_count, count(q.id) FROM topics_v t LEFT JOIN qa_v q ON q.topic = t.name AND q.merged = 1 GROUP BY t.id ORDER BY t.name",
    );
    expect(sql.rows).toEqual([
      ["Deploy", 0, 1, 2],
      ["Staging database", 1, 0, 0],
    ]);

    expect((await docdb("insert", "--text", "A person's note: deploys roll back with the rollback command.")).code).toBe(0);
    const plain = await json<{ doc_id: string; text: string }[]>("find", "roll back deploy", "--mode", "keyword");
    expect(plain).toHaveLength(1);
    expect(plain[0]?.text).toContain("person's note");
    const status = await json<{ databases: { documents: number; memory: { documents: number } }[] }>("status");
    expect(status.databases[0]).toMatchObject({ documents: 1, memory: { documents: 2 + 3 + 1 } });
  }, 180_000); // some twenty CLI processes in a row

  it("bad input exits 2 (INVALID_REQUEST) or 1 (NOT_FOUND) with the code on stderr", async () => {
    const empty = await docdb("qa", "add", "-t", "Deploy", "-q", " ", "-a", "x");
    expect(empty.code).toBe(2);
    expect(empty.stderr).toMatch(/^INVALID_REQUEST: question is empty/);
    const long = await docdb("qa", "add", "-t", "t".repeat(201), "-q", "q", "-a", "a");
    expect(long.code).toBe(2);
    expect(long.stderr).toMatch(/topic has 201 characters/);
    await json("qa", "add", "-t", "Deploy", "-q", "q?", "-a", "a");
    const threshold = await docdb("qa", "merge", "--dry-run", "--threshold", "1.5");
    expect(threshold.code).toBe(2);
    expect(threshold.stderr).toMatch(/threshold must be a number from 0 to 1/);
    const unknown = await docdb("qa", "knowledge", "-t", "Deploy", "--text", "k", "--qa", "01HZZZZZZZZZZZZZZZZZZZZZZZ");
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/^NOT_FOUND: no QA record with id "01HZZZZZZZZZZZZZZZZZZZZZZZ"/);
    const missingDb = await docdb("qa", "topics", "--db", "nothing_here");
    expect(missingDb.code).toBe(1);
    expect(missingDb.stderr).toMatch(/^NOT_FOUND/);
  });
});
