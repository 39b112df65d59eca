import { DocDBError, MAX_ANSWER_LENGTH, MAX_KNOWLEDGE_LENGTH, MAX_QUESTION_LENGTH, MAX_TOPIC_LENGTH, type MergeGroup } from "@docdb/core";
import { type CreateMessageRequest, ErrorCode } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod/v4";
import { defineTool, type ToolContext } from "../tool.js";
import { databaseFor, dbNameArgument, plural, type ToolsContext } from "./context.js";

/**
 * Agent memory over MCP: store_qa, query_qa, merge_knowledge, store_knowledge and list_topics.
 * merge_knowledge asks the client's own LLM to write each knowledge record through MCP sampling
 * (`sampling/createMessage`); the server holds no model or key of its own.
 */

const topicMatchSchema = z.object({
  name: z.string(),
  score: z.number().describe("1 for the same normalised name; otherwise the similarity that matched"),
  matched_by: z.enum(["name", "keywords", "vector"]),
});

const hitSchema = z.object({
  kind: z.enum(["qa", "knowledge"]),
  id: z.string().describe("qa_id or knowledge_id"),
  topic: z.string(),
  score: z.number().describe("0-1, higher is better"),
  question: z.string().optional(),
  answer: z.string().optional(),
  text: z.string().optional().describe("Knowledge records: the merged text"),
  source_qa_ids: z.array(z.string()).optional(),
});

const knowledgeSchema = z.object({
  knowledge_id: z.string(),
  topic: z.string(),
  topic_created: z.boolean(),
  merged_qa_ids: z.array(z.string()),
  embedded: z.boolean(),
  warnings: z.array(z.string()),
});

const thresholdArgument = z.number().describe("Similarity from 0 to 1 (higher groups fewer, closer questions)");

function snippet(text: string, width = 160): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > width ? `${flat.slice(0, width)}…` : flat;
}

/** The groups as an agent reads them in an error message: enough to merge them itself. */
export function describeGroups(groups: MergeGroup[]): string {
  return groups
    .map((g, i) => {
      const qas = g.qas.map((q) => `   - ${q.qa_id}: Q ${JSON.stringify(snippet(q.question))} A ${JSON.stringify(snippet(q.answer))}`);
      return [`${i + 1}. topic ${JSON.stringify(g.topic)} (${g.similarity} similarity ≥ ${g.score.toFixed(2)}):`, ...qas].join("\n");
    })
    .join("\n");
}

const SYSTEM_PROMPT =
  "You merge question-and-answer notes an AI agent stored into one knowledge entry. Write a single self-contained text that " +
  "answers all the questions, keeps every fact, command, number and caveat from the answers, resolves duplicates, and says " +
  "which answer is newer when two disagree. Reply with the knowledge text only, no preamble.";

function mergePrompt(group: MergeGroup): string {
  const notes = group.qas.map((q, i) => `Question ${i + 1}: ${q.question}\nAnswer ${i + 1}: ${q.answer}`).join("\n\n");
  return `Topic: ${group.topic}\n\nMerge these ${group.qas.length} notes into one knowledge entry:\n\n${notes}`;
}

/** Asks the client's LLM (MCP sampling) to write the knowledge text for one group. */
async function sampleMerge(context: ToolContext, group: MergeGroup, remaining: MergeGroup[]): Promise<string> {
  const sampling = context.sampling;
  if (!sampling) throw new DocDBError("SAMPLING_UNAVAILABLE", "this connection cannot send sampling requests");
  const params: CreateMessageRequest["params"] = {
    systemPrompt: SYSTEM_PROMPT,
    messages: [{ role: "user", content: { type: "text", text: mergePrompt(group) } }],
    maxTokens: 2000,
    temperature: 0,
  };
  let result: Awaited<ReturnType<NonNullable<ToolContext["sampling"]>["createMessage"]>>;
  try {
    result = await sampling.createMessage(params);
  } catch (error) {
    const timeout = (error as { code?: unknown; data?: { timeout?: unknown } }).code === ErrorCode.RequestTimeout;
    const waited = (error as { data?: { timeout?: unknown } }).data?.timeout;
    const reason = timeout
      ? `no answer within ${typeof waited === "number" ? `${Math.round(waited / 100) / 10} s` : "the time limit"}; DOCDB_SAMPLING_TIMEOUT_MS sets how long docdb waits`
      : error instanceof Error
        ? error.message
        : String(error);
    throw new DocDBError(
      "SAMPLING_UNAVAILABLE",
      `the client's LLM did not merge the group (${reason}). Groups not merged yet:\n${describeGroups(remaining)}\n` +
        "Merge them yourself and call store_knowledge {text, topic, source_qa_ids} for each.",
      { details: { groups: remaining } },
    );
  }
  const content = result.content as { type: string; text?: string } | { type: string; text?: string }[];
  const text = (Array.isArray(content) ? content : [content])
    .filter((c) => c.type === "text" && typeof c.text === "string")
    .map((c) => c.text)
    .join("\n")
    .trim();
  if (text === "") {
    throw new DocDBError(
      "SAMPLING_UNAVAILABLE",
      `the client's LLM answered without text. Groups not merged yet:\n${describeGroups(remaining)}\nMerge them yourself and call store_knowledge.`,
      { details: { groups: remaining } },
    );
  }
  return text;
}

