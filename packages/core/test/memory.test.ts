import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createSqliteEngine } from "@docdb/store-sqlite";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { tinyModelDir } from "../../../test/support/tiny-model.js";
import { type DocDB, normalizeTopicName, openDocDB, resolveMemoryOptions, silentLogger } from "../src/index.js";

let dataDir: string;
const open: DocDB[] = [];

beforeEach(() => {
  dataDir = mkdtempSync(join(tmpdir(), "docdb-memory-"));
});
afterEach(async () => {
  for (const d of open.splice(0)) await d.close();
  rmSync(dataDir, { recursive: true, force: true });
});

function docdb(model: "none" | "tiny"): DocDB {
  const d = openDocDB({
    dataDir,
    embedding: model === "none" ? null : { provider: "local", modelDir: tinyModelDir() },
    logger: silentLogger(),
  });
  open.push(d);
  return d;
}

async function codeOf(promise: Promise<unknown>): Promise<string | undefined> {
  try {
    await promise;
    return undefined;
  } catch (error) {
    return (error as { code?: string }).code;
  }
}

const ROLLBACK_1 = {
  question: "How do I roll back a failed deploy?",
  answer: "Run `deploy rollback --to previous`; it restores the last release.",
};
const ROLLBACK_2 = {
  question: "How can I roll back a deploy that failed?",
  answer: "Use deploy rollback; the previous release comes back in a minute.",
};
const DEPLOY_PORT = {
  question: "Which region does the deploy pipeline push images to?",
  answer: "eu-west-1, through the registry mirror.",
};
const DB_PORT = { question: "Which port does the staging database listen on?", answer: "5433, not the default 5432." };

describe("normalizeTopicName", () => {
  it("folds case, width, whitespace and punctuation", () => {
    expect(normalizeTopicName("Deploy")).toBe("deploy");
    expect(normalizeTopicName(" deploy!")).toBe("deploy");
    expect(normalizeTopicName("ＤＥＰＬＯＹ")).toBe("deploy");
    expect(normalizeTopicName("CI / CD")).toBe(normalizeTopicName("ci-cd"));
    expect(normalizeTopicName("!!!")).toBe("");
  });
});

describe("resolveMemoryOptions", () => {
  it("takes options over the environment over defaults, and refuses values outside 0-1", () => {
    expect(resolveMemoryOptions({}, {})).toMatchObject({ topic_threshold: 0.85, merge_threshold: 0.9 });
    expect(resolveMemoryOptions({}, { DOCDB_MEMORY_TOPIC_THRESHOLD: "0.7" }).topic_threshold).toBe(0.7);
    expect(resolveMemoryOptions({ topic_threshold: 0.6 }, { DOCDB_MEMORY_TOPIC_THRESHOLD: "0.7" }).topic_threshold).toBe(0.6);
    expect(() => resolveMemoryOptions({}, { DOCDB_MEMORY_MERGE_THRESHOLD: "2" })).toThrow(/0 to 1/);
    expect(() => resolveMemoryOptions({ merge_threshold: -0.1 }, {})).toThrow(/0 to 1/);
  });
});

for (const model of ["none", "tiny"] as const) {
  describe(`memory (${model === "none" ? "no model" : "tiny model"})`, () => {
    it("reuses a topic given under a near-identical name, reports similar QAs, merges, and searches", async () => {
      const db = await docdb(model).database("mem", { create: true });
      const first = await db.memory.storeQa({ ...ROLLBACK_1, topic: "Deploy" });
      expect(first).toMatchObject({ topic: "Deploy", topic_created: true, similar: [], embedded: model === "tiny" });
      const second = await db.memory.storeQa({ ...ROLLBACK_2, topic: " deploy!" });
      expect(second).toMatchObject({ topic: "Deploy", topic_created: false, topic_match: { matched_by: "name", score: 1 } });
      expect(second.similar.map((s) => s.qa_id)).toEqual([first.qa_id]);
      expect(second.similarity).toBe(model === "tiny" ? "vector" : "keywords");
      await db.memory.storeQa({ ...DEPLOY_PORT, topic: "deploy" });
      const other = await db.memory.storeQa({ ...DB_PORT, topic: "Database" });
      expect(other).toMatchObject({ topic: "Database", topic_created: true, similar: [] });

      const topics = await db.memory.listTopics();
      expect(topics.map((t) => [t.name, t.qa_count, t.unmerged_count, t.knowledge_count])).toEqual([
        ["Database", 1, 1, 0],
        ["Deploy", 3, 3, 0],
      ]);

      const candidates = await db.memory.mergeCandidates({});
      expect(candidates.groups).toHaveLength(1);
      expect(candidates.groups[0]?.qas.map((q) => q.qa_id).sort()).toEqual([first.qa_id, second.qa_id].sort());

      const merged = await db.memory.merge({
        merger: async (group) => `To roll back a failed deploy: ${group.qas.map((q) => q.answer).join(" ")}`,
      });
      expect(merged.merged).toHaveLength(1);
      expect(merged.merged[0]).toMatchObject({ topic: "Deploy", merged_qa_ids: expect.arrayContaining([first.qa_id, second.qa_id]) });
      expect(await db.memory.mergeCandidates({})).toMatchObject({ groups: [] });

      const found = await db.memory.queryQa({ question: "roll back deploy", context: "deploying the web app" });
      expect(found.topic).toMatchObject({ name: "Deploy" });
      expect(found.results[0]).toMatchObject({ kind: "knowledge", id: merged.merged[0]?.knowledge_id });
      expect(found.results.map((r) => r.id)).not.toContain(first.qa_id);
      expect(found.results.map((r) => r.id)).not.toContain(second.qa_id);

      const port = await db.memory.queryQa({ question: "staging database port", context: "database setup" });
      expect(port.topic?.name).toBe("Database");
      expect(port.results[0]).toMatchObject({ kind: "qa", answer: DB_PORT.answer });

      const none = await db.memory.queryQa({ question: "anything", context: "zzqx" });
      expect(none).toMatchObject({ results: [], topic: null });
      expect(none.note).toMatch(/no topic matches/);

      const qas = await db.memory.listQa({ topic: "Deploy", include_merged: true });
      expect(qas.filter((q) => q.merged).map((q) => q.merged_into)).toEqual([
        merged.merged[0]?.knowledge_id,
        merged.merged[0]?.knowledge_id,
      ]);
      expect(await db.memory.listQa({ topic: "Deploy" })).toHaveLength(1);

      // Memory stays out of normal find, list and status.
      await db.insertDocument({ text: "A document about deploy rollbacks written by a person." });
      const plain = await db.findSimilar({ query: "roll back deploy", mode: "keyword" });
      expect(plain.results.every((r) => r.collection === undefined)).toBe(true);
      expect(plain.results).toHaveLength(1);
      expect(await db.listDocuments()).toHaveLength(1);
      const status = await db.status();
      expect(status.documents).toBe(1);
      expect(status.memory?.documents).toBe(2 + 4 + 1);
    });
  });
}

