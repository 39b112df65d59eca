// Waits until a database's keyword index (SQLite, beside the file) answers keyword finds, so a
// bench times the index and not FTS5 during its background build. Engines without one return at once.
import { setTimeout as sleep } from "node:timers/promises";

/** Starts the keyword index (one keyword find) and polls its status until it is ready or not used. */
export async function keywordIndexReady(db, { query = "index", timeoutMs = 30 * 60_000 } = {}) {
  const start = performance.now();
  for (;;) {
    await db.findSimilar({ query, mode: "keyword", top_k: 1 });
    const state = (await db.indexStatus())?.keyword?.state;
    if (state === undefined || state === "none" || state === "ready") return { state, seconds: (performance.now() - start) / 1000 };
    if (performance.now() - start > timeoutMs) throw new Error(`the keyword index is still ${state} after ${timeoutMs / 1000} s`);
    await sleep(250);
  }
}
