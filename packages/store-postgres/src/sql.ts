// Read-only SQL (`Store.querySql`): one checked query run in a READ ONLY transaction, capped in
// rows (a cursor) and time (statement_timeout), its cells converted as SQLite's reader gives them.
import { type SqlQueryOptions, type SqlQueryResult, StoreError } from "@docdb/store";
import type pg from "pg";
import Cursor from "pg-cursor";
import { type Database, errorText, isConnectionError, pgCode, quoteIdent } from "./db.js";
import { checkReadOnlySql, VOLATILE_ALLOWED } from "./sql-guard.js";

/**
 * How long past its time cap a query may go unanswered before docdb gives up on it from this
 * side: PostgreSQL's statement_timeout stops it on the server first; this catches a server that
 * does not (PGlite, which has no timer interrupts) or a connection that stalls.
 */
const CLIENT_GRACE_MS = 1000;

/** Every value as PostgreSQL's text output; cells are converted by column type below. */
const RAW_TEXT = { getTypeParser: () => (value: string) => value } as unknown as pg.CustomTypesConfig;

const NUMERIC_TYPES = new Set([20, 21, 23, 26, 700, 701, 1700]); // int8, int2, int4, oid, float4, float8, numeric
const BOOL = 16;
const BYTEA = 17;

/**
 * A cell as the contract says (numbers, strings, null; blobs as `base64:`), and as SQLite gives
 * it: booleans are 1 and 0, integers past 2^53 lose precision, everything else (json and jsonb,
 * dates, arrays, vectors) is PostgreSQL's text form.
 */
function toCell(value: unknown, type: number): unknown {
  if (value === null || value === undefined) return null;
  const text = String(value);
  if (NUMERIC_TYPES.has(type)) {
    const n = Number(text);
    return Number.isFinite(n) ? n : text;
  }
  if (type === BOOL) return text === "t" ? 1 : 0;
  if (type === BYTEA && text.startsWith("\\x")) return `base64:${Buffer.from(text.slice(2), "hex").toString("base64")}`;
  return text;
}

export interface ReadOnlySqlTarget {
  db: Database;
  /** The database's schema: the only one on the search_path and the only one a query may name. */
  schema: string;
  /** A role to run as (SET LOCAL ROLE), when the engine was given one. */
  role?: string;
}

function timeCap(timeoutMs: number): StoreError {
  return new StoreError("INVALID_REQUEST", `stopped at the ${timeoutMs} ms time cap`);
}

/**
 * One read-only query, checked (sql-guard.ts) and then run in a READ ONLY transaction with the
 * search_path pinned to the database's schema, statement and lock timeouts at the time cap, and
 * (when configured) a reader role; through a cursor that fetches at most maxRows + 1 rows, so a
 * query with endless rows stops at the cap. The transaction is always rolled back.
 */
export async function runReadOnlySql(target: ReadOnlySqlTarget, sql: string, options: SqlQueryOptions): Promise<SqlQueryResult> {
  const { maxRows, timeoutMs } = options;
  const checked = await checkReadOnlySql(sql, target.schema);
  const client = await target.db.connect();
  let timedOut = false;
  let released = false;
  const release = (error?: Error) => {
    if (released) return;
    released = true;
    client.release(error);
  };

  const work = (async (): Promise<SqlQueryResult> => {
    await client.query("BEGIN READ ONLY");
    await client.query(
      `SELECT set_config('search_path', $1, true), set_config('statement_timeout', $2, true), set_config('lock_timeout', $2, true)`,
      [quoteIdent(target.schema), String(timeoutMs)],
    );
    if (checked.functions.length > 0) {
      const { rows } = await client.query<{ name: string }>(
        `SELECT DISTINCT proname AS name FROM pg_catalog.pg_proc WHERE proname = ANY($1::text[]) AND provolatile = 'v' ORDER BY 1`,
        [checked.functions],
      );
      const risky = rows.map((r) => r.name).filter((name) => !VOLATILE_ALLOWED.has(name));
      if (risky.length > 0) {
        throw new StoreError(
          "INVALID_REQUEST",
          `function ${risky[0]}() is not allowed in read-only SQL: PostgreSQL marks it volatile (it may change something outside the query)`,
        );
      }
    }
    if (target.role) await client.query(`SELECT set_config('role', $1, true)`, [target.role]);
    const cursor = client.query(new Cursor(sql, [], { rowMode: "array", types: RAW_TEXT }));
    const { rows, fields } = await new Promise<{ rows: unknown[][]; fields: pg.FieldDef[] }>((resolve, reject) => {
      cursor.read(maxRows + 1, (error, rows, result) => {
        if (error) reject(error);
        else resolve({ rows: rows as unknown[][], fields: (result as pg.QueryResult | undefined)?.fields ?? [] });
      });
    });
    await cursor.close();
    const truncated = rows.length > maxRows;
    const kept = truncated ? rows.slice(0, maxRows) : rows;
    const types = fields.map((f) => f.dataTypeID);
    return {
      columns: fields.map((f) => f.name),
      rows: kept.map((row) => row.map((value, i) => toCell(value, types[i] ?? 25))),
      truncated,
    };
  })();

  let timer: NodeJS.Timeout | undefined;
  const backstop = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      timedOut = true;
      // The connection is dropped, never reused: its server may still be running the query.
      const error = new Error("docdb read-only SQL: stopped at the time cap");
      release(error);
      (client as unknown as { connection?: { stream?: { destroy(): void } } }).connection?.stream?.destroy();
      reject(timeCap(timeoutMs));
    }, timeoutMs + CLIENT_GRACE_MS);
  });
  try {
    const result = await Promise.race([work, backstop]);
    await client.query("ROLLBACK");
    release();
    return result;
  } catch (error) {
    if (timedOut) {
      work.catch(() => undefined);
      throw timeCap(timeoutMs);
    }
    if (isConnectionError(error)) {
      release(error as Error);
      throw target.db.unavailable(error);
    }
    try {
      await client.query("ROLLBACK");
      release();
    } catch (rollbackError) {
      release(rollbackError as Error);
    }
    throw toStoreError(error, timeoutMs);
  } finally {
    clearTimeout(timer);
  }
}

/** A statement's failure in the words SQLite's reader uses: time cap, refusal, or "SQL error: …". */
function toStoreError(error: unknown, timeoutMs: number): StoreError {
  if (StoreError.isInstance(error)) return error;
  const { code } = pgCode(error);
  if (code === "57014") return timeCap(timeoutMs);
  if (code === "25006") {
    return new StoreError("INVALID_REQUEST", "only statements that read and return rows are allowed; this one would change the database");
  }
  return new StoreError("INVALID_REQUEST", `SQL error: ${errorText(error)}`);
}
