import { describeSqlViews, SQL_DEFAULT_MAX_BYTES, SQL_DEFAULT_MAX_ROWS, SQL_DEFAULT_TIMEOUT_MS, type SqlResult } from "@docdb/core";
import { Command, type ParseOptionsResult } from "commander";
import { action, parseInteger, printJson } from "../context.js";
import { printTable } from "./db.js";

function cell(value: unknown): string {
  if (value === null || value === undefined) return "NULL";
  const text = typeof value === "string" ? value : JSON.stringify(value);
  const flat = text.replace(/\s+/g, " ");
  return flat.length > 80 ? `${flat.slice(0, 80)}…` : flat;
}

function printResult(result: SqlResult): void {
  if (result.columns.length > 0)
    printTable(
      result.columns,
      result.rows.map((row) => row.map(cell)),
    );
  const caps = `caps: ${result.limits.max_rows} rows, ${result.limits.max_bytes} bytes, ${result.limits.timeout_ms} ms`;
  const cut =
    result.truncated_by === "bytes"
      ? `the ${result.limits.max_bytes}-byte cap (--max-bytes raises it)`
      : `the ${result.limits.max_rows}-row cap (--max-rows raises it)`;
  const summary = result.truncated
    ? `${result.row_count} rows shown; the query had more and was cut at ${cut} (${caps})`
    : `${result.row_count} row${result.row_count === 1 ? "" : "s"} (${caps})`;
  process.stderr.write(`${summary}\n`);
}

/**
 * An argument that starts with "-" but holds whitespace is a query (one opening with a
 * "-- comment" line), never an option: no option name has a space in it.
 */
function isQueryText(arg: string): boolean {
  return arg.startsWith("-") && /\s/.test(arg);
}

/** `docdb sql`, reading a query that begins with "--" as the query rather than as an option. */
class SqlCommand extends Command {
  override parseOptions(args: string[]): ParseOptionsResult {
    const queries = args.filter(isQueryText);
    const { operands, unknown } = super.parseOptions(args.filter((arg) => !isQueryText(arg)));
    return { operands: [...queries, ...operands], unknown };
  }
}

export function sqlCommand(): Command {
  return new SqlCommand("sql")
    .description("run one read-only SQL query (SELECT) over the documented views")
    .argument("<query>", 'a SELECT, WITH … SELECT or VALUES statement, e.g. "SELECT count(*) FROM documents_v"')
    .option("--db <name>", "database", "vectors")
    .option("--max-rows <n>", `return at most n rows (1-10000); more are cut and reported`, String(SQL_DEFAULT_MAX_ROWS))
    .option("--timeout-ms <ms>", "stop the query after this long (100-60000)", String(SQL_DEFAULT_TIMEOUT_MS))
    .option(
      "--max-bytes <n>",
      "return at most n bytes of cells (1024-67108864); more rows are cut and reported, a first row alone larger is refused",
      String(SQL_DEFAULT_MAX_BYTES),
    )
    .option("--json", "print JSON: {columns, rows, row_count, truncated, truncated_by?, limits}")
    .addHelpText(
      "after",
      `\nViews: ${describeSqlViews()}.\n` +
        "The dialect is the store's: SQLite, or PostgreSQL with --store postgres://…; the examples work on both.\n" +
        "metadata and settings are JSON: metadata ->> 'lang' reads a member; embedded and enabled are 1 or 0.\n" +
        "Writes, DDL, ATTACH, PRAGMA, SET and COPY statements, other databases and functions with side effects are refused.\n" +
        'A query may begin with a "-- comment" line; docdb sql -- "<query>" also works.\n\n' +
        "Examples:\n" +
        `  docdb sql "SELECT coalesce(collection, '-') AS collection, count(*) AS docs FROM documents_v GROUP BY 1"\n` +
        `  docdb sql "SELECT id, title, created_at FROM documents_v ORDER BY created_at DESC LIMIT 5" --json\n` +
        `  docdb sql "SELECT metadata ->> 'lang' AS lang, count(*) AS docs FROM documents_v GROUP BY 1 ORDER BY 2 DESC"`,
    )
    .action(
      action(
        async (docdb, query: string, options: { db: string; maxRows: string; timeoutMs: string; maxBytes: string; json?: boolean }) => {
          const db = await docdb.database(options.db);
          const result = await db.sql(query, {
            max_rows: parseInteger(options.maxRows, "--max-rows"),
            timeout_ms: parseInteger(options.timeoutMs, "--timeout-ms"),
            max_bytes: parseInteger(options.maxBytes, "--max-bytes"),
          });
          if (options.json) return printJson(result);
          printResult(result);
        },
      ),
    );
}
