import { afterAll, beforeAll, describe } from "vitest";
import { createPostgresEngine, type PostgresEngineOptions } from "../../src/index.js";
import { type PgliteServer, startPgliteServer } from "./pglite-server.js";

let counter = 0;

/** A database name no other test uses. */
export function uniqueName(prefix = "t"): string {
  counter += 1;
  return `${prefix}_${process.pid}_${Date.now().toString(36)}_${counter}`;
}

/**
 * Runs `body` once against a fresh PGlite server, and once more against DOCDB_TEST_POSTGRES_URL
 * when that is set. `url()` is valid inside tests and hooks.
 */
export function describeServers(
  title: string,
  body: (ctx: { url: () => string; engine: (options?: Partial<PostgresEngineOptions>) => ReturnType<typeof createPostgresEngine> }) => void,
): void {
  const targets: { name: string; external?: string }[] = [{ name: "pglite" }];
  if (process.env.DOCDB_TEST_POSTGRES_URL) targets.push({ name: "DOCDB_TEST_POSTGRES_URL", external: process.env.DOCDB_TEST_POSTGRES_URL });
  for (const target of targets) {
    describe(`${title} [${target.name}]`, () => {
      let server: PgliteServer | undefined;
      let url = target.external ?? "";
      const engines: ReturnType<typeof createPostgresEngine>[] = [];
      beforeAll(async () => {
        if (!target.external) {
          server = await startPgliteServer();
          url = server.url;
        }
      });
      afterAll(async () => {
        for (const engine of engines) await engine.close();
        await server?.stop();
      });
      body({
        url: () => url,
        // PGlite multiplexes its one backend; a small pool is plenty.
        engine: (options = {}) => {
          const engine = createPostgresEngine({ url, pool: { max: 4 }, ...options });
          engines.push(engine);
          return engine;
        },
      });
    });
  }
}
