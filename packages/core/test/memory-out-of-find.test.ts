// find keeps agent memory out even when it is stored after a find by another connection
// (the "no memory here" answer is kept only until the database changes).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, expect, it } from "vitest";
import { type DocDB, openDocDB, silentLogger } from "../src/index.js";

let dataDir: string;
const open: DocDB[] = [];
beforeEach(() => {
  dataDir = mkdtempSync(join(tmpdir(), "docdb-memory-find-"));
});
afterEach(async () => {
  for (const d of open.splice(0)) await d.close();
  rmSync(dataDir, { recursive: true, force: true });
});

function docdb(): DocDB {
  const d = openDocDB({ dataDir, embedding: null, logger: silentLogger() });
  open.push(d);
  return d;
}

it("keeps memory another connection stored after a find out of the next find", async () => {
  const db = await docdb().database("mem", { create: true });
  await db.insertDocument({ text: "A document about deploy rollbacks written by a person." });
  const before = await db.findSimilar({ query: "roll back deploy", mode: "keyword" });
  expect(before.results).toHaveLength(1);
  // Twice: the second find takes the kept "no memory" answer.
  expect((await db.findSimilar({ query: "roll back deploy", mode: "keyword" })).results).toHaveLength(1);

  const other = await docdb().database("mem");
  await other.memory.storeQa({ question: "How do I roll back a deploy?", answer: "Run deploy rollback.", topic: "Deploy" });

  const after = await db.findSimilar({ query: "roll back deploy", mode: "keyword" });
  expect(after.results.map((r) => r.collection)).toEqual([undefined]);
  expect(after.results).toHaveLength(1);
});
