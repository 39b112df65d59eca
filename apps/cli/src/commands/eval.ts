import { createLogger, DocDBError, echo, SEARCH_MODES, type SearchMode } from "@docdb/core";
import { type EvalProgress, type EvalReport, evaluateRetrieval } from "@docdb/eval";
import { Command } from "commander";
import { embeddingFromFlags, type GlobalOptions, parseInteger, printJson, reportError } from "../context.js";
import { createProgress } from "../progress.js";

const MODE_CHOICES = [...SEARCH_MODES, "all"];

function parseModes(value: string): SearchMode[] {
  if (value === "all") return ["hybrid", "vector", "keyword"];
  if (!SEARCH_MODES.includes(value as SearchMode)) {
    throw new DocDBError("INVALID_REQUEST", `--mode must be one of ${MODE_CHOICES.join(", ")}, got "${echo(value)}"`);
  }
  return [value as SearchMode];
}

/** One progress bar per phase, replaced when the phase changes. */
function progressReporter() {
  let key = "";
  let bar: ReturnType<typeof createProgress> | undefined;
  const labels = { load: "loading corpus", embed: "embedding chunks", search: "searching" };
  return {
    update(p: EvalProgress) {
      const next = p.mode ? `${p.phase}:${p.mode}` : p.phase;
      if (next !== key) {
        bar?.finish();
        key = next;
        bar = createProgress(p.mode ? `${labels[p.phase]} (${p.mode})` : labels[p.phase]);
      }
      bar?.update(p.done, p.total);
    },
    finish() {
      bar?.finish();
    },
  };
}

const fixed = (x: number) => x.toFixed(4);

function printTable(reports: EvalReport[]): void {
  const first = reports[0] as EvalReport;
  const models = [...new Set(reports.map((r) => r.embedding_model).filter((m): m is string => m !== null))];
  const lines = [
    `dataset   ${first.dataset}`,
    ...(first.documents ? [`documents ${first.documents}`] : []),
    `corpus    ${first.corpus.documents} documents, ${first.corpus.chunks} chunks${first.corpus.skipped ? ` (${first.corpus.skipped} ${first.documents ? "files not stored" : "empty entries skipped"})` : ""}`,
    `queries   ${first.queries}${first.judgments_not_in_corpus ? ` (${first.judgments_not_in_corpus} relevant judgments name documents not in the corpus)` : ""}`,
    `model     ${models.length > 0 ? models.join(", ") : "none (keyword search uses no embeddings)"}`,
    ...(first.reranker ? [`reranker  ${first.reranker}`] : []),
    "",
    `${"mode".padEnd(8)}  ${"nDCG@10".padStart(8)}  ${"R@10".padStart(8)}  ${"MRR@10".padStart(8)}  ${"R@100".padStart(8)}  ${"p50 ms".padStart(8)}  ${"p95 ms".padStart(8)}`,
  ];
  for (const r of reports) {
    if (!r.available || !r.metrics || !r.latency_ms) {
      lines.push(`${r.mode.padEnd(8)}  not measured: ${r.reason ?? "unavailable"}`);
      continue;
    }
    const m = r.metrics;
    const cells = [m.ndcg_at_10, m.recall_at_10, m.mrr_at_10, m.recall_at_100].map((x) => fixed(x).padStart(8));
    const times = [r.latency_ms.p50, r.latency_ms.p95].map((x) => x.toFixed(1).padStart(8));
    lines.push(`${r.mode.padEnd(8)}  ${[...cells, ...times].join("  ")}`);
  }
  process.stdout.write(`${lines.join("\n")}\n`);
}

export function evalCommand(): Command {
  return new Command("eval")
    .description("measure retrieval quality on a BEIR-like dataset (corpus.jsonl, queries.jsonl, qrels.tsv)")
    .argument("<dataset-dir>", "folder holding corpus.jsonl, queries.jsonl and qrels.tsv")
    .option("--mode <mode>", `${MODE_CHOICES.join(", ")}`, "all")
    .option("--limit-queries <n>", "evaluate only the first n judged queries")
    .option("--rerank", "rerank every query's candidates with the configured reranker (DOCDB_RERANKER…), as `find --rerank` does")
    .option(
      "--documents <dir>",
      "load this folder of documents (one file per corpus entry, named <corpus id>.<ext>: PDF, DOCX, HTML…) instead of corpus.jsonl",
    )
    .option("--json", "print JSON: one object, or an array of one per mode with --mode all")
    .addHelpText(
      "after",
      "\nThe corpus is loaded into a fresh temporary database (removed afterwards) through the normal insert path;\n" +
        "vector and hybrid modes need an embedding model and say so when there is none.\n\n" +
        "Examples:\n  docdb eval ../shared/eval/scifact --mode keyword\n  docdb eval ../shared/eval/scifact --mode keyword --documents .tmp/eval-files/scifact-pdf\n  docdb eval ./my-set --limit-queries 200 --json",
    )
    .action(
      async (
        datasetDir: string,
        options: { mode: string; limitQueries?: string; rerank?: boolean; documents?: string; json?: boolean },
        command: Command,
      ) => {
        const progress = progressReporter();
        try {
          const modes = parseModes(options.mode);
          const limitQueries = options.limitQueries !== undefined ? parseInteger(options.limitQueries, "--limit-queries") : undefined;
          const globals = command.optsWithGlobals<GlobalOptions>();
          const level = globals.verbose ? "debug" : (process.env.DOCDB_LOG_LEVEL ?? "warn");
          const reports = await evaluateRetrieval({
            dataset: datasetDir,
            modes,
            limitQueries,
            embedding: embeddingFromFlags(command),
            rerank: options.rerank === true,
            documents: options.documents,
            onFailure: (file, message) => process.stderr.write(`${file}: ${message}\n`),
            store: globals.store ?? (process.env.DOCDB_STORE_URL || undefined),
            logger: createLogger({ level }),
            onProgress: (p) => progress.update(p),
          });
          progress.finish();
          if (options.json) printJson(options.mode === "all" ? reports : reports[0]);
          else printTable(reports);
        } catch (error) {
          progress.finish();
          reportError(error);
        }
      },
    );
}
