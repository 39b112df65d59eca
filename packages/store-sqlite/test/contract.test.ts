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

// The same contract with the HNSW index answering from the first vector (the default
// threshold keeps the small sets above on sqlite-vec's exact scan).
runStoreContract("sqlite, vector index from the first vector", async () => {
  const dataDir = mkdtempSync(join(tmpdir(), "docdb-contract-sqlite-ann-"));
  const vectorIndex = { threshold: 1 };
  return {
    engine: createSqliteEngine({ dataDir, vectorIndex }),
    second: async () => createSqliteEngine({ dataDir, vectorIndex }),
    cleanup: async () => rmSync(dataDir, { recursive: true, force: true }),
  };
});
