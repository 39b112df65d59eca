// A temporary folder for each test's SQLite stores: made before the test; after it, the stores (or
// engines) handed to track() are closed and the folder removed.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach } from "vitest";

export function storeFolder(prefix: string) {
  let dir = "";
  const opened: { close(): Promise<void> }[] = [];
  /** Closes everything tracked (a test may do so early, e.g. before reading the file itself). */
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
    /** `opened` (a store or an engine), closed after the test. */
    track<T extends { close(): Promise<void> }>(closable: T): T {
      opened.push(closable);
      return closable;
    },
    closeAll,
  };
}