export function memoryTools(context: ToolsContext) {
  const { defaultDb } = context;
  const storeQa = defineTool({
    name: "store_qa",
    title: "Remember a solved question",
    description:
      "Store a question you worked out with its answer, filed under a topic, so later agents find it with query_qa instead of " +
      "solving it again. The topic is matched against existing topics (same name up to case and punctuation, or similar by " +
      "meaning or words) and reused; otherwise it is created. Returns similar unmerged questions of that topic: candidates " +
      `for merge_knowledge. Question ≤ ${MAX_QUESTION_LENGTH} characters, answer ≤ ${MAX_ANSWER_LENGTH}, topic ≤ ${MAX_TOPIC_LENGTH}.`,
    input: z.strictObject({
      question: z.string().describe("The question, as someone would ask it"),
      answer: z.string().describe("The answer you found, with the commands, numbers and caveats that matter"),
      topic: z.string().describe('A short topic name, e.g. "Deploy" or "Staging database"'),
      topic_description: z.string().optional().describe("What the topic covers; stored when the topic is new"),
      db_name: dbNameArgument(defaultDb),
    }),
    output: z.object({
      qa_id: z.string(),
      topic: z.string().describe("The topic it was filed under (an existing one's name when reused)"),
      topic_created: z.boolean(),
      topic_match: topicMatchSchema.nullable().describe("How an existing topic was matched; null when created"),
      similar: z
        .array(z.object({ qa_id: z.string(), question: z.string(), score: z.number() }))
        .describe("Unmerged questions of the topic at or above the merge threshold"),
      similarity: z.enum(["vector", "keywords"]),
      embedded: z.boolean(),
      warnings: z.array(z.string()),
    }),
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    run: async ({ db_name, ...input }) => (await databaseFor(context, db_name, { write: true })).memory.storeQa(input),
    render: (r) =>
      [
        `Stored QA ${r.qa_id} under topic "${r.topic}"${r.topic_created ? " (new topic)" : ` (existing topic, matched by ${r.topic_match?.matched_by})`}.`,
        r.similar.length > 0
          ? `${plural(r.similar.length, "similar unmerged question")} (${r.similarity}); merge_knowledge can merge them:\n${r.similar
              .map((s) => `- ${s.qa_id} (${s.score.toFixed(2)}): ${snippet(s.question)}`)
              .join("\n")}`
          : "No similar unmerged questions in this topic.",
        ...r.warnings.map((w) => `Warning: ${w}`),
      ].join("\n"),
  });

  const queryQa = defineTool({
    name: "query_qa",
    title: "Recall answers",
    description:
      "Look up what was already worked out: answers (unmerged QA records) and knowledge (merged records). With a context, the " +
      "context picks the topic and only that topic is searched; when no topic matches, the result is empty and `note` says so " +
      "(no fallback). Without a context every topic is searched.",
    input: z.strictObject({
      question: z.string().describe("The question to answer from memory"),
      context: z.string().optional().describe('What you are working on (picks the topic), e.g. "deploying the web app to production"'),
      top_k: z.number().int().min(1).max(100).optional().describe("How many records, 1-100. Default 5"),
      db_name: dbNameArgument(defaultDb),
    }),
    output: z.object({
      results: z.array(hitSchema),
      topic: topicMatchSchema.nullable().describe("The topic the context picked; null without context or when none matched"),
      note: z.string().optional().describe("Why there are no results"),
      warnings: z.array(z.string()),
    }),
    annotations: { readOnlyHint: true, openWorldHint: false },
    run: async ({ db_name, ...input }) => (await databaseFor(context, db_name)).memory.queryQa(input),
    render: (r) => {
      const head = r.topic ? `Topic "${r.topic.name}" (${r.topic.matched_by} ${r.topic.score.toFixed(2)}): ` : "";
      const lines = r.results.map((h, i) =>
        h.kind === "knowledge"
          ? `${i + 1}. knowledge ${h.id} [${h.topic}] score ${h.score.toFixed(3)}\n${h.text}`
          : `${i + 1}. qa ${h.id} [${h.topic}] score ${h.score.toFixed(3)}\nQ: ${h.question}\nA: ${h.answer}`,
      );
      return [
        `${head}${plural(r.results.length, "record")}${r.note ? ` — ${r.note}` : ""}`,
        ...r.warnings.map((w) => `Warning: ${w}`),
        ...lines,
      ].join("\n\n");
    },
  });

  const mergeKnowledge = defineTool({
    name: "merge_knowledge",
    title: "Merge similar answers into knowledge",
    description:
      "Find groups of similar unmerged questions (per topic) and have your client's LLM merge each group into one knowledge " +
      "record through MCP sampling; the merged QAs are kept but no longer returned by searches. The server has no LLM of its " +
      "own: a client without sampling gets SAMPLING_UNAVAILABLE listing the groups, to merge them yourself with store_knowledge.",
    input: z.strictObject({
      topic: z.string().optional().describe("Only this topic (default: every topic)"),
      threshold: thresholdArgument.optional(),
      db_name: dbNameArgument(defaultDb),
    }),
    output: z.object({
      merged: z.array(knowledgeSchema.extend({ score: z.number() })).describe("One knowledge record per merged group"),
      threshold: z.number(),
      warnings: z.array(z.string()),
    }),
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    run: async ({ db_name, topic, threshold }, call) => {
      const memory = (await databaseFor(context, db_name)).memory;
      const candidates = await memory.mergeCandidates({ topic, threshold });
      if (candidates.groups.length > 0 && !call.sampling?.available()) {
        throw new DocDBError(
          "SAMPLING_UNAVAILABLE",
          `your client does not offer MCP sampling, so the server cannot ask your LLM to merge. ${plural(candidates.groups.length, "candidate group")}:\n` +
            `${describeGroups(candidates.groups)}\nMerge each group into one text yourself and call store_knowledge {text, topic, source_qa_ids}.`,
          { details: { groups: candidates.groups, threshold: candidates.threshold } },
        );
      }
      const merged = [];
      for (const [i, group] of candidates.groups.entries()) {
        const text = await sampleMerge(call, group, candidates.groups.slice(i));
        const stored = await memory.storeKnowledge({ text, topic: group.topic, source_qa_ids: group.qas.map((q) => q.qa_id) });
        merged.push({ ...stored, score: group.score });
      }
      return { merged, threshold: candidates.threshold, warnings: candidates.warnings };
    },
    render: (r) =>
      [
        r.merged.length === 0
          ? `No groups of similar unmerged questions at threshold ${r.threshold}.`
          : `Merged ${plural(r.merged.length, "group")} into knowledge:`,
        ...r.merged.map((k) => `- ${k.knowledge_id} [${k.topic}] from ${k.merged_qa_ids.join(", ")}`),
        ...r.warnings.map((w) => `Warning: ${w}`),
      ].join("\n"),
  });

  const storeKnowledge = defineTool({
    name: "store_knowledge",
    title: "Store merged knowledge",
    description:
      "Store a knowledge text under a topic, e.g. your own merge of the groups merge_knowledge listed. The QAs in source_qa_ids " +
      `are marked merged (kept, no longer searched); unknown ids are NOT_FOUND and nothing is stored. Text ≤ ${MAX_KNOWLEDGE_LENGTH} characters.`,
    input: z.strictObject({
      text: z.string().describe("The knowledge text"),
      topic: z.string().describe("The topic (matched like store_qa's)"),
      source_qa_ids: z.array(z.string()).optional().describe("qa_ids this knowledge replaces"),
      db_name: dbNameArgument(defaultDb),
    }),
    output: knowledgeSchema,
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    run: async ({ db_name, ...input }) => (await databaseFor(context, db_name, { write: true })).memory.storeKnowledge(input),
    render: (r) =>
      [
        `Stored knowledge ${r.knowledge_id} under topic "${r.topic}"${r.topic_created ? " (new topic)" : ""}; ${plural(r.merged_qa_ids.length, "QA")} marked merged.`,
        ...r.warnings.map((w) => `Warning: ${w}`),
      ].join("\n"),
  });

  const listTopics = defineTool({
    name: "list_topics",
    title: "List memory topics",
    description: "The topics of agent memory with their counts: QA records (all and unmerged) and knowledge records.",
    input: z.strictObject({ db_name: dbNameArgument(defaultDb) }),
    output: z.object({
      topics: z.array(
        z.object({
          topic_id: z.string(),
          name: z.string(),
          normalized_name: z.string(),
          description: z.string(),
          qa_count: z.number().int(),
          unmerged_count: z.number().int(),
          knowledge_count: z.number().int(),
          created_at: z.string(),
        }),
      ),
    }),
    annotations: { readOnlyHint: true, openWorldHint: false },
    run: async ({ db_name }) => ({ topics: await (await databaseFor(context, db_name)).memory.listTopics() }),
    render: ({ topics }) =>
      topics.length === 0
        ? "No topics yet: store_qa creates them."
        : topics
            .map(
              (t) =>
                `- ${t.name}: ${plural(t.qa_count, "QA")} (${t.unmerged_count} unmerged), ${plural(t.knowledge_count, "knowledge record")}`,
            )
            .join("\n"),
  });

  return { storeQa, queryQa, mergeKnowledge, storeKnowledge, listTopics };
}
