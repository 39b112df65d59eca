// How often the SQLite engine reads its change token: a caller that reads it (core's memory
// check) and asks for the model record in the same synchronous stretch pays one read, not two;
// after a pause the next kept value reads it again, and a write by another connection is seen.
import { createRequire } from "node:module";
import type { Store } from "@docdb/store";
import { expect, it } from "vitest";
import { createSqliteEngine } from "../src/index.js";
import { storeFolder } from "./helpers/store-folder.js";

const folder = storeFolder("docdb-token-reads-");

async function open(): Promise<Store> {
  const store = await createSqliteEngine({ dataDir: folder.dir }).openDatabase("tokens", { create: true });
  folder.track(store);
  return store;
}

/** Counts the driver's runs of `PRAGMA data_version` (one per read of the change token), observed on better-sqlite3's statements. */
function countTokenReads(): { n: number; stop: () => void } {
  const Database = createRequire(import.meta.url)("better-sqlite3");
  const probe = new Database(":memory:");
  const proto = Object.getPrototypeOf(probe.prepare("SELECT 1"));
  probe.close();
  const own = proto.get;
  const counter = {
    n: 0,
    stop: () => {
      proto.get = own;
    },
  };
  proto.get = function (this: { source: string }, ...args: unknown[]) {
    if (this.source === "PRAGMA data_version") counter.n++;
    return own.apply(this, args);
  };
  return counter;
}

it("reads the change token once for a token read and a kept value asked in one stretch, again after a pause, and sees another connection's write", async () => {
  const store = await open();
  await store.setEmbeddingInfo({ provider: "test", model: "m", dimensions: 4 });
  await store.getEmbeddingInfo();
  const reads = countTokenReads();
  try {
    // Core's find asks for both without a pause between them.
    const [token, info] = await Promise.all([store.changeToken(), store.getEmbeddingInfo()]);
    expect(info?.model).toBe("m");
    expect(reads.n).toBe(1);
    // After a pause the kept model record is checked again.
    expect((await store.getEmbeddingInfo())?.model).toBe("m");
    expect(reads.n).toBe(2);

    const other = await open();
    await other.setEmbeddingInfo({ provider: "test", model: "m2", dimensions: 4 }, { replace: true });
    const [after, changed] = await Promise.all([store.changeToken(), store.getEmbeddingInfo()]);
    expect(after).not.toBe(token);
    expect(changed?.model).toBe("m2");
  } finally {
    reads.stop();
  }
});
