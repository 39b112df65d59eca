import { runStoreContract } from "@docdb/store/contract-suite";
import { createPostgresEngine } from "../src/index.js";
import { startPgliteServer } from "./support/pglite-server.js";

// PGlite multiplexes its single backend over the connections; a small pool is plenty.
const pool = { max: 4 };

runStoreContract("postgres (PGlite)", async () => {
  const server = await startPgliteServer();
  return {
    engine: createPostgresEngine({ url: server.url, pool }),
    second: async () => createPostgresEngine({ url: server.url, pool }),
    cleanup: () => server.stop(),
  };
});

const external = process.env.DOCDB_TEST_POSTGRES_URL;
if (external) {
  // Each run in schemas of its own prefix, dropped afterwards.
  const schemaPrefix = `docdb_t${process.pid}_`;
  runStoreContract("postgres (DOCDB_TEST_POSTGRES_URL)", async () => {
    const engine = createPostgresEngine({ url: external, schemaPrefix });
    return {
      engine,
      second: async () => createPostgresEngine({ url: external, schemaPrefix }),
      cleanup: async () => {
        const cleaner = createPostgresEngine({ url: external, schemaPrefix });
        for (const name of await cleaner.listDatabases()) await cleaner.dropDatabase(name);
        await cleaner.close();
      },
    };
  });
}
