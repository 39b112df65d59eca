import { describeSqlViews, SQL_DEFAULT_MAX_ROWS } from "@docdb/core";
import { z } from "zod/v4";
import { defineTool } from "../tool.js";
import { databaseFor, dbNameArgument, type ToolsContext } from "./context.js";

const MCP_MAX_ROWS = 1000;

function cell(value: unknown): string {
  if (value === null || value === undefined) return "NULL";
  return typeof value === "string" ? value : JSON.stringify(value);
}

export function querySqlTool(context: ToolsContext) {
  const { defaultDb } = context;
  return defineTool({
    name: "query_sql",
    title: "Read-only SQL",
    description:
      "Answer counts, breakdowns and listings with one read-only SQL query (SELECT, WITH … SELECT or VALUES) over these views: " +
      `${describeSqlViews()}. The dialect is the store's: SQLite, or PostgreSQL (status says which). ` +
      "metadata and settings are JSON: metadata ->> 'tag' reads a member on both (numbers: CAST(metadata ->> 'year' AS INTEGER)); embedded and enabled are 1 or 0. " +
      `Example: SELECT coalesce(collection, '-') AS collection, count(*) AS docs FROM documents_v GROUP BY 1. ` +
      `Results are capped (${SQL_DEFAULT_MAX_ROWS} rows and 8 MiB of cells by default, 5 s); the answer states the caps and whether rows were cut. ` +
      "Writes, DDL, ATTACH, PRAGMA, SET and COPY statements, other databases and functions with side effects are refused. Use find_similar_documents to search by meaning.",
    input: z.strictObject({
      sql: z.string().describe("One SELECT statement, e.g. SELECT id, title FROM documents_v ORDER BY created_at DESC LIMIT 5"),
      db_name: dbNameArgument(defaultDb),
      max_rows: z
        .number()
        .int()
        .min(1)
        .max(MCP_MAX_ROWS)
        .optional()
        .describe(`Most rows to return, 1-${MCP_MAX_ROWS}. Default ${SQL_DEFAULT_MAX_ROWS}`),
    }),
    output: z.object({
      columns: z.array(z.string()),
      rows: z.array(z.array(z.unknown())).describe("One array per row, cells in column order"),
      row_count: z.number().int(),
      truncated: z
        .boolean()
        .describe("True when the query had more rows than max_rows, or more bytes than max_bytes: only the first ones are here"),
      truncated_by: z.enum(["rows", "bytes"]).optional().describe("Which cap cut the rows, when truncated"),
      limits: z
        .object({ max_rows: z.number().int(), timeout_ms: z.number().int(), max_bytes: z.number().int() })
        .describe("The caps the query ran under"),
    }),
    annotations: { readOnlyHint: true, openWorldHint: false },
    run: async ({ sql, db_name, max_rows }) => (await databaseFor(context, db_name)).sql(sql, { max_rows }),
    render: (result) => {
      const lines = [result.columns.join("\t"), ...result.rows.map((row) => row.map(cell).join("\t"))];
      const caps = `caps: ${result.limits.max_rows} rows, ${result.limits.max_bytes} bytes, ${result.limits.timeout_ms} ms`;
      const cut = result.truncated_by === "bytes" ? `${result.limits.max_bytes}-byte` : `${result.limits.max_rows}-row`;
      const summary = result.truncated
        ? `${result.row_count} rows shown; the query had more and was cut at the ${cut} cap (${caps})`
        : `${result.row_count} row${result.row_count === 1 ? "" : "s"} (${caps})`;
      return [summary, "", ...lines].join("\n");
    },
  });
}
