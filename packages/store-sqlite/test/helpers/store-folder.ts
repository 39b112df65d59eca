// A temporary folder for each test's SQLite stores: made before the test; after it, the stores
// handed to track() are closed and the folder removed.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Store } from "@docdb/store";
import { afterEach, beforeEach } from "vitest";

export function storeFolder(prefix: string) {
  let dir = "";
  const opened: Store[] = [];
  /** Closes every tracked store (a test may do so early, e.g. before reading the file itself). */
  const closeAll = async (): Promise<void> => {
    for (const store of opened.splice(0)) await store.close();
  };
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), prefix));
  });
  afterEach(async () => {
    await closeAll();
    rmSync(dir, { recursive: true, force: true });
  });
  return {
    /** This test's folder. */
    get dir(): string {
      return dir;
    },
    /** `store`, closed after the test. */
    track<T extends Store>(store: T): T {
      opened.push(store);
      return store;
    },
    closeAll,
  };
}
