// The read-only SQL reader: a child process holding one read-only connection to one database
// file. It runs in its own process so a query that never yields a row (an aggregate over an
// endless recursive CTE, a huge cross join) can be stopped by killing the process: better-sqlite3
// has no progress handler and no interrupt, and its calls block the thread they run on.
//
// Layers, each enough on its own for writes: the connection is opened read-only (SQLITE_OPEN_READONLY)
// and set to `query_only`; extension loading is never enabled (load_extension() is "not authorized");
// sqlite-vec is not loaded (the documented views do not need it); only one statement that starts
// with SELECT, WITH or VALUES is accepted, and it must both return rows (`reader`) and not write
// (`readonly`, sqlite3_stmt_readonly). SQLite's own heap is capped, so a giant blob or sort fails
// with "out of memory" instead of exhausting the machine.
//
// Rows are read one at a time and kept while they fit both caps, rows (maxRows) and bytes
// (maxBytes, counted as @docdb/store's sqlRowBytes, repeated below): the reader stops at the
// first row past either, so it never holds much more than maxBytes plus one row.
//
// Protocol (IPC, advanced serialization):
//   parent → child  { id, sql, maxRows, maxBytes, timeoutMs }
//   child  → parent { ready: true } once, then per query
//                   { id, ok: true, columns, rows, truncated, truncatedBy? }
//                   { id, ok: false, kind: "refused" | "sql" | "time" | "bytes", message }

import Database from "better-sqlite3";

const HEAP_LIMIT_BYTES = 256 * 1024 * 1024;
const ALLOWED_FIRST_WORDS = new Set(["SELECT", "WITH", "VALUES"]);

/** The first keyword of a statement, after whitespace and comments; undefined when there is none. */
export function firstKeyword(sql) {
  let i = 0;
  while (i < sql.length) {
    const c = sql[i];
    if (/\s/.test(c)) i++;
    else if (sql.startsWith("--", i)) {
      const end = sql.indexOf("\n", i);
      i = end === -1 ? sql.length : end + 1;
    } else if (sql.startsWith("/*", i)) {
      const end = sql.indexOf("*/", i + 2);
      i = end === -1 ? sql.length : end + 2;
    } else break;
  }
  const match = /^[A-Za-z_]+/.exec(sql.slice(i));
  return match ? match[0].toUpperCase() : undefined;
}

function toCell(value) {
  if (Buffer.isBuffer(value)) return `base64:${value.toString("base64")}`;
  if (typeof value === "bigint") return Number(value);
  return value;
}

// sqlCellBytes / sqlRowBytes / sqlRowTooLarge of @docdb/store (packages/store/src/sql-bytes.ts).
function cellBytes(value) {
  if (value === null || value === undefined) return 4;
  if (typeof value === "string") return Buffer.byteLength(value, "utf8");
  return String(value).length;
}

function rowBytes(row) {
  let bytes = 2;
  for (const cell of row) bytes += cellBytes(cell) + 1;
  return bytes;
}

function rowTooLarge(size, maxBytes) {
  return `the first row alone is ${size} bytes, over the ${maxBytes}-byte result cap (max_bytes): select fewer or shorter columns, e.g. substr(text, 1, 1000)`;
}

function run(db, { sql, maxRows, maxBytes, timeoutMs }) {
  const deadline = Date.now() + timeoutMs;
  if (typeof sql !== "string" || sql.trim() === "") return { ok: false, kind: "refused", message: "the query is empty" };
  const first = firstKeyword(sql);
  if (!first || !ALLOWED_FIRST_WORDS.has(first)) {
    return {
      ok: false,
      kind: "refused",
      message: `only read-only queries are allowed (a statement starting with SELECT, WITH or VALUES); got ${first ?? "no statement"}`,
    };
  }
  let statement;
  try {
    statement = db.prepare(sql);
  } catch (error) {
    const message = String(error.message);
    if (/more than one statement/.test(message)) {
      return { ok: false, kind: "refused", message: "only one statement is allowed per query" };
    }
    return { ok: false, kind: "sql", message };
  }
  if (!statement.reader || !statement.readonly) {
    return {
      ok: false,
      kind: "refused",
      message: "only statements that read and return rows are allowed; this one would change the database",
    };
  }
  const columns = statement.columns().map((c) => c.name);
  const rows = [];
  let truncatedBy;
  let bytes = 0;
  const iterator = statement.raw(true).iterate();
  try {
    for (const row of iterator) {
      if (rows.length >= maxRows) {
        truncatedBy = "rows";
        break;
      }
      const cells = row.map(toCell);
      const size = rowBytes(cells);
      if (bytes + size > maxBytes) {
        if (rows.length === 0) return { ok: false, kind: "bytes", message: rowTooLarge(size, maxBytes) };
        truncatedBy = "bytes";
        break;
      }
      bytes += size;
      rows.push(cells);
      if (Date.now() > deadline) return { ok: false, kind: "time", message: `stopped at the ${timeoutMs} ms time cap` };
    }
  } catch (error) {
    const message = String(error.message);
    return { ok: false, kind: "sql", message: /out of memory/i.test(message) ? `${message} (the reader's memory cap is 256 MB)` : message };
  } finally {
    iterator.return?.();
  }
  if (Date.now() > deadline) return { ok: false, kind: "time", message: `stopped at the ${timeoutMs} ms time cap` };
  return truncatedBy ? { ok: true, columns, rows, truncated: true, truncatedBy } : { ok: true, columns, rows, truncated: false };
}

function main() {
  const path = process.argv[2];
  let db;
  try {
    db = new Database(path, { readonly: true, fileMustExist: true });
    db.pragma("query_only = ON");
    db.pragma(`hard_heap_limit = ${HEAP_LIMIT_BYTES}`);
    db.pragma("busy_timeout = 5000");
  } catch (error) {
    process.send?.({ fatal: `cannot open ${path} read-only: ${error.message}` });
    process.exit(1);
  }
  process.on("message", (message) => {
    let answer;
    try {
      answer = run(db, message);
    } catch (error) {
      answer = { ok: false, kind: "sql", message: String(error?.message ?? error) };
    }
    process.send?.({ id: message.id, ...answer });
  });
  // The parent went away: nothing left to answer.
  process.on("disconnect", () => process.exit(0));
  process.send?.({ ready: true });
}

if (process.send) main();
