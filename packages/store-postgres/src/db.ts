import { StoreError } from "@docdb/store";
import pg from "pg";
import { parse } from "pg-connection-string";

/** Where a server is, for messages: host:port/database, never a password. */
export interface ServerAddress {
  host: string;
  port: number;
  database: string;
  user: string | undefined;
  password: string | undefined;
}

export function parseAddress(url: string): ServerAddress {
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(url);
  } catch {
    throw new StoreError("INVALID_REQUEST", "invalid PostgreSQL connection URL");
  }
  return {
    host: parsed.host || "localhost",
    port: parsed.port ? Number(parsed.port) : 5432,
    database: parsed.database || parsed.user || "postgres",
    user: parsed.user || undefined,
    password: typeof parsed.password === "string" && parsed.password !== "" ? parsed.password : undefined,
  };
}

const CONNECTION_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ECONNABORTED",
  "EPIPE",
  "ETIMEDOUT",
  "ENOTFOUND",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "EAI_AGAIN",
  "57P01", // admin_shutdown
  "57P02", // crash_shutdown
  "57P03", // cannot_connect_now
]);

const CONNECTION_MESSAGES = [
  "Connection terminated",
  "connection error",
  "not queryable",
  "timeout exceeded when trying to connect",
  "Client was closed",
  "Connection ended",
  "socket hang up",
];

/** True when an error means the connection (or the server) went away, not that a statement failed. */
export function isConnectionError(error: unknown): boolean {
  if (typeof error !== "object" || error === null) return false;
  const { code, message } = error as { code?: unknown; message?: unknown };
  if (typeof code === "string" && (CONNECTION_CODES.has(code) || code.startsWith("08"))) return true;
  return typeof message === "string" && CONNECTION_MESSAGES.some((m) => message.includes(m));
}

/** Errors worth running the whole (rolled back) transaction again for. */
function isTransient(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === "40001" || code === "40P01";
}

export function errorText(error: unknown): string {
  if (error instanceof AggregateError && error.errors.length > 0) return errorText(error.errors[0]);
  if (error instanceof Error) return error.message || (error as { code?: string }).code || error.name;
  return String(error);
}

/** The statement-level parts of a driver error (SQLSTATE and constraint), for callers to branch on. */
export function pgCode(error: unknown): { code?: string; constraint?: string } {
  if (typeof error !== "object" || error === null) return {};
  const { code, constraint } = error as { code?: unknown; constraint?: unknown };
  return { code: typeof code === "string" ? code : undefined, constraint: typeof constraint === "string" ? constraint : undefined };
}

const WATCHED = new WeakSet<pg.PoolClient>();

export type Queryable = Pick<pg.PoolClient, "query">;

/**
 * The connection pool with docdb's error rules: a server that cannot be reached is a
 * StoreError UNAVAILABLE naming host:port/database (never the password); a transaction whose
 * connection drops before COMMIT is sent is run again once on a fresh connection (it cannot
 * have committed); one that drops during COMMIT is reported, since its outcome is unknown.
 */
export class Database {
  readonly pool: pg.Pool;
  readonly address: ServerAddress;

  constructor(
    url: string,
    options: { max?: number; connectionTimeoutMillis?: number; idleTimeoutMillis?: number; ssl?: pg.PoolConfig["ssl"] },
  ) {
    this.address = parseAddress(url);
    this.pool = new pg.Pool({
      connectionString: url,
      max: options.max ?? 10,
      connectionTimeoutMillis: options.connectionTimeoutMillis ?? 10_000,
      idleTimeoutMillis: options.idleTimeoutMillis ?? 30_000,
      ...(options.ssl !== undefined ? { ssl: options.ssl } : {}),
    });
    // An idle client whose server went away: the pool drops it; the next query reconnects.
    this.pool.on("error", () => {});
  }

  get where(): string {
    return `${this.address.host}:${this.address.port}/${this.address.database}`;
  }

  /** A message safe to show: the reason, with the password (should a driver ever echo it) masked. */
  private reason(error: unknown): string {
    let text = errorText(error);
    const { password } = this.address;
    if (password) text = text.split(password).join("***");
    return text;
  }

