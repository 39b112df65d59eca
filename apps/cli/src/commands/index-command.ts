import { type Database, DocDBError, echo } from "@docdb/core";
import { Command } from "commander";
import { action, parseInteger, printJson, snakeKeys } from "../context.js";
import { createProgress } from "../progress.js";

type IndexStatus = NonNullable<Awaited<ReturnType<Database["indexStatus"]>>>;

const PHASES = { read: "reading vectors", build: "building index", save: "writing index" } as const;

function mb(bytes: number): string {
  return `${(bytes / 2 ** 20).toFixed(1)} MB`;
}

function printStatus(name: string, s: IndexStatus): void {
  const { settings: p } = s;
  const lines = [
    `database: ${name}`,
    `state: ${s.state}${s.state === "exact" ? ` (fewer than ${p.threshold} vectors: queries scan exactly)` : ""}`,
    `vectors: ${s.vectors}   indexed: ${s.indexed}   behind: ${s.behind}`,
    `file: ${s.location}${s.bytes > 0 ? ` (${mb(s.bytes)}, written ${s.savedAt})` : " (none)"}`,
    `library: ${s.library}`,
    `settings: threshold ${p.threshold}, M ${p.connectivity}, ef_construction ${p.expansionAdd}, ef_search ${p.expansionSearch}, ${p.quantization}`,
  ];
  if (s.damaged) {
    const d = s.damaged;
    const where = d.setAside ? `set aside as ${d.setAside}` : "not moved aside yet";
    const then = d.rebuilt
      ? `built again, written ${s.savedAt}`
      : "being built again: queries scan exactly until it is (a query starts it; closing waits for it)";
    lines.push(`damaged: the index file ${d.reason} (found ${d.foundAt}); ${where}; ${then}`);
  }
  if (s.keyword) lines.push(...keywordLines(s.keyword));
  if (s.searchWidth !== undefined) {
    lines.push(`search width: ${s.searchWidth} candidates per query at this size (ef_search not set for this database; set it to fix one)`);
  }
  process.stdout.write(`${lines.join("\n")}\n`);
}

const KEYWORD_STATES = {
  none: "FTS5 answers keyword finds alone",
  missing: "built in the background on the next keyword find; FTS5 answers until then",
  building: "being built or caught up in the background; FTS5 answers until it is ready",
  behind: "caught up on the next keyword find",
  ready: "in step with the database",
} as const;

function keywordLines(k: NonNullable<IndexStatus["keyword"]>): string[] {
  const below = k.state === "none" ? ` (${k.chunks} chunks, fewer than the threshold ${k.threshold})` : "";
  const lines = [
    `keyword index: ${k.state}${below}: ${KEYWORD_STATES[k.state]}`,
    `keyword rows: ${k.rows}   backlog: ${k.backlog} log entries   file: ${k.location}${k.bytes > 0 ? ` (${mb(k.bytes)}, written ${k.savedAt})` : " (none)"}`,
  ];
  if (k.damaged) {
    const d = k.damaged;
    lines.push(
      `keyword index damaged: the file ${d.reason} (found ${d.foundAt}); set aside as ${d.setAside}; ${d.rebuilt ? "built again" : "built again on the next keyword find"}`,
    );
  }
  return lines;
}

function optionalInteger(value: string | undefined, flag: string): number | undefined {
  return value === undefined ? undefined : parseInteger(value, flag);
}

/** `docdb index status|rebuild`: the approximate vector index kept beside a SQLite database. */
export function indexCommand(): Command {
  const index = new Command("index").description(
    "the indexes beside a database: the approximate vector index (HNSW) and the keyword index; status, rebuild",
  );
  index
    .command("status")
    .description("show whether the index is in step with the database, its size and settings")
    .option("--db <name>", "database", "vectors")
    .option("--json", "print JSON")
    .action(
      action(async (docdb, options: { db: string; json?: boolean }) => {
        const db = await docdb.database(options.db);
        const status = await db.indexStatus();
        if (options.json) return printJson(snakeKeys(status));
        if (!status) {
          process.stdout.write(`database ${options.db}: this engine keeps no vector index docdb manages\n`);
          return;
        }
        printStatus(options.db, status);
      }),
    );
  index
    .command("rebuild")
    .description(
      "build the indexes again: the vector index from the stored vectors (settings given are kept for the database) and, above its threshold, the keyword index from the chunks",
    )
    .option("--db <name>", "database", "vectors")
    .option("--threshold <n>", "vectors below which queries scan exactly (no index)")
    .option("--m <n>", "links per node (HNSW M)")
    .option("--ef-construction <n>", "candidates kept while building")
    .option("--ef-search <n>", "candidates kept while searching (higher: slower, better recall)")
    .option("--quantization <type>", "f16 (half the memory) or f32")
    .option("--json", "print JSON")
    .action(
      action(
        async (
          docdb,
          options: {
            db: string;
            threshold?: string;
            m?: string;
            efConstruction?: string;
            efSearch?: string;
            quantization?: string;
            json?: boolean;
          },
        ) => {
          if (options.quantization !== undefined && options.quantization !== "f16" && options.quantization !== "f32") {
            throw new DocDBError("INVALID_REQUEST", `--quantization must be f16 or f32, got "${echo(options.quantization)}"`);
          }
          const settings = {
            threshold: optionalInteger(options.threshold, "--threshold"),
            connectivity: optionalInteger(options.m, "--m"),
            expansionAdd: optionalInteger(options.efConstruction, "--ef-construction"),
            expansionSearch: optionalInteger(options.efSearch, "--ef-search"),
            quantization: options.quantization as "f16" | "f32" | undefined,
          };
          const db = await docdb.database(options.db);
          let phase: keyof typeof PHASES | undefined;
          let progress: ReturnType<typeof createProgress> | undefined;
          const started = Date.now();
          const status = await db
            .rebuildIndex({
              settings,
              onProgress: (p) => {
                if (p.phase !== phase) {
                  progress?.finish();
                  phase = p.phase;
                  progress = createProgress(PHASES[p.phase], { quiet: options.json });
                }
                progress?.update(p.done, p.total);
              },
            })
            .finally(() => progress?.finish());
          if (options.json) return printJson(snakeKeys(status));
          process.stdout.write(`rebuilt in ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
          printStatus(options.db, status);
        },
      ),
    );
  return index;
}
