import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type DocDB, openDocDB } from "../src/index.js";

// Answers that read right without a model: keyword scores in hybrid, top_k counted in passages.
let dir: string;
let docdb: DocDB | undefined;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "docdb-answers-"));
});
afterEach(async () => {
  await docdb?.close();
  docdb = undefined;
  rmSync(dir, { recursive: true, force: true });
});

/** A long document whose middle paragraphs all name the topic: they are neighbouring chunks. */
function longDocument(): string {
  const paragraphs: string[] = [];
  for (let i = 0; i < 40; i++) {
    paragraphs.push(
      i >= 10 && i < 22
        ? `Zephyrite section ${i}: zephyrite crystals grow in cold caves and zephyrite is polished for lenses.`
        : `Paragraph ${i} describes the harbour, the tides and the ferries that cross the bay every morning.`,
    );
  }
  return paragraphs.join("\n\n");
}

async function seeded() {
  docdb = openDocDB({ dataDir: dir, embedding: null, chunkOptions: { size: 200, overlap: 0 } });
  const db = await docdb.database("notes", { create: true });
  await db.insertDocument({ text: longDocument(), title: "Caves" });
  for (let i = 0; i < 6; i++) await db.insertDocument({ text: `A short note ${i} about zephyrite prices at the market.` });
  return db;
}

describe("answers without a model", () => {
  it("hybrid ranks by keywords with keyword scores (the best hit scores 1, not 0.5) and says so once", async () => {
    const db = await seeded();
    const hybrid = await db.findSimilar({ query: "zephyrite crystals", top_k: 5 });
    const keyword = await db.findSimilar({ query: "zephyrite crystals", top_k: 5, mode: "keyword" });
    expect(hybrid.results[0]?.score).toBe(1);
    expect(hybrid.results.map((r) => [r.chunk_id, r.score])).toEqual(keyword.results.map((r) => [r.chunk_id, r.score]));
    expect(hybrid.warnings).toHaveLength(1);
    expect(hybrid.warnings[0]).toMatch(/^keyword results only: /);
    expect(keyword.warnings).toEqual([]);
  });

  it("top_k is the number of passages: neighbouring chunks merged into one passage count once", async () => {
    const db = await seeded();
    for (const mode of ["keyword", "hybrid"] as const) {
      const found = await db.findSimilar({ query: "zephyrite", top_k: 3, mode });
      expect(found.results, mode).toHaveLength(3);
      expect(
        found.results.some((r) => r.chunk_ids.length > 1),
        mode,
      ).toBe(true);
      // Without merging, top_k chunks.
      const chunks = await db.findSimilar({ query: "zephyrite", top_k: 3, mode, merge: false });
      expect(chunks.results.every((r) => r.chunk_ids.length === 1)).toBe(true);
      expect(chunks.results).toHaveLength(3);
    }
    // Fewer passages than top_k only when the candidates run out: 1 long document + 6 notes.
    const all = await db.findSimilar({ query: "zephyrite", top_k: 20, mode: "keyword" });
    expect(all.results).toHaveLength(7);
  });
});
