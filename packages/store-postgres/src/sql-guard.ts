import { StoreError } from "@docdb/store";
import { parse } from "libpg-query";

/**
 * The checks a read-only SQL query passes before it reaches PostgreSQL, on the tree of
 * PostgreSQL's own parser (libpg-query: the server's parser compiled to WebAssembly, so it reads
 * the text exactly as the server will):
 *
 * - one statement, a plain SELECT (which covers WITH … SELECT, VALUES, TABLE and set operations);
 *   no statement of another kind anywhere in it (a data-modifying WITH), no SELECT … INTO, no
 *   FOR UPDATE/SHARE;
 * - tables and views only of the database's own schema: a name qualified with another schema is
 *   refused, and so are names starting with `pg_` (unqualified, they would reach PostgreSQL's
 *   catalogs, such as pg_stat_activity, whose rows describe other sessions and databases);
 * - functions only from the database's own schema or pg_catalog, and none of those that reach
 *   outside the query: PostgreSQL's administration functions (every `pg_…` one: pg_sleep,
 *   pg_read_file, pg_advisory_lock, pg_terminate_backend, pg_notify …), large objects, settings
 *   (set_config, current_setting), sequences, functions that run a query given as text
 *   (query_to_xml, ts_stat …) or read a table by name (table_to_xml …), and privilege and name
 *   probes. What is left is checked again at run time against the catalog: a function with a
 *   volatile variant (one that may have side effects) is refused unless it is known harmless
 *   (random, clock_timestamp, gen_random_uuid …), see VOLATILE_ALLOWED.
 *
 * The read-only transaction, the statement timeout and (when configured) a reader role are the
 * layers under these checks; see sql.ts.
 */

/** Function names refused outright (lower case). */
const DENIED_FUNCTIONS = new Set([
  "set_config",
  "current_setting",
  "nextval",
  "setval",
  "currval",
  "lastval",
  "setseed",
  "current_query",
  "ts_stat",
  "ts_rewrite",
  "obj_description",
  "col_description",
  "shobj_description",
  "loread",
  "lowrite",
  "currtid2",
  "system",
]);

/** Function name prefixes refused outright. */
const DENIED_PREFIXES = [
  "pg_",
  "lo_",
  "dblink",
  "binary_upgrade_",
  "txid_",
  "has_",
  "to_reg",
  "inet_client_",
  "inet_server_",
  "brin_",
  "gin_",
];

/** Functions that read a table or run a query named in their arguments (query_to_xml, table_to_xmlschema …). */
const DENIED_PATTERNS = [/(^|_)to_xml/, /xmlschema$/];

/** Volatile functions (in pg_proc's sense) that change nothing outside the query. */
export const VOLATILE_ALLOWED = new Set([
  "random",
  "random_normal",
  "clock_timestamp",
  "timeofday",
  "gen_random_uuid",
  "uuidv4",
  "uuidv7",
  "array_shuffle",
  "array_sample",
]);

export interface CheckedQuery {
  /** The functions the query calls (lower case, unqualified), for the run-time volatility check. */
  functions: string[];
}

function refused(message: string): StoreError {
  return new StoreError("INVALID_REQUEST", message);
}

/** The first word of the text after whitespace and comments, for messages. */
function firstWord(sql: string): string | undefined {
  const text = sql.replace(/^(?:\s+|--[^\n]*(?:\n|$)|\/\*[\s\S]*?\*\/)*/, "");
  return /^[A-Za-z_]+/.exec(text)?.[0]?.toUpperCase();
}

type Node = Record<string, unknown>;

function names(list: unknown): string[] {
  if (!Array.isArray(list)) return [];
  return list.map((item) => ((item as { String?: { sval?: string } }).String?.sval ?? "").toString());
}

/**
 * Parses and checks one query for `schema` (the database's PostgreSQL schema). Throws a
 * StoreError INVALID_REQUEST naming what is refused, or "SQL error: …" for a syntax error.
 */
export async function checkReadOnlySql(sql: string, schema: string): Promise<CheckedQuery> {
  if (typeof sql !== "string" || sql.trim() === "") throw refused("the query is empty");
  // The parser and the wire protocol both end a string at NUL: they would read different texts.
  if (sql.includes("\0")) throw refused("the query contains a NUL character");
  let tree: { stmts?: { stmt?: Node }[] };
  try {
    tree = (await parse(sql)) as unknown as typeof tree;
  } catch (error) {
    throw refused(`SQL error: ${(error as Error).message}`);
  }
  const statements = tree.stmts ?? [];
  if (statements.length === 0) throw refused("the query is empty");
  if (statements.length > 1) throw refused("only one statement is allowed per query");
  const top = statements[0]?.stmt ?? {};
  if (!("SelectStmt" in top)) {
    throw refused(
      `only read-only queries are allowed (a statement starting with SELECT, WITH or VALUES); got ${firstWord(sql) ?? Object.keys(top)[0] ?? "no statement"}`,
    );
  }
  const functions = new Set<string>();
  walk(top, (key, node) => {
    if (key.endsWith("Stmt") && key !== "SelectStmt") {
      throw refused("only statements that read and return rows are allowed; this one would change the database");
    }
    if (key === "IntoClause") throw refused("SELECT … INTO creates a table: only statements that read and return rows are allowed");
    if (key === "LockingClause") throw refused("FOR UPDATE/SHARE locks rows: only statements that read are allowed");
    if (key === "ParamRef") throw refused("parameters such as $1 are not supported: write the values into the query");
    if (key === "RangeVar") checkRelation(node, schema);
    if (key === "FuncCall") functions.add(checkFunction(node, schema));
  });
  return { functions: [...functions] };
}

function checkRelation(node: Node, schema: string): void {
  const relname = String(node.relname ?? "");
  const qualifier = [node.catalogname, node.schemaname].filter((p) => typeof p === "string" && p !== "").join(".");
  if (qualifier !== "" && qualifier !== schema) {
    throw refused(`${qualifier}.${relname} is outside this database: only its own views and tables can be read (documents_v, chunks_v …)`);
  }
  if (relname.toLowerCase().startsWith("pg_")) {
    throw refused(
      `${relname} is one of PostgreSQL's catalogs: only this database's own views and tables can be read (documents_v, chunks_v …)`,
    );
  }
}

function checkFunction(node: Node, schema: string): string {
  const parts = names(node.funcname);
  const name = (parts[parts.length - 1] ?? "").toLowerCase();
  const qualifier = parts.slice(0, -1).join(".");
  if (qualifier !== "" && qualifier !== "pg_catalog" && qualifier !== schema) {
    throw refused(`function ${parts.join(".")}() is outside this database and PostgreSQL's built-in functions`);
  }
  if (DENIED_FUNCTIONS.has(name) || DENIED_PREFIXES.some((p) => name.startsWith(p)) || DENIED_PATTERNS.some((p) => p.test(name))) {
    throw refused(
      `function ${name}() is not allowed in read-only SQL (it reaches outside the query: server files, settings, sessions, locks, sequences or other tables)`,
    );
  }
  return name;
}

/** Calls `visit` with every node of the tree (`{ NodeType: {...} }` objects), depth first. */
function walk(value: unknown, visit: (key: string, node: Node) => void): void {
  if (Array.isArray(value)) {
    for (const item of value) walk(item, visit);
    return;
  }
  if (typeof value !== "object" || value === null) return;
  for (const [key, child] of Object.entries(value as Node)) {
    if (/^[A-Z]/.test(key) && typeof child === "object" && child !== null && !Array.isArray(child)) visit(key, child as Node);
    walk(child, visit);
  }
}
