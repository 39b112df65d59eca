// Reading a BEIR-style test set: corpus.jsonl (streamed), queries.jsonl, qrels.tsv.
import { createReadStream, existsSync, readFileSync, statSync } from "node:fs";
import { basename, join, resolve } from "node:path";
import { createInterface } from "node:readline";
import { DocDBError } from "@docdb/core";

/**
 * A retrieval test set in the BEIR-like form: `corpus.jsonl` ({"id","title","text"} a line),
 * `queries.jsonl` ({"id","text"} a line) and `qrels.tsv` (query id, document id, grade; an
 * optional header; the 4-column TREC form `qid 0 docid grade` is accepted too).
 *
 * The corpus is streamed (it can be large); queries and judgments are read whole.
 */
export interface CorpusDocument {
  id: string;
  title: string;
  text: string;
}

export interface EvalQuery {
  id: string;
  text: string;
}

export interface EvalDataset {
  name: string;
  dir: string;
  corpusPath: string;
  /** Queries that have at least one relevant judgment, in file order. */
  queries: EvalQuery[];
  /** Query id → (document id → grade). */
  qrels: Map<string, Map<string, number>>;
  /** Queries in queries.jsonl without any relevant judgment (not evaluated, as in BEIR). */
  unjudgedQueries: number;
}

const FILES = ["corpus.jsonl", "queries.jsonl", "qrels.tsv"] as const;

function invalid(file: string, line: number, why: string): DocDBError {
  return new DocDBError("INVALID_REQUEST", `${file} line ${line}: ${why}`);
}

function idOf(value: unknown): string | undefined {
  if (typeof value === "string" && value !== "") return value;
  if (typeof value === "number" && Number.isFinite(value)) return String(value);
  return undefined;
}

function parseJsonLine(file: string, line: number, raw: string): Record<string, unknown> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch (error) {
    throw invalid(file, line, `not valid JSON (${(error as Error).message})`);
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) throw invalid(file, line, "expected a JSON object");
  return parsed as Record<string, unknown>;
}

/** One corpus line as a document; `title` defaults to "". */
export function parseCorpusLine(raw: string, line: number, file = "corpus.jsonl"): CorpusDocument {
  const obj = parseJsonLine(file, line, raw);
  const id = idOf(obj._id ?? obj.id);
  if (id === undefined) throw invalid(file, line, 'missing "id" (a string or number)');
  if (typeof obj.text !== "string") throw invalid(file, line, `document "${id}" has no "text" string`);
  const title = typeof obj.title === "string" ? obj.title : "";
  return { id, title, text: obj.text };
}

function readQueries(path: string): EvalQuery[] {
  const file = basename(path);
  const queries: EvalQuery[] = [];
  readFileSync(path, "utf8")
    .split(/\r?\n/)
    .forEach((raw, i) => {
      if (raw.trim() === "") return;
      const obj = parseJsonLine(file, i + 1, raw);
      const id = idOf(obj._id ?? obj.id);
      if (id === undefined) throw invalid(file, i + 1, 'missing "id" (a string or number)');
      if (typeof obj.text !== "string" || obj.text.trim() === "") throw invalid(file, i + 1, `query "${id}" has no "text"`);
      queries.push({ id, text: obj.text });
    });
  return queries;
}

function readQrels(path: string): Map<string, Map<string, number>> {
  const file = basename(path);
  const qrels = new Map<string, Map<string, number>>();
  readFileSync(path, "utf8")
    .split(/\r?\n/)
    .forEach((raw, i) => {
      if (raw.trim() === "") return;
      const fields = raw.trim().split(/\t|\s+/);
      if (fields.length !== 3 && fields.length !== 4) {
        throw invalid(file, i + 1, `expected "query_id<TAB>doc_id<TAB>score" (or TREC "qid 0 docid score"), got ${fields.length} fields`);
      }
      const [queryId, docId, grade] = fields.length === 4 ? [fields[0], fields[2], fields[3]] : fields;
      const score = Number(grade);
      if (!Number.isFinite(score)) {
        if (i === 0) return; // a header line
        throw invalid(file, i + 1, `score "${grade}" is not a number`);
      }
      const judged = qrels.get(queryId as string) ?? new Map<string, number>();
      judged.set(docId as string, score);
      qrels.set(queryId as string, judged);
    });
  return qrels;
}

/** Reads queries and judgments and checks the corpus file is there. */
export function loadDataset(dir: string): EvalDataset {
  const root = resolve(dir);
  if (!existsSync(root) || !statSync(root).isDirectory()) {
    throw new DocDBError("NOT_FOUND", `no dataset folder at ${root}: pass a folder holding ${FILES.join(", ")}`);
  }
  const missing = FILES.filter((f) => !existsSync(join(root, f)));
  if (missing.length > 0) {
    throw new DocDBError(
      "NOT_FOUND",
      `dataset folder ${root} lacks ${missing.join(", ")}: a dataset is corpus.jsonl ({"id","title","text"} a line), queries.jsonl ({"id","text"} a line) and qrels.tsv (query_id, doc_id, score)`,
    );
  }
  const allQueries = readQueries(join(root, "queries.jsonl"));
  const qrels = readQrels(join(root, "qrels.tsv"));
  const judged = (id: string) => [...(qrels.get(id)?.values() ?? [])].some((g) => g > 0);
  const queries = allQueries.filter((q) => judged(q.id));
  if (queries.length === 0) {
    throw new DocDBError("INVALID_REQUEST", `dataset ${root}: no query in queries.jsonl has a relevant judgment (score > 0) in qrels.tsv`);
  }
  return {
    name: basename(root),
    dir: root,
    corpusPath: join(root, "corpus.jsonl"),
    queries,
    qrels,
    unjudgedQueries: allQueries.length - queries.length,
  };
}

/** Number of non-empty lines of the corpus (for progress), counted without parsing. */
export async function countCorpusLines(path: string): Promise<number> {
  let lines = 0;
  for await (const line of createInterface({ input: createReadStream(path), crlfDelay: Number.POSITIVE_INFINITY })) {
    if (line.trim() !== "") lines++;
  }
  return lines;
}

/** The corpus, one document at a time. */
export async function* readCorpus(path: string): AsyncGenerator<CorpusDocument> {
  let line = 0;
  for await (const raw of createInterface({ input: createReadStream(path), crlfDelay: Number.POSITIVE_INFINITY })) {
    line++;
    if (raw.trim() === "") continue;
    yield parseCorpusLine(raw, line);
  }
}
