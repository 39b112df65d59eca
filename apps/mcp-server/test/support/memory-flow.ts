import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { type CreateMessageRequest, CreateMessageRequestSchema, type CreateMessageResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, expect, it } from "vitest";
import { call, expectRpcError, expectToolError, ok } from "./agent-flow.js";

/** A connected client; `samplingRequests` holds what the server asked the client's "LLM". */
export interface MemoryConnected {
  client: Client;
  samplingRequests: CreateMessageRequest["params"][];
  close(): Promise<void>;
}

/**
 * The client's LLM, made deterministic: the merge of a group is "MERGED:" and then every answer
 * in the prompt, in order (so the test knows the knowledge text exactly).
 */
export function registerDeterministicSampling(client: Client, requests: CreateMessageRequest["params"][]): void {
  client.setRequestHandler(CreateMessageRequestSchema, async (request): Promise<CreateMessageResult> => {
    requests.push(request.params);
    const message = request.params.messages.at(-1);
    const prompt = message && !Array.isArray(message.content) && message.content.type === "text" ? message.content.text : "";
    const answers = [...prompt.matchAll(/^Answer \d+: (.*)$/gm)].map((m) => m[1]);
    return {
      model: "deterministic-merger",
      role: "assistant",
      stopReason: "endTurn",
      content: { type: "text", text: `MERGED: ${answers.join(" | ")}` },
    };
  });
}

export const QA = {
  rollback1: {
    question: "How do I roll back a failed deploy?",
    answer: "Run `deploy rollback --to previous`; it restores the last release.",
  },
  rollback2: {
    question: "How can I roll back a deploy that failed?",
    answer: "deploy rollback brings the previous release back within a minute.",
  },
  region: { question: "Which region does the deploy pipeline push images to?", answer: "eu-west-1, through the registry mirror." },
  port: { question: "Which port does the staging database listen on?", answer: "5433, not the default 5432." },
  migrate: { question: "How do I run the staging database migrations?", answer: "pnpm db:migrate --env staging, from the api folder." },
};

interface StoreQa {
  qa_id: string;
  topic: string;
  topic_created: boolean;
  topic_match: { matched_by: string; score: number } | null;
  similar: { qa_id: string; question: string; score: number }[];
  similarity: string;
  embedded: boolean;
}
interface Hit {
  kind: string;
  id: string;
  topic: string;
  text?: string;
  question?: string;
  answer?: string;
  source_qa_ids?: string[];
}
interface Query {
  results: Hit[];
  topic: { name: string; matched_by: string } | null;
  note?: string;
}

/**
 * Agent memory over one transport, with a client that offers sampling: two topics (one given
 * twice under near-identical names), similar QAs reported, merged by the client's LLM, merged QAs
 * gone from searches, query by context, and the knowledge:// resources.
 */