describe("memory without a model", () => {
  it("bad input is INVALID_REQUEST or NOT_FOUND", async () => {
    const db = await docdb("none").database("bad", { create: true });
    expect(await codeOf(db.memory.storeQa({ question: " ", answer: "a", topic: "t" }))).toBe("INVALID_REQUEST");
    expect(await codeOf(db.memory.storeQa({ question: "q", answer: "", topic: "t" }))).toBe("INVALID_REQUEST");
    expect(await codeOf(db.memory.storeQa({ question: "q", answer: "a", topic: "" }))).toBe("INVALID_REQUEST");
    expect(await codeOf(db.memory.storeQa({ question: "q", answer: "a", topic: "?!" }))).toBe("INVALID_REQUEST");
    expect(await codeOf(db.memory.storeQa({ question: "q".repeat(2001), answer: "a", topic: "t" }))).toBe("INVALID_REQUEST");
    expect(await codeOf(db.memory.storeQa({ question: "q", answer: "a".repeat(20_001), topic: "t" }))).toBe("INVALID_REQUEST");
    expect(await codeOf(db.memory.storeQa({ question: "q", answer: "a", topic: "t".repeat(201) }))).toBe("INVALID_REQUEST");
    expect(await codeOf(db.memory.mergeCandidates({ threshold: 1.5 }))).toBe("INVALID_REQUEST");
    expect(await codeOf(db.memory.mergeCandidates({ threshold: -1 }))).toBe("INVALID_REQUEST");
    expect(await codeOf(db.memory.mergeCandidates({ topic: "nothing here" }))).toBe("NOT_FOUND");
    const stored = await db.memory.storeQa({ question: "q", answer: "a", topic: "t" });
    expect(
      await codeOf(db.memory.storeKnowledge({ text: "k", topic: "t", source_qa_ids: [stored.qa_id, "01HZZZZZZZZZZZZZZZZZZZZZZZ"] })),
    ).toBe("NOT_FOUND");
    // Nothing was marked merged by the failed call.
    expect(await db.memory.listQa({ topic: "t" })).toHaveLength(1);
    expect(await codeOf(db.memory.storeKnowledge({ text: "k", topic: "other", source_qa_ids: [stored.qa_id] }))).toBe("INVALID_REQUEST");
    // Users cannot write into or create the reserved collections.
    expect(await codeOf(db.insertDocument({ text: "x", collection: "_memory_qa" }))).toBe("INVALID_REQUEST");
    expect(await codeOf(db.collections.add({ name: "_memory_qa", description: "mine", source: dataDir }))).toBe("INVALID_REQUEST");
  });

  it("keeps vectors when QAs are marked merged, and embedPending backfills memory stored without a model", async () => {
    const plain = await docdb("none").database("later", { create: true });
    const a = await plain.memory.storeQa({ ...ROLLBACK_1, topic: "Deploy" });
    expect(a.embedded).toBe(false);
    expect((await plain.status()).memory?.pending).toBe(2);
    const withModel = await docdb("tiny").database("later");
    expect(await withModel.embedPending()).toMatchObject({ embedded: 2, remaining: 0 });
    const b = await withModel.memory.storeQa({ ...ROLLBACK_2, topic: "deploy" });
    expect(b).toMatchObject({ topic: "Deploy", similarity: "vector", embedded: true });
    expect(b.similar.map((s) => s.qa_id)).toEqual([a.qa_id]);
    await withModel.memory.storeKnowledge({ text: "Roll back with deploy rollback.", topic: "Deploy", source_qa_ids: [a.qa_id, b.qa_id] });
    const engine = createSqliteEngine({ dataDir });
    try {
      const counts = await (await engine.openDatabase("later")).counts();
      expect(counts.pending).toBe(0);
      expect(counts.vectors).toBe(counts.chunks);
    } finally {
      await engine.close();
    }
  });
});
