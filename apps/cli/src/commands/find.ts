import { DEFAULT_MAX_CHARS, DocDBError, describeLocator, echo, SEARCH_MODES, type SearchMode, type SearchResult } from "@docdb/core";
import { Command } from "commander";
import { action, parseInteger, parseJsonOption, parseNumber, printJson, warn } from "../context.js";

function snippet(text: string, width = 240): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > width ? `${flat.slice(0, width)}…` : flat;
}

/**
 * `  docs/a.md:12-20`, or `  lines 12-20` for a document without a source; an extracted
 * document's passage by its place in the file: `  manual.pdf p. 3`, `  deck.pptx slide 2`.
 */
function where(r: SearchResult): string {
  if (r.locator) return `  ${r.source ? `${r.source} ` : ""}${describeLocator(r.locator)}`;
  const lines = r.line_start !== undefined ? `${r.line_start}-${r.line_end}` : "";
  if (!r.source) return lines ? `  lines ${lines}` : "";
  return lines ? `  ${r.source}:${lines}` : `  ${r.source}`;
}

/**
 * What the passage is about: `  PaymentService.retryCharge (method, typescript)` for code,
 * `  § Setup > Install` under a Markdown heading. The language is named only for code files
 * (a shell block in a README is still the README's text).
 */
function aboutOf(r: SearchResult): string {
  const codeFile = r.metadata?.kind === "code";
  const about = [r.symbol_kind, codeFile ? r.language : undefined].filter(Boolean).join(", ");
  if (r.symbol) return `  ${r.symbol}${about ? ` (${about})` : ""}`;
  if (r.heading) return `  § ${r.heading}`;
  return about ? `  (${about})` : "";
}

export function findCommand(): Command {
  return new Command("find")
    .alias("search")
    .description("find the passages that best answer a query")
    .argument("<query>", "what to look for, in any language")
    .option("--db <name>", "database", "vectors")
    .option("-k, --top-k <n>", "how many results (1-100)", "10")
    .option("--mode <mode>", `hybrid (meaning + keywords), vector or keyword`, "hybrid")
    .option(
      "--filter <json>",
      'filter on metadata, document fields and code chunks, e.g. \'{"lang":"ja","year":{"$gte":2020}}\' or \'{"language":"python","symbol_kind":{"$in":["function","method"]}}\' (dots reach nested keys; $eq $ne $gt $gte $lt $lte $in $nin $exists $prefix $and $or $not)',
    )
    .option("--threshold <x>", "drop results scoring below x (scores are 0-1 in every mode, higher is better)")
    .option("--path <prefix>", "only documents whose source path starts with this")
    .option("--collection <name>", "only documents of this collection (see `docdb collection ls`)")
    .option("--exact", "exact vector search even where an approximate index exists")
    .option(
      "--rerank",
      "reorder the best 50 candidates with a cross-encoder; its 0-1 relevance becomes the score (DOCDB_RERANKER=local|cohere|none, DOCDB_RERANKER_MODEL, DOCDB_RERANKER_MODEL_DIR, DOCDB_RERANKER_URL)",
    )
    .option(
      "--max-chars <n>",
      `budget: total characters of passage text (default ${DEFAULT_MAX_CHARS}); passages beyond it are cut or left as references`,
    )
    .option("--no-text", "references only (doc id, offsets, lines, score): expand one with `docdb get ID --range START:END`")
    .option("--no-merge", "one result per chunk, without merging neighbouring chunks of a document")
    .option("--json", "print JSON")
    .addHelpText(
      "after",
      '\nExamples:\n  docdb find "東京の人口" --mode keyword\n  docdb find "how do I rotate tokens" -k 5 --filter \'{"team":"auth"}\' --json',
    )
    .action(
      action(
        async (
          docdb,
          query: string,
          options: {
            db: string;
            topK: string;
            mode: string;
            filter?: string;
            threshold?: string;
            path?: string;
            collection?: string;
            exact?: boolean;
            rerank?: boolean;
            maxChars?: string;
            text: boolean;
            merge: boolean;
            json?: boolean;
          },
        ) => {
          if (!SEARCH_MODES.includes(options.mode as SearchMode)) {
            throw new DocDBError("INVALID_REQUEST", `--mode must be one of ${SEARCH_MODES.join(", ")}, got "${echo(options.mode)}"`);
          }
          const db = await docdb.database(options.db);
          const found = await db.findSimilar({
            query,
            top_k: parseInteger(options.topK, "--top-k"),
            mode: options.mode as SearchMode,
            filter: parseJsonOption(options.filter, "--filter"),
            threshold: options.threshold !== undefined ? parseNumber(options.threshold, "--threshold") : undefined,
            path_prefix: options.path,
            collection: options.collection,
            exact: options.exact === true,
            ...(options.rerank ? { rerank: true } : {}),
            max_chars: options.maxChars !== undefined ? parseInteger(options.maxChars, "--max-chars") : undefined,
            include_text: options.text,
            merge: options.merge,
          });
          warn(found.warnings);
          if (found.reranked_by) process.stderr.write(`reranked by ${found.reranked_by}\n`);
          if (found.note) process.stderr.write(`note: ${found.note.replace("get_document", "`docdb get ID --range START:END`")}\n`);
          if (options.json) return printJson(found.results);
          if (found.results.length === 0) {
            process.stdout.write("no results\n");
            return;
          }
          found.results.forEach((r, i) => {
            const distance = r.distance !== undefined ? ` distance ${r.distance.toFixed(4)}` : "";
            const before = r.retrieval_score !== undefined ? ` (before rerank ${r.retrieval_score.toPrecision(4)})` : "";
            const merged = r.chunk_ids.length > 1 ? ` (${r.chunk_ids.length} chunks)` : "";
            const text = r.text !== undefined ? `   ${snippet(r.text)}\n` : "";
            process.stdout.write(
              `${i + 1}. score ${r.score.toFixed(3)}${before}${distance}  doc ${r.doc_id}  [${r.start}-${r.end}]${merged}${where(r)}${aboutOf(r)}\n${text}${r.stale ? `   stale: ${r.note}\n` : ""}`,
            );
          });
        },
      ),
    );
}
