// What every room of a PostgresStore works with (the counterpart of the SQLite engine's connection.ts): the schema, the
// engine's connection pool (refused once the store is closed), and the change counter each write transaction bumps.
import { type EngineCapabilities, StoreError } from "@docdb/store";
import { type Database, type Queryable, quoteIdent, type ServerInfo } from "./db.js";

export type Row = Record<string, unknown>;

/** What a store needs of its engine (the engine itself, passed without importing it). */
export interface StoreHost {
  readonly db: Database;
  readonly location: string;
  readonly capabilities: EngineCapabilities;
  readonly sqlRole: string | undefined;
}

/** The names a vector search statement is built with (vector.ts). */
export interface VectorSql {
  /** Quoted schema of the docdb database. */
  schema: string;
  /** The `vector` type, qualified with pgvector's schema. */
  vectorType: string;
  /** The cosine distance operator, qualified (`OPERATOR(schema.<=>)`). */
  cosine: string;
}

/** A transaction's change to the keyword statistics. */
export interface KeywordDelta {
  chunks: number;
  terms: number;
}

export function now(): string {
  return new Date().toISOString();
}

/** One docdb database's schema on the engine's pool. */
export class StoreContext {
  /** The schema, quoted for SQL. */
  readonly s: string;
  /** pgvector's `vector` type and cosine operator, qualified with its schema. */
  readonly vectorType: string;
  readonly cosine: string;
  readonly vectorSql: VectorSql;
  closed = false;

  constructor(
    readonly host: StoreHost,
    readonly name: string,
    readonly schema: string,
    readonly info: ServerInfo,
  ) {
    this.s = quoteIdent(schema);
    const vs = quoteIdent(info.vectorSchema);
    this.vectorType = `${vs}.vector`;
    this.cosine = `OPERATOR(${vs}.<=>)`;
    this.vectorSql = { schema: this.s, vectorType: this.vectorType, cosine: this.cosine };
  }

  get capabilities(): EngineCapabilities {
    return this.host.capabilities;
  }

  get db(): Database {
    if (this.closed) throw new StoreError("INVALID_REQUEST", `database ${this.name} is closed`);
    return this.host.db;
  }

  read<R extends Row = Row>(sql: string, params: unknown[] = []): Promise<R[]> {
    return this.db.read<R>(sql, params);
  }

  /**
   * Marks a change (changeToken) and applies the transaction's change to the keyword statistics
   * (chunk count and total index terms, which BM25 needs on every query). Called last in a
   * transaction, so the row it locks is held only briefly.
   */
  async bump(client: Queryable, delta: KeywordDelta = { chunks: 0, terms: 0 }): Promise<void> {
    await client.query(`UPDATE ${this.s}.counters SET version = version + 1, chunks = chunks + $1, terms = terms + $2 WHERE id = 1`, [
      delta.chunks,
      delta.terms,
    ]);
  }
}
