// The storage engines docdb can open, found by location through a small registry. SQLite is the
// default (a dependency of core); PostgreSQL is an optional peer, loaded when a URL asks for it.
import type { StoreEngine } from "@docdb/store";
import { createSqliteEngine } from "@docdb/store-sqlite";
import { DocDBError } from "./errors.js";

/** What an engine may be told besides its location. */
export interface EngineSettings {
  /** The role read-only SQL (`docdb sql`, query_sql) runs as, on engines that have roles. */
  sqlRole?: string;
}

/** Makes an engine for a location (a folder, a URL) the engine's entry matched. */
export type EngineFactory = (location: string, settings: EngineSettings) => StoreEngine;

/** One engine in the registry: which locations are its, and how to load it (on first use). */
export interface EngineEntry {
  name: string;
  /** The package that holds the engine, named in the error when it is not installed. */
  packageName: string;
  matches(location: string): boolean;
  load(): Promise<EngineFactory>;
}

/** True for a PostgreSQL connection URL. */
export function isPostgresUrl(value: string): boolean {
  return /^postgres(ql)?:\/\//i.test(value);
}

/** True when `error` says that `specifier` itself (not something it imports) cannot be found. */
function isMissing(error: unknown, specifier: string): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  if (code !== "ERR_MODULE_NOT_FOUND" && code !== "MODULE_NOT_FOUND") return false;
  return new RegExp(`['"]${specifier.replace(/[/.]/g, "\\$&")}['"]`).test(String((error as Error).message));
}

const POSTGRES: EngineEntry = {
  name: "postgresql",
  packageName: "@docdb/store-postgres",
  matches: isPostgresUrl,
  async load() {
    // Loaded only when asked for, so SQLite users never load the PostgreSQL driver.
    let module: { createPostgresEngine: (options: { url: string; sqlRole?: string }) => StoreEngine };
    try {
      module = (await import("@docdb/store-postgres" as string)) as typeof module;
    } catch (error) {
      if (isMissing(error, this.packageName)) {
        throw new DocDBError("INTERNAL", `PostgreSQL support needs the ${this.packageName} package: pnpm add ${this.packageName}`, {
          cause: error,
        });
      }
      throw new DocDBError("INTERNAL", `the PostgreSQL engine (@docdb/store-postgres) is not installed: ${(error as Error).message}`, {
        cause: error,
      });
    }
    return (url, settings) => module.createPostgresEngine({ url, sqlRole: settings.sqlRole });
  },
};

const SQLITE: EngineEntry = {
  name: "sqlite",
  packageName: "@docdb/store-sqlite",
  matches: () => true,
  load: async () => (dataDir) => createSqliteEngine({ dataDir }),
};

/** The registry, first match wins: SQLite takes every location no other engine claims. */
export const ENGINES: readonly EngineEntry[] = [POSTGRES, SQLITE];

/** The engine for a location: a `postgres://` URL, else a folder of SQLite files. */
export async function createEngine(location: string, settings: EngineSettings = {}): Promise<StoreEngine> {
  const entry = ENGINES.find((engine) => engine.matches(location)) as EngineEntry;
  const factory = await entry.load();
  return factory(location, settings);
}
