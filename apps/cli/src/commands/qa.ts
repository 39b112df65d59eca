import { DocDBError, type MemoryHit, type MergeGroup } from "@docdb/core";
import { Command } from "commander";
import { action, CREATE_FLAG, parseInteger, parseNumber, printJson, warn, writableDatabase } from "../context.js";

function snippet(text: string, width = 200): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > width ? `${flat.slice(0, width)}…` : flat;
}

function printHit(h: MemoryHit, i: number): void {
  if (h.kind === "knowledge") {
    process.stdout.write(`${i + 1}. knowledge ${h.id} [${h.topic}] score ${h.score.toPrecision(4)}\n   ${snippet(h.text ?? "", 400)}\n`);
  } else {
    process.stdout.write(
      `${i + 1}. qa ${h.id} [${h.topic}] score ${h.score.toPrecision(4)}\n   Q: ${snippet(h.question ?? "")}\n   A: ${snippet(h.answer ?? "", 400)}\n`,
    );
  }
}

function printGroups(groups: MergeGroup[]): void {
  groups.forEach((g, i) => {
    process.stdout.write(`${i + 1}. topic "${g.topic}" (${g.similarity} similarity ≥ ${g.score.toFixed(2)})\n`);
    for (const q of g.qas) process.stdout.write(`   - ${q.qa_id}: ${snippet(q.question)}\n`);
  });
}

/**
 * `docdb qa …`: agent memory from the command line — question–answer records by topic, merged
 * into knowledge. Merging needs an LLM, which the CLI does not have: `qa merge --dry-run` shows
 * the candidate groups and `qa knowledge` stores a merge written elsewhere.
 */