  unavailable(error: unknown, what = "cannot reach PostgreSQL at"): StoreError {
    return new StoreError("UNAVAILABLE", `${what} ${this.where}: ${this.reason(error)}`);
  }

  /** Turns a driver error into a StoreError when it is about the connection; passes others through. */
  mapError(error: unknown): unknown {
    if (StoreError.isInstance(error)) return error;
    if (isConnectionError(error)) return this.unavailable(error);
    const { code } = pgCode(error);
    if (code === "28P01" || code === "28000" || code === "3D000") return this.unavailable(error);
    // The schema (or a table of it) went away under an open store: another process dropped the database.
    if (code === "3F000" || code === "42P01") {
      return new StoreError("NOT_FOUND", `database not found at ${this.where} (dropped by another process?): ${this.reason(error)}`, {
        cause: error,
      });
    }
    if (typeof error === "object" && error !== null && code) {
      return new StoreError("INTERNAL", `PostgreSQL error ${code} at ${this.where}: ${this.reason(error)}`, { cause: error });
    }
    return error;
  }

  /** A client of the pool (the caller releases it); a server that cannot be reached is UNAVAILABLE. */
  async connect(): Promise<pg.PoolClient> {
    try {
      const client = await this.pool.connect();
      // A checked-out client whose server goes away between two statements emits 'error';
      // its next statement then fails (and is handled there), so the event itself is dropped.
      if (!WATCHED.has(client)) {
        WATCHED.add(client);
        client.on("error", () => {});
      }
      return client;
    } catch (error) {
      throw this.unavailable(error);
    }
  }

  /** One statement outside a transaction; run again once on a fresh connection when the connection drops (reads only). */
  async read<R extends pg.QueryResultRow = Record<string, unknown>>(sql: string, params: unknown[] = []): Promise<R[]> {
    for (let attempt = 0; ; attempt++) {
      const client = await this.connect();
      try {
        const result = await client.query<R>(sql, params);
        client.release();
        return result.rows;
      } catch (error) {
        if (isConnectionError(error)) {
          client.release(error as Error);
          if (attempt === 0) continue;
        } else {
          client.release();
        }
        throw this.mapError(error);
      }
    }
  }

  /**
   * Runs `fn` in a transaction. `fn` may run more than once (a dropped connection before
   * COMMIT, a deadlock or serialization failure), so it must keep its results to itself
   * until it returns.
   */
  async transaction<T>(fn: (client: Queryable) => Promise<T>, options: { retryOn?: (error: unknown) => boolean } = {}): Promise<T> {
    let reconnects = 0;
    let retries = 0;
    for (;;) {
      const client = await this.connect();
      let committing = false;
      try {
        await client.query("BEGIN");
        const result = await fn(client);
        committing = true;
        await client.query("COMMIT");
        client.release();
        return result;
      } catch (error) {
        if (isConnectionError(error)) {
          client.release(error as Error);
          if (committing) {
            throw new StoreError(
              "UNAVAILABLE",
              `connection to PostgreSQL at ${this.where} lost while committing; the change may or may not have been applied: ${this.reason(error)}`,
            );
          }
          if (reconnects++ === 0) continue;
          throw this.unavailable(error);
        }
        try {
          await client.query("ROLLBACK");
          client.release();
        } catch (rollbackError) {
          client.release(rollbackError as Error);
        }
        if ((isTransient(error) || options.retryOn?.(error)) && retries++ < 3) continue;
        throw this.mapError(error);
      }
    }
  }

  async end(): Promise<void> {
    await this.pool.end();
  }
}

/** Quotes an identifier for SQL. */
export function quoteIdent(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

export function quoteLiteral(text: string): string {
  return `'${text.replaceAll("'", "''")}'`;
}

/** What the server offers, read once per engine. */
export interface ServerInfo {
  /** Schema of the pgvector extension (its type and operators are qualified with it). */
  vectorSchema: string;
  /** pgvector version as [major, minor, patch]. */
  vectorVersion: number[];
}

export function atLeast(version: number[], wanted: number[]): boolean {
  for (let i = 0; i < wanted.length; i++) {
    const a = version[i] ?? 0;
    const b = wanted[i] ?? 0;
    if (a !== b) return a > b;
  }
  return true;
}