export function memoryFlowSuite(connect: () => Promise<MemoryConnected>, options: { model: boolean }): void {
  let c: MemoryConnected;
  const db_name = "memory";
  beforeAll(async () => {
    c = await connect();
    // Writing tools create only the default database.
    for (const name of [db_name, "memory_bad"]) await ok(c.client, "create_database", { db_name: name });
  });
  afterAll(async () => {
    await c?.close();
  });

  it("store_qa reuses a near-identical topic, reports similar QAs; merge_knowledge merges through sampling; queries and resources serve it", async () => {
    const { client } = c;
    const r1 = await ok<StoreQa>(client, "store_qa", { db_name, ...QA.rollback1, topic: "Deploy" });
    expect(r1).toMatchObject({ topic: "Deploy", topic_created: true, topic_match: null, similar: [], embedded: options.model });
    const r2 = await ok<StoreQa>(client, "store_qa", { db_name, ...QA.rollback2, topic: " deploy!" });
    expect(r2).toMatchObject({ topic: "Deploy", topic_created: false, topic_match: { matched_by: "name", score: 1 } });
    expect(r2.similar.map((s) => s.qa_id)).toEqual([r1.qa_id]);
    expect(r2.similarity).toBe(options.model ? "vector" : "keywords");
    const r3 = await ok<StoreQa>(client, "store_qa", { db_name, ...QA.region, topic: "DEPLOY" });
    expect(r3).toMatchObject({ topic: "Deploy", topic_created: false, similar: [] });
    const d1 = await ok<StoreQa>(client, "store_qa", { db_name, ...QA.port, topic: "Staging database" });
    expect(d1).toMatchObject({ topic: "Staging database", topic_created: true });
    const d2 = await ok<StoreQa>(client, "store_qa", { db_name, ...QA.migrate, topic: "staging-database" });
    expect(d2).toMatchObject({ topic: "Staging database", topic_created: false });

    const topics = await ok<{ topics: { name: string; qa_count: number; unmerged_count: number; knowledge_count: number }[] }>(
      client,
      "list_topics",
      { db_name },
    );
    expect(topics.topics.map((t) => [t.name, t.qa_count, t.unmerged_count, t.knowledge_count])).toEqual([
      ["Deploy", 3, 3, 0],
      ["Staging database", 2, 2, 0],
    ]);

    // Before merging, the rollback answers come back by themselves.
    const before = await ok<Query>(client, "query_qa", {
      db_name,
      question: "roll back a failed deploy",
      context: "deploying the web app",
    });
    expect(before.results.map((r) => r.id)).toEqual(expect.arrayContaining([r1.qa_id, r2.qa_id]));

    const merged = await ok<{ merged: { knowledge_id: string; topic: string; merged_qa_ids: string[] }[]; threshold: number }>(
      client,
      "merge_knowledge",
      {
        db_name,
      },
    );
    expect(c.samplingRequests, JSON.stringify(merged)).toHaveLength(1);
    const prompt = JSON.stringify(c.samplingRequests[0]?.messages);
    expect(prompt).toContain(QA.rollback1.question);
    expect(prompt).toContain(QA.rollback2.question);
    expect(prompt).not.toContain(QA.region.question);
    expect(merged.merged).toHaveLength(1);
    const knowledge = merged.merged[0] as { knowledge_id: string; topic: string; merged_qa_ids: string[] };
    expect(knowledge.topic).toBe("Deploy");
    expect([...knowledge.merged_qa_ids].sort()).toEqual([r1.qa_id, r2.qa_id].sort());
    const mergedText = `MERGED: ${QA.rollback1.answer} | ${QA.rollback2.answer}`;

    // Merged QAs are no longer returned; the knowledge is, in the right topic.
    const after = await ok<Query>(client, "query_qa", { db_name, question: "roll back a failed deploy", context: "deploying the web app" });
    expect(after.topic).toMatchObject({ name: "Deploy" });
    expect(after.results[0]).toMatchObject({ kind: "knowledge", id: knowledge.knowledge_id, text: mergedText });
    expect(after.results.map((r) => r.id)).not.toContain(r1.qa_id);
    expect(after.results.map((r) => r.id)).not.toContain(r2.qa_id);
    const across = await ok<Query>(client, "query_qa", { db_name, question: "How do I roll back a failed deploy?" });
    expect(across.topic).toBeNull();
    expect(across.results.map((r) => r.id)).not.toContain(r1.qa_id);

    // The context picks the topic: the database's answer, not the deploy one.
    const port = await ok<Query>(client, "query_qa", { db_name, question: "which port", context: "setting up the staging database" });
    expect(port.topic).toMatchObject({ name: "Staging database" });
    expect(port.results[0]).toMatchObject({ kind: "qa", id: d1.qa_id, answer: QA.port.answer });
    expect(port.results.every((r) => r.topic === "Staging database")).toBe(true);

    // No topic matches: empty, and it says so.
    const none = await ok<Query>(client, "query_qa", { db_name, question: "which port", context: "zzqx qqwv" });
    expect(none).toMatchObject({ results: [], topic: null });
    expect(none.note).toMatch(/no topic matches/);

    // Nothing left to merge.
    expect(await ok(client, "merge_knowledge", { db_name })).toMatchObject({ merged: [] });
    expect(c.samplingRequests).toHaveLength(1);
    expect(
      (await ok<{ topics: { name: string; unmerged_count: number; knowledge_count: number }[] }>(client, "list_topics", { db_name }))
        .topics[0],
    ).toMatchObject({ name: "Deploy", unmerged_count: 1, knowledge_count: 1 });

    // Normal find never returns memory.
    await ok(client, "insert_document", { db_name, text: "Our runbook: a failed deploy is rolled back by the on-call engineer." });
    const found = await ok<{ results: { doc_id: string; text: string }[] }>(client, "find_similar_documents", {
      db_name,
      text: "roll back failed deploy",
      mode: "keyword",
    });
    expect(found.results).toHaveLength(1);
    expect(found.results[0]?.text).toContain("runbook");
  });

  it("knowledge:// resources: list, templates, read and topic completion (default database)", async () => {
    const { client } = c;
    await ok(client, "store_qa", { ...QA.rollback1, topic: "Deploy" });
    await ok(client, "store_qa", { ...QA.rollback2, topic: "deploy" });
    await ok(client, "store_qa", { ...QA.port, topic: "Staging database" });
    const merged = await ok<{ merged: { knowledge_id: string }[] }>(client, "merge_knowledge", { topic: "Deploy" });
    expect(merged.merged).toHaveLength(1);

    // The default database's topics come first, then the documents: only the user's runbook
    // (first test); memory records, in "memory" and the default database alike, are not documents.
    const { resources } = await client.listResources();
    const uris = resources.map((r) => r.uri);
    expect(uris.slice(0, 2)).toEqual(["knowledge://Deploy", "knowledge://Staging%20database"]);
    expect(uris.slice(2)).toHaveLength(1);
    expect(uris[2]).toMatch(/^docdb:\/\/memory\/documents\//);
    const { resourceTemplates } = await client.listResourceTemplates();
    expect(resourceTemplates.map((t) => t.uriTemplate)).toEqual([
      "docdb://{db}/documents/{id}",
      "docdb://{db}/collections/{collection}",
      "knowledge://{topic}/{query}",
    ]);

    const read = await client.readResource({ uri: `knowledge://Deploy/${encodeURIComponent("roll back a failed deploy")}` });
    const text = (read.contents[0] as { text: string }).text;
    expect(text).toContain("## Knowledge");
    expect(text).toContain(`MERGED: ${QA.rollback1.answer} | ${QA.rollback2.answer}`);
    expect(text).not.toContain(QA.port.answer);
    // A near-identical topic spelling reads the same topic.
    const again = await client.readResource({ uri: `knowledge://${encodeURIComponent(" deploy!")}/${encodeURIComponent("roll back")}` });
    expect((again.contents[0] as { text: string }).text).toContain("MERGED:");
    const whole = await client.readResource({ uri: "knowledge://Staging%20database" });
    expect((whole.contents[0] as { text: string }).text).toContain(QA.port.answer);

    await expect(client.readResource({ uri: "knowledge://Nothing%20like%20this/x" })).rejects.toMatchObject({
      code: -32002,
      data: { code: "NOT_FOUND" },
    });
    await expect(client.readResource({ uri: "file:///etc/passwd" })).rejects.toMatchObject({ code: -32002 });

    const completion = await client.complete({
      ref: { type: "ref/resource", uri: "knowledge://{topic}/{query}" },
      argument: { name: "topic", value: "sta" },
    });
    expect(completion.completion.values).toEqual(["Staging database"]);
    const all = await client.complete({
      ref: { type: "ref/resource", uri: "knowledge://{topic}/{query}" },
      argument: { name: "topic", value: "" },
    });
    expect(all.completion.values).toEqual(["Deploy", "Staging database"]);
  });

  it("bad input: INVALID_REQUEST or NOT_FOUND, clearly", async () => {
    const { client } = c;
    const db = "memory_bad";
    await expectToolError(client, "store_qa", { db_name: db, question: "", answer: "a", topic: "t" }, "INVALID_REQUEST");
    await expectToolError(client, "store_qa", { db_name: db, question: "q", answer: "  ", topic: "t" }, "INVALID_REQUEST");
    await expectToolError(client, "store_qa", { db_name: db, question: "q", answer: "a", topic: "" }, "INVALID_REQUEST");
    expect(
      await expectToolError(client, "store_qa", { db_name: db, question: "q".repeat(2001), answer: "a", topic: "t" }, "INVALID_REQUEST"),
    ).toMatch(/2000/);
    expect(
      await expectToolError(client, "store_qa", { db_name: db, question: "q", answer: "a".repeat(20_001), topic: "t" }, "INVALID_REQUEST"),
    ).toMatch(/20000/);
    expect(
      await expectToolError(client, "store_qa", { db_name: db, question: "q", answer: "a", topic: "t".repeat(201) }, "INVALID_REQUEST"),
    ).toMatch(/200/);
    const stored = await ok<StoreQa>(client, "store_qa", { db_name: db, question: "What is q?", answer: "a", topic: "t" });
    const unknown = "01HZZZZZZZZZZZZZZZZZZZZZZZ";
    expect(
      await expectToolError(
        client,
        "store_knowledge",
        { db_name: db, text: "k", topic: "t", source_qa_ids: [stored.qa_id, unknown] },
        "NOT_FOUND",
      ),
    ).toContain(unknown);
    await expectToolError(client, "store_knowledge", { db_name: db, text: "", topic: "t" }, "INVALID_REQUEST");
    await expectToolError(client, "merge_knowledge", { db_name: db, threshold: 1.5 }, "INVALID_REQUEST");
    await expectToolError(client, "merge_knowledge", { db_name: db, threshold: -0.1 }, "INVALID_REQUEST");
    await expectToolError(client, "merge_knowledge", { db_name: db, topic: "no such topic at all" }, "NOT_FOUND");
    await expectToolError(client, "query_qa", { db_name: db, question: "" }, "INVALID_REQUEST");
    await expectToolError(client, "query_qa", { db_name: "never_created_memory", question: "x" }, "NOT_FOUND");
    await expectRpcError(client, "store_qa", { db_name: db, question: "q", answer: "a" }, /topic: required string is missing/);
    await expectRpcError(client, "query_qa", { db_name: db, question: "q", top_k: 0 }, /top_k/);
    // The failed store_knowledge marked nothing.
    const still = await ok<Query>(client, "query_qa", { db_name: db, question: "What is q?" });
    expect(still.results.map((r) => r.id)).toContain(stored.qa_id);
  });
}

/** A client without sampling: merge_knowledge says so and lists the groups; store_knowledge finishes the job. */
export function noSamplingSuite(connect: () => Promise<{ client: Client; close(): Promise<void> }>): void {
  let c: { client: Client; close(): Promise<void> };
  beforeAll(async () => {
    c = await connect();
    await ok(c.client, "create_database", { db_name: "nosampling" });
  });
  afterAll(async () => {
    await c?.close();
  });

  it("merge_knowledge is SAMPLING_UNAVAILABLE with the candidate groups; the agent merges them with store_knowledge", async () => {
    const { client } = c;
    const db_name = "nosampling";
    const a = await ok<StoreQa>(client, "store_qa", { db_name, ...QA.rollback1, topic: "Deploy" });
    const b = await ok<StoreQa>(client, "store_qa", { db_name, ...QA.rollback2, topic: "deploy" });
    await ok(client, "store_qa", { db_name, ...QA.port, topic: "Staging database" });

    const result = await call(client, "merge_knowledge", { db_name });
    expect(result.isError).toBe(true);
    const error = (
      result.structuredContent as {
        error: { code: string; message: string; details: { groups: { topic: string; qas: { qa_id: string }[] }[] } };
      }
    ).error;
    expect(error.code).toBe("SAMPLING_UNAVAILABLE");
    expect(error.message).toMatch(/sampling/);
    expect(error.message).toContain(a.qa_id);
    expect(error.message).toContain(b.qa_id);
    expect(error.message).toContain("store_knowledge");
    expect(error.details.groups).toHaveLength(1);
    expect(error.details.groups[0]?.topic).toBe("Deploy");
    expect(error.details.groups[0]?.qas.map((q) => q.qa_id).sort()).toEqual([a.qa_id, b.qa_id].sort());

    const stored = await ok<{ knowledge_id: string; merged_qa_ids: string[] }>(client, "store_knowledge", {
      db_name,
      text: "Roll back a failed deploy with `deploy rollback --to previous` (about a minute).",
      topic: "Deploy",
      source_qa_ids: [a.qa_id, b.qa_id],
    });
    expect([...stored.merged_qa_ids].sort()).toEqual([a.qa_id, b.qa_id].sort());
    const found = await ok<Query>(client, "query_qa", { db_name, question: "roll back a failed deploy", context: "deploy" });
    expect(found.results[0]).toMatchObject({ kind: "knowledge", id: stored.knowledge_id });
    expect(found.results.map((r) => r.id)).not.toContain(a.qa_id);
    // Nothing left to merge, so no sampling is needed.
    expect(await ok(client, "merge_knowledge", { db_name })).toMatchObject({ merged: [] });
  });
}
