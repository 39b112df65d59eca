// Read-only SQL (`Store.querySql`): one checked query run in a READ ONLY transaction, capped in
// rows and bytes (a cursor read in batches) and time (statement_timeout), its cells converted as
// SQLite's reader gives them.
import { SQL_DEFAULT_MAX_BYTES, type SqlQueryOptions, type SqlQueryResult, StoreError, sqlRowBytes, sqlRowTooLarge } from "@docdb/store";
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

/** Rows fetched by the first cursor read; later reads are sized from the bytes left and the rows seen. */
const FIRST_BATCH = 16;
const MAX_BATCH = 1000;

function readBatch(cursor: Cursor, count: number): Promise<{ rows: unknown[][]; fields: pg.FieldDef[] }> {
  return new Promise((resolve, reject) => {
    cursor.read(count, (error, rows, result) => {
      if (error) reject(error);
      else resolve({ rows: rows as unknown[][], fields: (result as pg.QueryResult | undefined)?.fields ?? [] });
    });
  });
}

/**
 * Reads the cursor until maxRows rows or maxBytes bytes (sqlRowBytes of the converted cells):
 * in batches sized so a batch of rows like those seen so far fits the bytes left, so no more
 * than about maxBytes (plus a batch's worth of rows, one once they are large) is ever held.
 */
async function readCapped(cursor: Cursor, maxRows: number, maxBytes: number): Promise<SqlQueryResult> {
  const rows: unknown[][] = [];
  let columns: string[] = [];
  let types: number[] = [];
  let bytes = 0;
  let batch = FIRST_BATCH;
  for (;;) {
    const wanted = Math.min(batch, maxRows + 1 - rows.length);
    const read = await readBatch(cursor, wanted);
    if (read.fields.length > 0 && columns.length === 0) {
      columns = read.fields.map((f) => f.name);
      types = read.fields.map((f) => f.dataTypeID);
    }
    for (const raw of read.rows) {
      if (rows.length >= maxRows) return { columns, rows, truncated: true, truncatedBy: "rows" };
      const cells = raw.map((value, i) => toCell(value, types[i] ?? 25));
      const size = sqlRowBytes(cells);
      if (bytes + size > maxBytes) {
        if (rows.length === 0) throw new StoreError("INVALID_REQUEST", sqlRowTooLarge(size, maxBytes));
        return { columns, rows, truncated: true, truncatedBy: "bytes" };
      }
      bytes += size;
      rows.push(cells);
    }
    if (read.rows.length < wanted) return { columns, rows, truncated: false };
    const average = bytes / Math.max(rows.length, 1);
    batch = Math.max(1, Math.min(MAX_BATCH, Math.floor((maxBytes - bytes) / Math.max(average, 1))));
  }
}

function timeCap(timeoutMs: number, stuck = false): StoreError {
  const more = stuck
    ? "; this server (PGlite) cannot interrupt a running query, so it stays busy with it until it is restarted (PostgreSQL itself stops it at the cap)"
    : "";
  return new StoreError("INVALID_REQUEST", `stopped at the ${timeoutMs} ms time cap${more}`);
}

/** Whether each server stops a query at statement_timeout (PGlite, with no timer interrupts, does not). */
const interruptible = new WeakMap<Database, boolean>();

/**
 * One read-only query, checked (sql-guard.ts) and then run in a READ ONLY transaction with the
 * search_path pinned to the database's schema, statement and lock timeouts at the time cap, and
 * (when configured) a reader role; through a cursor read in batches up to maxRows + 1 rows and
 * maxBytes (readCapped), so a query with endless or huge rows stops at a cap. The transaction is
 * always rolled back.
 */
export async function runReadOnlySql(target: ReadOnlySqlTarget, sql: string, options: SqlQueryOptions): Promise<SqlQueryResult> {
  const { maxRows, timeoutMs } = options;
  const checked = await checkReadOnlySql(sql, target.schema);
  let stoppable = interruptible.get(target.db);
  const client = await target.db.connect();
  let timedOut = false;
  let released = false;
  const release = (error?: Error) => {
    if (released) return;
    released = true;
    client.release(error);
  };

  const work = (async (): Promise<SqlQueryResult> => {
    if (stoppable === undefined) {
      const { rows } = await client.query<{ version: string }>("SELECT version() AS version");
      stoppable = !/PGlite/i.test(rows[0]?.version ?? "");
      interruptible.set(target.db, stoppable);
    }
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
    let result: SqlQueryResult;
    try {
      result = await readCapped(cursor, maxRows, options.maxBytes ?? SQL_DEFAULT_MAX_BYTES);
    } catch (error) {
      // A row over the byte cap leaves the cursor usable; a failed read has already ended it.
      if (StoreError.isInstance(error)) await cursor.close();
      throw error;
    }
    await cursor.close();
    return result;
  })();

  let timer: NodeJS.Timeout | undefined;
  const backstop = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      timedOut = true;
      // The server has not stopped it by its statement_timeout: ask it to cancel the statement
      // (PGlite could not, and would only queue the request behind the query).
      const pid = (client as unknown as { processID?: number }).processID;
      if (stoppable === true && typeof pid === "number") target.db.read("SELECT pg_cancel_backend($1)", [pid]).catch(() => undefined);
      // The connection is dropped, never reused: its server may still be running the query.
      const error = new Error("docdb read-only SQL: stopped at the time cap");
      release(error);
      (client as unknown as { connection?: { stream?: { destroy(): void } } }).connection?.stream?.destroy();
      reject(timeCap(timeoutMs, stoppable === false));
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
      throw timeCap(timeoutMs, stoppable === false);
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