export function qaCommand(): Command {
  const qa = new Command("qa").description("agent memory: questions with their answers by topic, merged into knowledge");

  qa.command("add")
    .description("store a question with its answer under a topic (a near-identical existing topic is reused)")
    .requiredOption("-q, --question <text>", "the question (at most 2,000 characters)")
    .requiredOption("-a, --answer <text>", "the answer (at most 20,000 characters)")
    .requiredOption("-t, --topic <name>", 'topic name, e.g. "Deploy" (at most 200 characters)')
    .option("--db <name>", "database", "vectors")
    .option(...CREATE_FLAG)
    .option("--json", "print JSON")
    .addHelpText("after", '\nExample:\n  docdb qa add -t Deploy -q "How do I roll back a deploy?" -a "deploy rollback --to previous"')
    .action(
      action(
        async (
          docdb,
          options: { question: string; answer: string; topic: string; db: string; create?: boolean; json?: boolean },
          command: Command,
        ) => {
          const db = await writableDatabase(docdb, command, options);
          const r = await db.memory.storeQa({ question: options.question, answer: options.answer, topic: options.topic });
          if (options.json) return printJson(r);
          warn(r.warnings);
          process.stdout.write(`stored qa ${r.qa_id} under topic "${r.topic}"${r.topic_created ? " (new topic)" : ""}\n`);
          if (r.similar.length > 0) {
            process.stdout.write(`similar unmerged questions (${r.similarity}); \`docdb qa merge --dry-run\` groups them:\n`);
            for (const s of r.similar) process.stdout.write(`  - ${s.qa_id} (${s.score.toFixed(2)}): ${snippet(s.question)}\n`);
          }
        },
      ),
    );

  qa.command("find")
    .description("answer a question from memory (the context, when given, picks the topic)")
    .argument("<question>", "the question")
    .option("-c, --context <text>", "what you are working on: picks the topic (no topic matches → no results)")
    .option("-k, --top-k <n>", "how many records (1-100)", "5")
    .option("--db <name>", "database", "vectors")
    .option("--json", "print JSON")
    .action(
      action(async (docdb, question: string, options: { context?: string; topK: string; db: string; json?: boolean }) => {
        const db = await docdb.database(options.db);
        const r = await db.memory.queryQa({ question, context: options.context, top_k: parseInteger(options.topK, "--top-k") });
        if (options.json) return printJson(r);
        warn(r.warnings);
        if (r.topic) process.stdout.write(`topic "${r.topic.name}" (${r.topic.matched_by} ${r.topic.score.toFixed(2)})\n`);
        if (r.results.length === 0) process.stdout.write(`no results${r.note ? `: ${r.note}` : ""}\n`);
        r.results.forEach(printHit);
      }),
    );

  qa.command("list")
    .description("list QA records (unmerged ones; --all adds merged)")
    .option("-t, --topic <name>", "only this topic")
    .option("--all", "include QAs already merged into knowledge")
    .option("--db <name>", "database", "vectors")
    .option("--json", "print JSON")
    .action(
      action(async (docdb, options: { topic?: string; all?: boolean; db: string; json?: boolean }) => {
        const db = await docdb.database(options.db);
        const records = await db.memory.listQa({ topic: options.topic, include_merged: options.all === true });
        if (options.json) return printJson(records);
        if (records.length === 0) process.stdout.write("no QA records\n");
        for (const r of records) {
          process.stdout.write(
            `${r.qa_id} [${r.topic}]${r.merged ? ` merged into ${r.merged_into}` : ""}\n  Q: ${snippet(r.question)}\n  A: ${snippet(r.answer)}\n`,
          );
        }
      }),
    );

  qa.command("topics")
    .description("list topics with their counts")
    .option("--db <name>", "database", "vectors")
    .option("--json", "print JSON")
    .action(
      action(async (docdb, options: { db: string; json?: boolean }) => {
        const topics = await (await docdb.database(options.db)).memory.listTopics();
        if (options.json) return printJson(topics);
        if (topics.length === 0) process.stdout.write("no topics yet: `docdb qa add` creates them\n");
        for (const t of topics) {
          process.stdout.write(`${t.name}: ${t.qa_count} QA (${t.unmerged_count} unmerged), ${t.knowledge_count} knowledge\n`);
        }
      }),
    );

  qa.command("merge")
    .description("show groups of similar unmerged QAs to merge into knowledge (the CLI has no LLM: use --dry-run)")
    .option("--dry-run", "only show the candidate groups")
    .option("-t, --topic <name>", "only this topic")
    .option("--threshold <x>", "similarity from 0 to 1 (default: the merge threshold of the measure in use)")
    .option("--db <name>", "database", "vectors")
    .option("--json", "print JSON")
    .action(
      action(async (docdb, options: { dryRun?: boolean; topic?: string; threshold?: string; db: string; json?: boolean }) => {
        const db = await docdb.database(options.db);
        const candidates = await db.memory.mergeCandidates({
          topic: options.topic,
          threshold: options.threshold !== undefined ? parseNumber(options.threshold, "--threshold") : undefined,
        });
        if (!options.dryRun) {
          throw new DocDBError(
            "INVALID_REQUEST",
            `merging needs an LLM and the CLI has none: run \`docdb qa merge --dry-run\` to see the ${candidates.groups.length} candidate group(s), ` +
              "merge through an MCP client (merge_knowledge uses its LLM), or store your own merge with `docdb qa knowledge`",
          );
        }
        if (options.json) return printJson(candidates);
        warn(candidates.warnings);
        if (candidates.groups.length === 0)
          process.stdout.write(`no groups of similar unmerged QAs at threshold ${candidates.threshold}\n`);
        printGroups(candidates.groups);
      }),
    );

  qa.command("knowledge")
    .description("store a knowledge text under a topic, marking the QAs it merges as merged")
    .requiredOption("-t, --topic <name>", "topic")
    .requiredOption("--text <text>", "the knowledge text (at most 20,000 characters)")
    .option("--qa <ids...>", "qa_ids this knowledge replaces")
    .option("--db <name>", "database", "vectors")
    .option(...CREATE_FLAG)
    .option("--json", "print JSON")
    .action(
      action(
        async (
          docdb,
          options: { topic: string; text: string; qa?: string[]; db: string; create?: boolean; json?: boolean },
          command: Command,
        ) => {
          const db = await writableDatabase(docdb, command, options);
          const r = await db.memory.storeKnowledge({ text: options.text, topic: options.topic, source_qa_ids: options.qa });
          if (options.json) return printJson(r);
          warn(r.warnings);
          process.stdout.write(`stored knowledge ${r.knowledge_id} under topic "${r.topic}"; ${r.merged_qa_ids.length} QA marked merged\n`);
        },
      ),
    );

  return qa;
}
