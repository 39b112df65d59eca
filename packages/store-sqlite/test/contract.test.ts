import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runStoreContract } from "@docdb/store/contract-suite";
import { createSqliteEngine } from "../src/index.js";

runStoreContract("sqlite", async () => {
  const dataDir = mkdtempSync(join(tmpdir(), "docdb-contract-sqlite-"));
  return {
    engine: createSqliteEngine({ dataDir }),
    second: async () => createSqliteEngine({ dataDir }),
    cleanup: async () => rmSync(dataDir, { recursive: true, force: true }),
  };
});
