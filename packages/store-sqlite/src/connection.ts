// The open SQLite connection the rooms share: statements prepared once per SQL text, write
// transactions that wait for other processes, and the native parts loaded on the first open.
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import type Database from "better-sqlite3";
import { writeTransaction } from "./write-lock.js";

let native: { nativeBinding: string | undefined; sqliteVec: typeof import("sqlite-vec") } | undefined;

/**
 * What the first database to open loads: sqlite-vec, and the path of better-sqlite3's compiled
 * addon. better-sqlite3's JavaScript is an ordinary import (bundled into the programs, where it
 * comes with their code cache); it loads its addon only when a database opens. Given the path
 * (where better-sqlite3 builds and installs it, the way its documentation tells bundlers to),
 * it skips the `bindings` package's search, which cannot work from inside a bundle. sqlite-vec
 * stays a package of its own (it finds its platform's loadable library from where it is
 * installed), required rather than imported: import() would start Node's ES module loader.
 */
export function loadNative() {
  if (!native) {
    const load = createRequire(import.meta.url);
    const addon = join(dirname(load.resolve("better-sqlite3/package.json")), "build", "Release", "better_sqlite3.node");
    native = { nativeBinding: existsSync(addon) ? addon : undefined, sqliteVec: load("sqlite-vec") as typeof import("sqlite-vec") };
  }
  return native;
}

/** One database file's connection, as every room of the store reads and writes it. */
/** Prepared statements kept per connection before the cache starts again. */
const MAX_STATEMENTS = 512;

export class Connection {
  private readonly statements = new Map<string, Database.Statement>();
  /**
   * Values read from the database (the model record, index settings, the vector log's ends),
   * kept while its change token stays the same: see `kept`.
   */
  private memo: { token: string | undefined; checked: boolean; values: Map<string, unknown> } = {
    token: undefined,
    checked: false,
    values: new Map(),
  };

  constructor(
    readonly db: Database.Database,
    /** The database file. */
    readonly location: string,
    /** Total time a write waits for another process's write lock before CONFLICT. */
    private readonly busyTimeoutMs: number,
  ) {}

  /** Called after each write transaction commits (the background WAL checkpointer's check). */
  onCommit: (() => void) | undefined;

  /** Prepared once per SQL text and connection (filters make many texts: the cache is bounded). */
  statement(sql: string): Database.Statement {
    let statement = this.statements.get(sql);
    if (!statement) {
      if (this.statements.size >= MAX_STATEMENTS) this.statements.clear();
      statement = this.db.prepare(sql);
      this.statements.set(sql, statement);
    }
    return statement;
  }

  /** Forgets every prepared statement (a table they read was dropped and created again). */
  clearStatements(): void {
    this.statements.clear();
    this.forget();
  }

  /**
   * Moves whenever the database does, from this connection or another one: `data_version`
   * moves when another connection commits, `total_changes()` when this one writes.
   */
  changeToken(): string {
    const version = this.statement("PRAGMA data_version").pluck().get() as number;
    const own = this.statement("SELECT total_changes()").pluck().get() as number;
    const token = `${version}:${own}`;
    if (token !== this.memo.token) this.memo = { token, checked: this.memo.checked, values: new Map() };
    // Kept values need no other read of the token in this synchronous stretch (see `kept`).
    if (!this.memo.checked && !this.db.inTransaction) {
      this.memo.checked = true;
      queueMicrotask(() => {
        this.memo.checked = false;
      });
    }
    return token;
  }

  /**
   * `read()`, or the value it returned before if the database has not changed since: the change
   * token is read again at most once per synchronous stretch of code (a search reads it a few
   * times, not once per value; a caller that read the token itself, e.g. core's memory check
   * just before it asks for the model record, pays no second read), and this connection's writes
   * forget every kept value. Inside a transaction values are always read afresh.
   */
  kept<T>(key: string, read: () => T): T {
    if (this.db.inTransaction) return read();
    if (!this.memo.checked) this.changeToken();
    const values = this.memo.values;
    if (values.has(key)) return values.get(key) as T;
    const value = read();
    values.set(key, value);
    return value;
  }

  /** Forgets the kept values (this connection wrote, or a table was replaced). */
  forget(): void {
    this.memo = { token: undefined, checked: false, values: new Map() };
  }

  /** Runs `work` in a write transaction, waiting (with backoff) for other writers. */
  async write<T>(work: () => T): Promise<T> {
    const result = await writeTransaction(this.db, this.location, this.busyTimeoutMs, () => {
      try {
        return work();
      } finally {
        this.forget();
      }
    });
    this.onCommit?.();
    return result;
  }

  /** Runs `work` in a write transaction if the lock is free within a moment; false when it was not. */
  tryWrite(work: () => void): boolean {
    try {
      this.db.transaction(work).immediate();
      this.forget();
      this.onCommit?.();
      return true;
    } catch (error) {
      const code = (error as { code?: unknown })?.code;
      if (typeof code === "string" && code.startsWith("SQLITE_BUSY")) return false;
      throw error;
    }
  }
}
