// The storage contract as tests: `runStoreContract(name, setup)` runs every area's tests (one file
// per area, in this folder) against an engine.
import { afterAll, beforeAll, describe } from "vitest";
import type { Store, StoreEngine } from "../types.js";
import { accessContract } from "./access.js";
import { codeChunksContract } from "./code-chunks.js";
import { collectionsContract } from "./collections.js";
import type { ContractContext, ContractTarget } from "./context.js";
import { databasesContract } from "./databases.js";
import { documentsContract } from "./documents.js";
import { embeddingsContract } from "./embeddings.js";
import { exportContract } from "./export.js";
import { filtersContract } from "./filters.js";
import { testId } from "./fixtures.js";
import { leasesContract } from "./leases.js";
import { locatorsContract } from "./locators.js";
import { manyDocumentsContract } from "./many-documents.js";
import { searchContract } from "./search.js";
import { sqlContract } from "./sql.js";
import { textContract } from "./text.js";
import { writersContract } from "./writers.js";

export type { ContractTarget } from "./context.js";
export { cosineDistance, makeDocument, random, randomUnit, testId, unit } from "./fixtures.js";

/**
 * The storage contract as tests: every engine runs this suite (SQLite in its package, PostgreSQL
 * in its own). `setup` is called once; each test works in databases of its own.
 */
export function runStoreContract(engineName: string, setup: () => Promise<ContractTarget>): void {
  describe(`Store contract: ${engineName}`, () => {
    let target: ContractTarget;
    let engine: StoreEngine;
    const fresh = async (): Promise<Store> => engine.openDatabase(`t_${testId().toLowerCase()}`.slice(0, 60), { create: true });
    const ctx: ContractContext = {
      get engine() {
        return engine;
      },
      second: () => target.second(),
      fresh,
    };

    beforeAll(async () => {
      target = await setup();
      engine = target.engine;
    });
    afterAll(async () => {
      await engine?.close();
      await target?.cleanup?.();
    });

    databasesContract(ctx);
    documentsContract(ctx);
    textContract(ctx);
    manyDocumentsContract(ctx);
    exportContract(ctx);
    embeddingsContract(ctx);
    searchContract(ctx);
    filtersContract(ctx);
    codeChunksContract(ctx);
    locatorsContract(ctx);
    collectionsContract(ctx);
    sqlContract(ctx);
    writersContract(ctx);
    accessContract(ctx);
    leasesContract(ctx);
  });
}
